"""The pass protocol on PyTorch programs (the FX graph of a `.pt2`) and what the FX passes share.

A pass lists its targets on the current best's graph (reducer/graphs/torch_program.py) in a
deterministic order and edits a fresh copy; the copy is exported and imported again, which
verifies it. An input a cut makes carries what the parent computes at the node it stands in for
(run eagerly on the parent's inputs), so a program that runs keeps running on the original's
values. torch is imported inside the functions: the edit worker loads it on the first FX edit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reducer.proposal import Proposal
from reducer.search.protocol import ReductionPass

if TYPE_CHECKING:  # torch loads only where a .pt2 is edited
    from reducer.graphs.torch_program import Editable

# What the parent computes at each node (name -> array), computed on first use.
Values = Callable[[], dict]


class FxPass(ReductionPass):
    """Targets are plain data (node names, indices) found on the graph; `edit` changes a copy."""

    def targets(self, ed: Editable) -> list[Any]:
        raise NotImplementedError

    def edit(self, ed: Editable, chosen: list[Any], values: Values) -> None:
        """Applies the chosen targets to the Editable `ed` in place; raises Invalid when it cannot."""
        raise NotImplementedError

    def count(self, current: Proposal, ctx: Any) -> int:
        if current.candidate.binary is None:
            return 0
        from reducer.graphs import torch_program

        return len(self.targets(torch_program.editable_of(current.candidate.binary, current.candidate.data)))

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: Any) -> Proposal | None:
        if current.candidate.binary is None:
            return None
        from reducer.graphs import torch_program

        ed = torch_program.editable_of(current.candidate.binary, current.candidate.data)
        targets = self.targets(ed)
        picked = [targets[i] for i in chosen if i < len(targets)]
        if not picked:
            return None
        try:
            self.edit(ed, picked, functools.partial(parent_values, current))
            return fx_proposal(current, ed)
        except torch_program.Invalid:
            return None


def fx_proposal(current: Proposal, ed: Editable) -> Proposal | None:
    """`current` with its program replaced by the edited one; None when it is the same or is rejected."""
    from reducer.graphs import torch_program

    torch_program.prune(ed)
    built = torch_program.built(ed)
    if built.archive == current.candidate.binary:
        return None
    candidate = replace(current.candidate, text=built.text, binary=built.archive, data=torch_program.carried_data(ed))
    return Proposal(candidate, built.nodes)


def parent_values(current: Proposal) -> dict:
    """What the current best computes at each node on the inputs it carries ({} when it carries none:
    an oracle that does not run the program needs no values)."""
    if not current.candidate.data:
        return {}
    return _values(current.candidate.binary, current.candidate.data)


@functools.lru_cache(maxsize=2)
def _values(archive: bytes, data: tuple[tuple[str, bytes], ...]) -> dict:
    from oracles.torch.eager import EagerError, node_values
    from reducer.graphs import torch_program

    ed = torch_program.editable_of(archive, data)
    inputs = []
    for node in ed.inputs():
        carried = node.meta.get(torch_program.CARRIED)
        if carried is None:
            return {}
        inputs.append(carried[1])
    try:
        return node_values(ed.module, inputs)
    except EagerError:
        return {}


class FxTensorValues(FxPass):
    """Targets are the program's tensors (parameters, buffers, constants) that `replaced` changes;
    an edit puts in what it gives (zeros, plainer values)."""

    def replaced(self, value):
        """What the tensor `value` becomes, or `value` itself when this pass leaves it."""
        raise NotImplementedError

    def targets(self, ed: Editable) -> list[str]:
        import torch

        from reducer.graphs.torch_program import attribute

        found: list[str] = []
        for node in ed.graph.nodes:
            if node.op != "get_attr" or node.target in found:
                continue
            value = attribute(ed.module, node.target)
            if isinstance(value, torch.Tensor) and value.numel() and not torch.equal(value, self.replaced(value)):
                found.append(node.target)
        return found

    def edit(self, ed: Editable, chosen: list[Any], values: Values) -> None:
        from reducer.graphs.torch_program import attribute, set_attribute

        for name in chosen:
            set_attribute(ed.module, name, self.replaced(attribute(ed.module, name)))
