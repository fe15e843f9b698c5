"""Shrink function signatures: drop results, drop arguments nothing reads."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.base import IrPass


def _uncalled_functions(module: ir.Module) -> list[ir.Operation]:
    called = irx.called_symbols(module)
    return [f for f in irx.functions(module) if irx.entry_block(f) is not None and irx.symbol_name(f) not in called]


def _by_function(chosen: list[tuple[ir.Operation, int]]) -> list[tuple[ir.Operation, list[int]]]:
    """Groups (function, index) targets per function, keeping the first-seen order."""
    groups: dict[int, tuple[ir.Operation, list[int]]] = {}
    for func, index in chosen:
        groups.setdefault(id(func), (func, []))[1].append(index)
    return list(groups.values())


class DropResults(IrPass):
    name = "drop-results"
    description = "drop function results (and what only they needed)"

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, int]]:
        found = []
        for func in _uncalled_functions(module):
            terminator = list(irx.entry_block(func).operations)[-1].operation
            found.extend((func, i) for i in range(len(terminator.operands)))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, int]]) -> None:
        for func, drop in _by_function(chosen):
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


class DropUnusedArguments(IrPass):
    name = "drop-unused-arguments"
    description = "drop function arguments nothing reads"

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, int]]:
        found = []
        for func in _uncalled_functions(module):
            block = irx.entry_block(func)
            found.extend((func, i) for i, arg in enumerate(block.arguments) if not any(True for _ in arg.uses))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, int]]) -> None:
        for func, indices in _by_function(chosen):
            block = irx.entry_block(func)
            for index in sorted(indices, reverse=True):
                block.erase_argument(index)
            irx.sync_arguments(func, erased=indices)
