"""Shrink dimensions of torch-onnx IR on its lifted ONNX graph, then import it again."""

from __future__ import annotations

import onnx
from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.formats import onnx_model
from reducer.passes.base import Convert, Proposal
from reducer.passes.shape_search import ShrinkShapes, lifted_model


class ShrinkTorchOnnxShapes(ShrinkShapes):

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        if current.candidate.binary is not None or '"onnx.' not in current.candidate.text:
            return None
        lifted = lifted_model(current.candidate.text)
        if lifted is None:
            return None
        copy = onnx.ModelProto()
        copy.CopyFrom(lifted)
        return copy

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context, convert: Convert) -> Proposal | None:
        text = convert(onnx_model.serialise(model))  # under the oracle's limits, counted by the problem
        if text is None:
            return None
        if irx.holds_resources(text):  # the importer writes weights as blobs: named by this text alone
            ctx = irx.new_context(lazy=True)
        try:
            module = irx.parse(text, ctx)
        except irx.ParseError:
            return None
        return Proposal(current.candidate.with_text(irx.to_text(module)), irx.count_ops(module))
