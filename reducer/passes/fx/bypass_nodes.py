"""Bypass nodes of a PyTorch program: every use of a node's value reads an earlier value of the
same dtype and shape instead.

llvm-reduce's operands-skip, MLIR's replace-with-operand, on an FX graph. Removing a node
(fx-remove-nodes) makes an input that carries what the parent computed there: what computed it
goes, so a failure that needs the nodes upstream (both matmuls of a chain) is lost. A bypass
keeps the chain connected: a clamp or an activation goes and its input reaches its users. The
node goes, and what only fed it.

The value standing in may be one of the node's inputs or one of its producers' (up to DEPTH
nodes back), as for replace-with-operand: a cast there and back (f16 -> f32 -> f16) goes in one
step, where neither cast alone reads a value of its own dtype.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reducer.passes.support.fx_edit import FxPass, Values

if TYPE_CHECKING:
    import torch

    from reducer.graphs.torch_program import Editable

# A target: (node name, the name of the earlier node that stands in for it).
Target = tuple[str, str]
# How many producers back a same-typed value is looked for.
DEPTH = 3


def tensor_of(ed: Editable, node: torch.fx.Node) -> object:
    """The (fake) tensor a node computes, or a weight's tensor for a `get_attr`; None if unknown."""
    from reducer.graphs.torch_program import attribute

    if node.op == "get_attr":
        return attribute(ed.module, node.target)
    return node.meta.get("val")


def same_type(a: object, b: object) -> bool:
    """Two tensors of one dtype and shape (a dynamic dim equal by its symbol)."""
    import torch

    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or a.dtype != b.dtype:
        return False
    return [str(d) for d in a.shape] == [str(d) for d in b.shape]


def earlier_nodes(node: torch.fx.Node) -> Iterator[torch.fx.Node]:
    """The node's inputs, then its producers' inputs, and so on DEPTH deep, nearest first."""
    seen: set[torch.fx.Node] = set()
    frontier = [node]
    for _ in range(DEPTH):
        following = []
        for current in frontier:
            for source in current.all_input_nodes:
                if source not in seen:
                    seen.add(source)
                    yield source
                    following.append(source)
        frontier = following


class FxBypassNodes(FxPass):

    def targets(self, ed: Editable) -> list[Target]:
        """Each used tensor op with each earlier value of its dtype and shape: graph order, then
        nearest first (a binary op may be bypassed by either operand)."""
        found: list[Target] = []
        for node in ed.tensor_ops():
            if not node.users:
                continue
            value = node.meta.get("val")
            for source in earlier_nodes(node):
                if same_type(tensor_of(ed, source), value):
                    found.append((node.name, source.name))
        return found

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        by_node: dict[str, str] = {}
        for name, source in chosen:
            by_node.setdefault(name, source)
        nodes = {n.name: n for n in ed.graph.nodes}
        stands_in: dict[str, torch.fx.Node] = {}  # a bypassed node's name -> what its users read now
        for node in ed.tensor_ops():  # graph order: a source a bypass replaced is followed to its own
            if node.name not in by_node:
                continue
            source = stands_in.get(by_node[node.name], nodes[by_node[node.name]])
            node.replace_all_uses_with(source)
            ed.graph.erase_node(node)
            stands_in[node.name] = source
