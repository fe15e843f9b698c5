"""Shrink tensor dimensions (batch, channels, spatial, M/N/K) while the failure holds.

ONNX models shrink on the graph. Torch-dialect IR made of `torch.operator "onnx.*"` ops is lifted
to an ONNX graph, shrunk there and imported again with the IREE importer: ONNX shape inference
recomputes every dependent type soundly, where rewriting MLIR types by hand would have to know
every op's shape rule. Linalg-level IR is left as it is.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Sequence
from pathlib import Path

import onnx
from iree.compiler import ir

from oracles import Candidate
from oracles.onnx_import import import_model
from oracles.toolchain import Limits
from reducer import ir as irx
from reducer import mlir_shapes, onnx_model
from reducer.onnx_lift import NotLiftable, lift
from reducer.onnx_shapes import Dimension, dimensions, resize, shape_summary
from reducer.passes.base import Proposal, ReductionPass

_IMPORT_LIMITS = Limits(timeout_s=120)


class _ShrinkShapes(ReductionPass):
    search = "shrink"

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        raise NotImplementedError

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context) -> Proposal | None:
        raise NotImplementedError

    def _dimensions(self, current: Proposal) -> dict[str, Dimension]:
        model = self.model(current)
        return {d.key: d for d in dimensions(model)} if model is not None else {}

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        return [(key, d.value) for key, d in self._dimensions(current).items()]

    def count(self, current: Proposal, ctx: ir.Context) -> int:
        return len(self._dimensions(current))

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        return None  # sizes are searched through `resize`, not chunks

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context) -> Proposal | None:
        model = self.model(current)
        dimension = self._dimensions(current).get(key)
        if model is None or dimension is None or size >= dimension.value:
            return None
        resized = resize(model, dimension, size)
        return self.emit(current, resized, ctx) if resized is not None else None


class ShrinkOnnxShapes(_ShrinkShapes):
    name = "shrink-shapes"
    description = "shrink each tensor dimension of an ONNX model: 1, 2, divisions, then bisect; shapes re-inferred"

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        data = current.candidate.binary
        return onnx_model.parsed_copy(data) if data is not None else None

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context) -> Proposal | None:
        data = onnx_model.serialise(model)
        candidate = Candidate(onnx_model.describe(model), current.candidate.flags, current.candidate.suffix, data)
        return Proposal(candidate, onnx_model.node_count(model))


@functools.lru_cache(maxsize=8)
def _lifted(text: str) -> onnx.ModelProto | None:
    try:
        return lift(text)
    except NotLiftable:
        return None


class ShrinkTorchOnnxShapes(_ShrinkShapes):
    name = "shrink-torch-onnx-shapes"
    description = "lift torch.operator \"onnx.*\" IR to ONNX, shrink its dimensions there, import it again"

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        if current.candidate.binary is not None or '"onnx.' not in current.candidate.text:
            return None
        lifted = _lifted(current.candidate.text)
        if lifted is None:
            return None
        copy = onnx.ModelProto()
        copy.CopyFrom(lifted)
        return copy

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context) -> Proposal | None:
        with tempfile.TemporaryDirectory(prefix="iree-reduce-lift-") as tmp:
            text, _ = import_model(onnx_model.serialise(model), Path(tmp), _IMPORT_LIMITS)
        if text is None:
            return None
        try:
            module = irx.parse(text, ctx)
        except irx.ParseError:
            return None
        return Proposal(current.candidate.with_text(irx.to_text(module)), irx.count_ops(module))


def shapes_of(candidate: Candidate) -> str:
    """The input and constant shapes of an ONNX, torch-onnx or linalg-level candidate ('' for other IR)."""
    if candidate.binary is not None:
        return shape_summary(onnx_model.parse(candidate.binary))
    lifted = _lifted(candidate.text) if '"onnx.' in candidate.text else None
    if lifted is not None:
        return shape_summary(lifted, named=False)
    return mlir_shapes.summaries(candidate.text)[0]


def shapes_kept_by(candidate: Candidate) -> str:
    """What keeps dimensions of a linalg-level candidate from shrinking ('' when nothing does)."""
    return "" if candidate.binary is not None else mlir_shapes.summaries(candidate.text)[1]
