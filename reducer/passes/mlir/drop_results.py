"""Drop function results, and what only they needed."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass
from reducer.passes.support.signatures import by_function, uncalled_functions


class DropResults(IrPass):

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, int]]:
        found = []
        for func in uncalled_functions(module):
            terminator = list(irx.entry_block(func).operations)[-1].operation
            found.extend((func, i) for i in range(len(terminator.operands)))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, int]]) -> None:
        for func, drop in by_function(chosen):
            terminator = list(irx.entry_block(func).operations)[-1].operation
            kept = [v for i, v in enumerate(terminator.operands) if i not in drop]
            with ir.InsertionPoint(terminator):
                ir.Operation.create(terminator.name, operands=kept)
            terminator.erase()
            fn_type = irx.function_type(func)
            irx.set_function_type(func, list(fn_type.inputs), [v.type for v in kept])
            if "res_attrs" in func.attributes:
                old = list(ir.ArrayAttr(func.attributes["res_attrs"]))
                func.attributes["res_attrs"] = ir.ArrayAttr.get([a for i, a in enumerate(old) if i not in drop])
            irx.erase_dead(func)
