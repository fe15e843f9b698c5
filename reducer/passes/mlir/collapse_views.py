"""Collapse chains of shape-only torch ops into the view at their end.

A torch export moves a tensor between layouts in long chains: `view` to heads, `transpose`,
`unsqueeze`, `view` back, `_unsafe_view`, each with its list of int constants. A view (or
reshape) only needs a tensor with as many elements: the target is each view whose operand comes
out of such a chain, and the edit makes it view the chain's start directly (the farthest value
back: every op on the way keeps the element count). The ops in between, their lists and
constants go once nothing else reads them. A dozen such views go in one candidate where
replace-with-operand finds no value of the right type and replace-with-argument would cut the
tensor off from what computes it.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass

# Ops that take a list of sizes: any operand with as many elements will do.
VIEWS = ("torch.aten.view", "torch.aten._unsafe_view", "torch.aten.reshape")
# Ops that only move a tensor's elements (or its shape), whose first operand is the tensor.
SHAPE_ONLY = (*VIEWS, "torch.aten.transpose.int", "torch.aten.permute", "torch.aten.unsqueeze",
              "torch.aten.squeeze", "torch.aten.squeeze.dim", "torch.aten.flatten.using_ints",
              "torch.aten.unflatten.int", "torch.aten.t", "torch.aten.contiguous")


def chain_start(view: ir.Operation) -> ir.Value | None:
    """The farthest value back along shape-only producers of `view`'s operand (None when its
    operand is not made by one). Every op on the way keeps the element count and type, so the
    view's sizes (static, or the same dynamic ints) fit it as they fit the operand."""
    value, found = view.operands[0], None
    while isinstance(value, ir.OpResult) and value.owner.name in SHAPE_ONLY:
        value = found = value.owner.operands[0]
    return found


class CollapseViews(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Operation]:
        return [op for func in irx.functions(module) for op in irx.walk_ops(func)
                if op.name in VIEWS and chain_start(op) is not None]

    def edit(self, module: ir.Module, chosen: list[ir.Operation]) -> None:
        for view in chosen:
            start = chain_start(view)
            if start is not None:
                view.operands[0] = start
        for func in irx.functions(module):
            irx.erase_dead(func)
