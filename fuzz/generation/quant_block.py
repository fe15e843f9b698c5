"""The quantization family: a QuantizeLinear (and, unless it ends the graph, its DequantizeLinear)."""

from __future__ import annotations

from fuzz.generation.graph import BlockOut, GraphBuilder, Value
from fuzz.generation.ranges import BASE_DIMS, MAX_ELEMS


def quant_block(g: GraphBuilder, given: Value | None, last: bool) -> BlockOut:
    """A quantize-dequantize pair on a fresh input of rank 1 to 4, or on the chained value `given`."""
    c = g.c
    if given is None:
        shape: list[int] = []
        cap = MAX_ELEMS
        for _ in range(c.pick((4, 2, 3, 1))):
            shape.append(g.dim(BASE_DIMS, cap))
            cap //= shape[-1]
        x = g.input("float32", tuple(shape), -4, 4)
    else:
        x = given
    axis = c.int(-len(x.shape), len(x.shape) - 1) if g.on("per_axis") else None
    q, s, z, scales, _ = g.quantize(x, axis, role="main", scale=None if given is None else g.act_scale(x.bound))
    if last and c.flag(0.3):
        return BlockOut(q, None, x, epilogues=False)
    return BlockOut(g.dequantize(q, s, z, scales, axis), None, x)
