"""Make a dynamic dim of an ONNX model static at the size its data runs it at, where the failure stays.

A wrong answer found at a dynamic size may need the dim dynamic (made static at that size, the
same graph computes the right answer) or not. Before the passes, the original is judged made
static at its sizes (`dynamic_need`): when it then computes the right answer the failure needs the
dims dynamic, and this pass does not run, so the result keeps them dynamic (a reduced graph may
go wrong static too, but that is no longer the user's bug as they see it). Otherwise this pass
tries each dynamic dim (a `dim_param`, every input that carries it at once) fixed at the size the
candidate's data gives it, kept when the failure stays. The summary's sizes say which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import onnx

from oracles.inputs.dims import sizes_run_at
from reducer.graphs import onnx_model
from reducer.proposal import Proposal
from reducer.search.protocol import ReductionPass
from reducer.shapes.onnx_shapes import reinferred

PIN_PASS = "onnx-pin-dynamic-dims"


@dataclass(frozen=True)
class DynamicNeed:
    """Whether the original's failure needs its dynamic dims, and the sentence that says so."""

    needed: bool
    line: str


def dynamic_need(problem, original: Proposal) -> DynamicNeed | None:
    """The original made static at the sizes its data runs it at, judged like any candidate: None
    for a static original or one without data (nothing to pin)."""
    sizes = sizes_run_at(original.candidate) if original.candidate.binary is not None else {}
    static = pinned(onnx_model.parse(original.candidate.binary), sizes) if sizes else None
    if static is None:
        return None
    at = ", ".join(f"{key}={size}" for key, size in sizes.items())
    verdict = problem.judge(original.candidate.with_binary(onnx_model.describe(static), onnx_model.serialise(static)))
    if verdict.interesting:
        return DynamicNeed(False, f"made static at {at}, the original still fails: the failure does not need dynamic dims")
    return DynamicNeed(True, f"made static at {at}, the original does not fail ({verdict.detail[:120]}): "
                             "the failure needs its dims dynamic, and the result keeps them so")


def _key(value: onnx.ValueInfoProto, axis: int, dim) -> str:
    """The --dim key of a dynamic dim (as oracles/inputs/dims.py spells it)."""
    return dim.dim_param or f"{value.name}.{axis}"


def pinned(model: onnx.ModelProto, sizes: dict[str, int]) -> onnx.ModelProto | None:
    """A copy with each dynamic input dim named in `sizes` static at its size, every later shape
    re-inferred; None when inference or the checker rejects it."""
    edited = onnx.ModelProto()
    edited.CopyFrom(model)
    for value in edited.graph.input:
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if not dim.HasField("dim_value") and _key(value, axis, dim) in sizes:
                dim.dim_value = sizes[_key(value, axis, dim)]
    return reinferred(edited)


class OnnxPinDims(ReductionPass):
    """Targets: the candidate's dynamic dims that its data gives a size."""

    def _targets(self, current: Proposal) -> tuple[onnx.ModelProto, dict[str, int]] | None:
        if current.candidate.binary is None:
            return None
        sizes = sizes_run_at(current.candidate)
        return (onnx_model.parsed_copy(current.candidate.binary), sizes) if sizes else None

    def count(self, current: Proposal, ctx: Any) -> int:
        found = self._targets(current)
        return len(found[1]) if found else 0

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: Any) -> Proposal | None:
        found = self._targets(current)
        if found is None:
            return None
        model, sizes = found
        keys = sorted(sizes)
        picked = {keys[i]: sizes[keys[i]] for i in chosen if i < len(keys)}
        edited = pinned(model, picked) if picked else None
        if edited is None:
            return None
        candidate = current.candidate.with_binary(onnx_model.describe(edited), onnx_model.serialise(edited))
        return Proposal(candidate, onnx_model.node_count(edited))
