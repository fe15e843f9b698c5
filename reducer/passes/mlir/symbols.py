"""Remove functions, globals and other top-level symbols (dangling references fail verification)."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass


class RemoveSymbols(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Operation]:
        tops = [op.operation for op in module.body.operations if "sym_name" in op.operation.attributes]
        # Removing the only function (an executable's count too) leaves nothing to compile: never a repro.
        only = irx.functions(module) if len(irx.functions(module)) == 1 else []
        return [op for op in tops if op not in only]

    def edit(self, module: ir.Module, chosen: list[ir.Operation]) -> None:
        for op in chosen:
            op.erase()
