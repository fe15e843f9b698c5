"""Forward a same-typed operand in place of an op's results.

The operand may be one of the op's own, or one of its producers' (up to DEPTH ops back): a view
of a view back to the first shape (`[1,1,256] -> [1,256] -> [1,1,256]`), a cast there and back,
or a chain of torch views around a KV cache goes in one step, where forwarding only the op's own
operands finds no value of its result's type.
"""

from __future__ import annotations

from collections.abc import Iterator

from iree.compiler import ir

from reducer.passes.support.replacing import ReplaceResults

# How many producers back a same-typed value is looked for.
DEPTH = 3


def _earlier_values(op: ir.Operation) -> Iterator[ir.Value]:
    """The op's operands, then its producers' operands, and so on DEPTH deep, nearest first."""
    seen: set[ir.Value] = set()
    frontier = [op]
    for _ in range(DEPTH):
        following = []
        for current in frontier:
            for value in current.operands:
                if value in seen:
                    continue
                seen.add(value)
                yield value
                if isinstance(value, ir.OpResult):
                    following.append(value.owner.operation)
        frontier = following


class ReplaceWithOperand(ReplaceResults):

    def qualifies(self, op: ir.Operation) -> bool:
        types = {str(v.type) for v in _earlier_values(op)}
        return all(str(r.type) in types for r in op.results)

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        for result in op.results:
            operand = next(v for v in _earlier_values(op) if v.type == result.type)
            result.replace_all_uses_with(operand)
        return True
