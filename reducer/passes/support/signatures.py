"""What the signature passes share: functions without callers, targets grouped per function."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx


def uncalled_functions(module: ir.Module) -> list[ir.Operation]:
    called = irx.called_symbols(module)
    return [f for f in irx.functions(module) if irx.entry_block(f) is not None and irx.symbol_name(f) not in called]


def by_function(chosen: list[tuple[ir.Operation, int]]) -> list[tuple[ir.Operation, list[int]]]:
    """Groups (function, index) targets per function, keeping the first-seen order."""
    groups: dict[int, tuple[ir.Operation, list[int]]] = {}
    for func, index in chosen:
        groups.setdefault(id(func), (func, []))[1].append(index)
    return list(groups.values())
