"""Shrink each tensor dimension of an ONNX model; shapes re-inferred."""

from __future__ import annotations

import onnx
from iree.compiler import ir

from reducer.graphs import onnx_model
from reducer.proposal import Proposal
from reducer.search.protocol import Convert
from reducer.shapes.shape_search import ShrinkShapes


class ShrinkOnnxShapes(ShrinkShapes):

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        data = current.candidate.binary
        return onnx_model.parsed_copy(data) if data is not None else None

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context, convert: Convert) -> Proposal | None:
        data = onnx_model.serialise(model)
        candidate = current.candidate.with_binary(onnx_model.describe(model), data)
        return Proposal(candidate, onnx_model.node_count(model))
