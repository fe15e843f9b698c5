"""Drop function arguments nothing reads."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass
from reducer.passes.support.signatures import by_function, uncalled_functions


class DropUnusedArguments(IrPass):

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, int]]:
        found = []
        for func in uncalled_functions(module):
            block = irx.entry_block(func)
            found.extend((func, i) for i, arg in enumerate(block.arguments) if not any(True for _ in arg.uses))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, int]]) -> None:
        for func, indices in by_function(chosen):
            block = irx.entry_block(func)
            for index in sorted(indices, reverse=True):
                block.erase_argument(index)
            irx.sync_arguments(func, erased=indices)
