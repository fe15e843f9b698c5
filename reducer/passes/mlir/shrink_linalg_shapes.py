"""Shrink tensor dimensions of linalg-on-tensors IR and of a standalone hal.executable.

Below ONNX and torch there is no graph to re-infer shapes on: the pass ties dimensions through
each op's shape rule (`reducer.shapes.mlir_shapes`), shrinks one free size (a class of tied
dims) at a time with the same search as the ONNX shape pass, and rewrites every dependent type,
constant, slice and function signature; a candidate that does not verify is none.
"""

from __future__ import annotations

from collections import OrderedDict

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.proposal import Proposal
from reducer.search.protocol import Convert, ShrinkPass
from reducer.shapes import mlir_shapes

_CACHED_TEXTS = 8


class ShrinkLinalgShapes(ShrinkPass):

    def __init__(self) -> None:
        self._targets: OrderedDict[str, list[tuple[str, int]]] = OrderedDict()

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        text = current.candidate.text
        if current.candidate.binary is not None:
            return []
        if text not in self._targets:
            try:
                module = irx.parse(text, ctx)
            except irx.ParseError:
                return []
            with ctx, ir.Location.unknown(ctx):
                self._targets[text] = [(t.key, t.size) for t in mlir_shapes.targets(module)]
            while len(self._targets) > _CACHED_TEXTS:
                self._targets.popitem(last=False)
        return self._targets[text]

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        if current.candidate.binary is not None or key not in dict(self.dimensions(current, ctx)):
            return None
        module = irx.parse(current.candidate.text, ctx)
        with ctx, ir.Location.unknown(ctx):
            if not mlir_shapes.resize(module, key, size):
                return None
        return Proposal(current.candidate.with_text(irx.to_text(module)), irx.count_ops(module))
