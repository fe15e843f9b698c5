"""Drop whole repeated blocks of ops: the transformer layers of a model, in one step each.

A model's layers are runs of top-level ops that look alike, one after the other: an op name
that recurs at near-equal gaps (once a layer: an attention softmax, an FFN activation) marks
where each copy begins. In each function the repeat covering the most ops is found; copies
1..k-1 are the targets (copy 0 stays). Dropping copy j replaces each value it defines that is
read after it by the value at the same place (ops aligned by name: layers may differ by an op
or two) in the nearest copy before it that stays, so what came after reads what the layer
before produced (the residual stream skips the layer), then erases the copy. What only the dropped copies read (their weights'
loads, their constants) goes with them, and so does every private global nothing reads any
more: parameters included. A 3-layer Llama's decode loses two layers in one candidate where
op-level passes would need hundreds.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np
from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass

# Shorter runs are not worth a candidate: ddmin on single ops covers them.
MIN_PERIOD = 8
# Layers need not be identical (the first may compute an offset the others reuse): the gaps
# between one op's occurrences may differ by this share of their mean.
GAP_TOLERANCE = 0.1


@dataclass(frozen=True)
class Block:
    """Copy `copy` (1..len(starts)-1) of a repeat in function `function`; `starts` are the copies'
    first top-level ops, `end` is where the last copy ends."""

    function: int
    starts: tuple[int, ...]
    end: int
    copy: int

    def span(self, copy: int) -> range:
        return range(self.starts[copy], self.starts[copy + 1] if copy + 1 < len(self.starts) else self.end)


def repeated_runs(names: list[str], min_period: int = MIN_PERIOD) -> tuple[tuple[int, ...], int] | None:
    """(start of each copy, end of the last) of the repeat that covers the most ops: the copies
    begin at the occurrences of an op name that recurs at near-equal gaps (once a layer)."""
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        positions.setdefault(name, []).append(i)
    best, best_cover = None, 0
    for name, where in positions.items():
        if len(where) < 2:
            continue
        gaps = np.diff(where)
        mean = float(gaps.mean())
        if mean < min_period or float(np.abs(gaps - mean).max()) > GAP_TOLERANCE * mean:
            continue
        end = _last_copy_end(names, where[-2], where[-1])
        cover = end - where[0]
        if cover > best_cover:
            best, best_cover = (tuple(where), end), cover
    return best


def _last_copy_end(names: list[str], before: int, last: int) -> int:
    """Where the last copy ends: after its last op that aligns with the copy before it (what
    follows is the function's epilogue: a final norm, the logits, the cache written back)."""
    previous, tail = names[before:last], names[last:]
    matcher = difflib.SequenceMatcher(None, previous, tail, autojunk=False)
    ends = [b + size for _, b, size in matcher.get_matching_blocks() if size]
    return last + (max(ends) if ends else 0)


class RemoveRepeatedBlocks(IrPass):

    def targets(self, module: ir.Module) -> list[Block]:
        found = []
        for number, func in enumerate(irx.functions(module)):
            ops = irx.straight_line_ops(func) if func.parent.name == "builtin.module" else None
            repeat = repeated_runs([op.name for op in ops]) if ops else None
            if repeat is not None:
                starts, end = repeat
                found += [Block(number, starts, end, copy) for copy in range(1, len(starts))]
        return found

    def edit(self, module: ir.Module, chosen: list[Block]) -> None:
        functions = irx.functions(module)
        for number in sorted({block.function for block in chosen}):
            blocks = [block for block in chosen if block.function == number]
            ops = irx.straight_line_ops(functions[number])
            if ops is None or not _bypass(ops, blocks):
                return  # a value read after a copy has no stand-in of its type: no candidate
            irx.erase_dead(functions[number])
        try:
            PassManager.parse("builtin.module(symbol-dce)", module.context).run(module.operation)
        except ir.MLIRError:
            pass


def _bypass(ops: list[ir.Operation], blocks: list[Block]) -> bool:
    """Replaces each value of a chosen copy that is read outside it by the value at the same place
    (ops aligned by name) of the nearest kept copy before it, and erases the copies; False
    (nothing changed) when such a value has no stand-in of its type."""
    dropped = {block.copy for block in blocks}
    layout = blocks[0]
    position = {op: i for i, op in enumerate(ops)}
    inside = {i for copy in dropped for i in layout.span(copy)}
    pairs = []
    for copy in sorted(dropped):
        kept = max(c for c in range(copy) if c not in dropped)
        mine, theirs = list(layout.span(copy)), list(layout.span(kept))
        matcher = difflib.SequenceMatcher(None, [ops[i].name for i in mine], [ops[i].name for i in theirs], autojunk=False)
        stand_in = {mine[a + k]: theirs[b + k] for a, b, size in matcher.get_matching_blocks() for k in range(size)}
        for i in mine:
            for r, value in enumerate(ops[i].results):
                if all(_user_index(use, position) in inside for use in value.uses):
                    continue  # read only inside the dropped copies: erased with them
                j = stand_in.get(i)
                if j is None or len(ops[j].results) <= r or ops[j].results[r].type != value.type:
                    return False
                pairs.append((value, ops[j].results[r]))
    for value, replacement in pairs:
        value.replace_all_uses_with(replacement)
    for i in sorted(inside, reverse=True):
        ops[i].erase()
    return True


def _user_index(use, position: dict[ir.Operation, int]) -> int:
    """The top-level op (its index in `position`) a use sits in; -1 for the terminator."""
    owner = use.owner.operation
    while owner.parent is not None and owner.parent.name not in irx.FUNCTION_OPS:
        owner = owner.parent
    return position.get(owner, -1)
