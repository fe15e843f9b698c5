"""Shape shrinking of ONNX graphs and torch-onnx IR (lifted to ONNX, shrunk there, imported again).

ONNX shape inference recomputes every dependent type soundly, where rewriting MLIR types by hand
would have to know every op's shape rule. Dimensions are searched one at a time (see the engine).
"""

from __future__ import annotations

import functools

import onnx
from iree.compiler import ir

from oracles import Candidate
from oracles.formats import Format
from oracles.mlir import ir as irx
from oracles.mlir.types import read_tensor_type
from oracles.onnx.lift import NotLiftable, lift
from reducer.graphs import onnx_model
from reducer.proposal import Proposal
from reducer.search.protocol import Convert, ShrinkPass
from reducer.shapes import mlir_shapes
from reducer.shapes.onnx_shapes import Dimension, dimensions, resize, shape_summary


class ShrinkShapes(ShrinkPass):
    """Dimensions of the ONNX graph a candidate is (or lifts to); `emit` turns a resized graph back."""

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        raise NotImplementedError

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context, convert: Convert) -> Proposal | None:
        raise NotImplementedError

    def _dimensions(self, current: Proposal) -> dict[str, Dimension]:
        model = self.model(current)
        return {d.key: d for d in dimensions(model)} if model is not None else {}

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        return [(key, d.value) for key, d in self._dimensions(current).items()]

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        model = self.model(current)
        dimension = self._dimensions(current).get(key)
        if model is None or dimension is None or size >= dimension.value:
            return None
        resized = resize(model, dimension, size)
        return self.emit(current, resized, ctx, convert) if resized is not None else None


@functools.lru_cache(maxsize=8)
def lifted_model(text: str) -> onnx.ModelProto | None:
    try:
        return lift(text)
    except NotLiftable:
        return None


def shapes_of(candidate: Candidate) -> str:
    """The input and constant shapes of an ONNX, .pt2, torch-onnx or linalg-level candidate ('' for other IR)."""
    if candidate.format is Format.PT2:
        return torch_shapes(candidate.text)
    if candidate.format is Format.ONNX:
        return shape_summary(onnx_model.parse(candidate.binary))
    lifted = lifted_model(candidate.text) if '"onnx.' in candidate.text else None
    if lifted is not None:
        return shape_summary(lifted, named=False)
    return mlir_shapes.summaries(candidate.text)[0]


def torch_shapes(text: str) -> str:
    """The argument and weight shapes of torch-dialect IR ('?' for a dynamic dim), as the FX importer
    writes a PyTorch program: its inputs, then its frozen parameters and buffers."""
    module = irx.parse(text)
    entry = irx.public_entry(module)
    block = irx.entry_block(entry) if entry is not None else None
    if block is None:
        return ""
    types = [str(argument.type) for argument in block.arguments]
    types += [str(op.results[0].type) for op in irx.walk_ops(entry) if op.name == "torch.vtensor.literal"]
    spelled = [read_tensor_type(t) for t in types]
    return ", ".join("x".join("?" if d is None else str(d) for d in s.dims) for s in spelled if s is not None and s.dims)


def shapes_kept_by(candidate: Candidate) -> str:
    """What keeps dimensions of a linalg-level candidate from shrinking ('' when nothing does)."""
    return "" if candidate.binary is not None else mlir_shapes.summaries(candidate.text)[1]  # a .pt2's too: its text is torch IR
