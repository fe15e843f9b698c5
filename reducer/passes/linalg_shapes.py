"""Shrink tensor dimensions of linalg-on-tensors IR and of a standalone hal.executable.

Below ONNX and torch there is no graph to re-infer shapes on: the pass ties dimensions through
each op's shape rule (`reducer.mlir_shapes`), shrinks one free size (a class of tied dims) at a
time with the same search as the ONNX shape pass, and rewrites every dependent type, constant,
slice and function signature; a candidate that does not verify is none.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from iree.compiler import ir

from reducer import ir as irx
from reducer import mlir_shapes
from reducer.passes.base import Proposal, ReductionPass

_CACHED_TEXTS = 8


class ShrinkLinalgShapes(ReductionPass):
    name = "shrink-linalg-shapes"
    description = "shrink tied dimensions of linalg / tensor IR and hal.executables: 1, 2, divisions, then bisect; types follow"
    search = "shrink"

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

    def count(self, current: Proposal, ctx: ir.Context) -> int:
        return len(self.dimensions(current, ctx))

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        return None  # sizes are searched through `resize`, not chunks

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context) -> Proposal | None:
        if current.candidate.binary is not None or key not in dict(self.dimensions(current, ctx)):
            return None
        module = irx.parse(current.candidate.text, ctx)
        with ctx, ir.Location.unknown(ctx):
            if not mlir_shapes.resize(module, key, size):
                return None
        return Proposal(current.candidate.with_text(irx.to_text(module)), irx.count_ops(module))
