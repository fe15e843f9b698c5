"""The user's data follows the entry function's arguments and results through an edit.

MLIR data is keyed by position (`in:argI`, `at:argI`, `out:resultJ`, oracles/data/carried.py),
so an edit that drops an argument would shift every later one onto the wrong array. Every
`IrPass` edit goes through here once: a snapshot of the entry function before the edit, and after
it each argument and result is matched to the one it was by identity (a value's pointer survives the erasure
of others), its data re-keyed to its new position, and data of what went dropped.

An argument that is new (a cut turned a value into it) takes over the uses of a value of the
parent; that value's position (op index in the entry block, result number) is reported, and the
reducer fills in what the parent computes there on its data (reducer/search/cut_values.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from oracles.data.carried import INPUT, INTERMEDIATE, OUTPUT
from oracles.mlir import ir as irx

Data = tuple[tuple[str, bytes], ...]
# (new argument index, op index in the parent's entry block, result number of that op)
CutValue = tuple[int, int, int]


@dataclass(frozen=True)
class Snapshot:
    """The entry function before an edit: its arguments and results by identity, and which op
    result each (user, operand) pair read."""

    arguments: list[int]
    results: list[int]
    read: dict[tuple[int, int], tuple[int, int]]


def snapshot(module: ir.Module) -> Snapshot | None:
    func = irx.public_entry(module)
    block = irx.entry_block(func) if func is not None else None
    if block is None:
        return None
    ops = [op.operation for op in block.operations]
    read = {}
    for k, op in enumerate(ops[:-1]):
        for r, result in enumerate(op.results):
            for use in result.uses:
                read[_use_key(use)] = (k, r)
    return Snapshot([hash(a) for a in block.arguments], [hash(v) for v in ops[-1].operands], read)


def follow(before: Snapshot, module: ir.Module, data: Data) -> tuple[Data, tuple[CutValue, ...]]:
    """`data` re-keyed to the edited `module`'s entry arguments and results, and the new
    arguments whose values a parent's op result gives."""
    func = irx.public_entry(module)
    block = irx.entry_block(func) if func is not None else None
    if block is None:
        return (), ()
    renamed: dict[str, str] = {}
    cuts: list[CutValue] = []
    for i, argument in enumerate(block.arguments):
        old = _position(hash(argument), before.arguments)
        if old is not None:
            renamed |= {f"{INPUT}arg{old}": f"{INPUT}arg{i}", f"{INTERMEDIATE}arg{old}": f"{INTERMEDIATE}arg{i}"}
            continue
        sources = {before.read.get(_use_key(use)) for use in argument.uses}
        if len(sources) == 1 and None not in sources:
            cuts.append((i, *sources.pop()))
    terminator = list(block.operations)[-1].operation
    for j, value in enumerate(terminator.operands):
        old = _position(hash(value), before.results)
        if old is not None:
            renamed[f"{OUTPUT}result{old}"] = f"{OUTPUT}result{j}"
    followed = []
    for name, raw in data:
        key, bar, element = name.partition("|")  # bf16 / f8 arrays carry their type after a bar
        if key in renamed:
            followed.append((renamed[key] + bar + element, raw))
        elif not key.startswith((INPUT, INTERMEDIATE, OUTPUT)):
            followed.append((name, raw))
    return tuple(followed), tuple(cuts)


def _use_key(use: ir.OpOperand) -> tuple[int, int]:
    """A use by identity: its user's first result (a value keeps its object through an edit; an
    op's Python object does not) and the operand; -1 for a user without results (a terminator)."""
    results = use.owner.operation.results
    return (hash(results[0]) if len(results) else -1, use.operand_number)


def _position(identity: int, before: list[int]) -> int | None:
    return before.index(identity) if identity in before else None
