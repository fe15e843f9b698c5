"""Erase ops that produce no value: shape bindings, stores, in-place writes.

The replacing passes remove an op by rewiring its results' uses, so an op with no results is
never their target: a torch export's `torch.bind_symbolic_shape` (one a value: a dozen outlive
the values they describe once those became arguments), a `util.global.store`, a
`torch.overwrite.tensor.contents` nothing else depends on. What only they read goes with them.
"""

from __future__ import annotations

from collections import Counter

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass


class RemoveResultless(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Operation]:
        """The most common kind first: ddmin's chunks then hold a hundred shape bindings together,
        apart from the one in-place write the failure needs (program order within a kind)."""
        found = [op for func in irx.functions(module) for op in irx.walk_ops(func)
                 if not len(op.results) and not irx.is_terminator(op)]
        kinds = Counter(op.name for op in found)
        order = sorted(range(len(found)), key=lambda i: (-kinds[found[i].name], found[i].name, i))
        return [found[i] for i in order]

    def edit(self, module: ir.Module, chosen: list[ir.Operation]) -> None:
        # Innermost first: an op nested in a chosen op goes before its parent.
        for op in sorted(chosen, key=_depth, reverse=True):
            op.erase()
        for func in irx.functions(module):
            irx.erase_dead(func)


def _depth(op: ir.Operation) -> int:
    depth = 0
    while op.parent is not None:
        op, depth = op.parent, depth + 1
    return depth
