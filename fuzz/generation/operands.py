"""What the block families share: their inputs in each precision, weights, and their finishes.

A float block may run in a half type when a range keeps its sums exact there; a quantized block
takes integer activations from a graph input or a QuantizeLinear. A finish runs after the
epilogues: back to float32, or an integer accumulator dequantized, or a float result requantized.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fuzz.generation.graph import BlockOut, GraphBuilder, Shape, Value
from fuzz.generation.ranges import ACT_ZP, HALF_EXACT


def pow2_near(x: float) -> float:
    return 2.0 ** max(-4, min(12, round(math.log2(max(x, 1e-3)))))


def float_in(g: GraphBuilder, given: Value | None, shape: Shape, r: int = 2) -> Value:
    return given if given is not None else g.input("float32", shape, -r, r)


def half_ranges(ftype: str, k: int, given: Value | None) -> tuple[int, int] | None:
    """(input range, weight range) that keep a half-precision contraction exact, or None.

    Every partial sum must stay an integer the type holds exactly, with room left for a bias and
    a residual or sibling add. A chained input, clipped to the range, may hold multiples of 1/16
    (dequantized values): that costs four more bits."""
    limit = (HALF_EXACT[ftype] - 4) // 2
    grain = 16 if given is not None else 1
    return next(((rx, rw) for rx, rw in ((2, 2), (2, 1), (1, 1)) if rx * rw * k * grain <= limit), None)


def half_in(g: GraphBuilder, given: Value | None, shape: Shape, ftype: str, r: int) -> Value:
    """The block's input in `ftype`: a graph input, or the chained value clipped to +-r and cast."""
    if given is None:
        return g.input_as(ftype, shape, -r, r)
    if given.bound > r:
        lo, hi = g.scalar("float32", -r), g.scalar("float32", r)
        given = g.node("Clip", (given.name, lo, hi), "float32", given.shape, float(r), (), "rescale")
    return g.cast(given, ftype)


def contraction_input(g: GraphBuilder, given: Value | None, shape: Shape, ftype: str, k: int) -> tuple[Value, str, int | None]:
    """(input, element type, weight range) of a float contraction over `k` terms: in `ftype` when a
    half range keeps it exact, else in float32 (weight range None: the weight's own default)."""
    ranges = half_ranges(ftype, k, given) if ftype != "float32" else None
    if ranges is None:
        return float_in(g, given, shape), "float32", None
    return half_in(g, given, shape, ftype, ranges[0]), ftype, ranges[1]


def cast_back(g: GraphBuilder, ftype: str, last: bool) -> Callable[[Value], Value] | None:
    """The finish of a half-precision block: back to float32 (a last f16 value may stay f16)."""
    if ftype == "float32":
        return None

    def finish(v: Value) -> Value:
        if ftype == "float16" and last and g.c.flag(0.4):
            return v
        return g.cast(v, "float32")

    return finish


# ---- quantize-dequantize blocks -------------------------------------------------------------


def qdq_weight_type(g: GraphBuilder) -> str:
    """A dequantized weight's storage type: 8-bit, or with `int4` a 4-bit one (opset 21+)."""
    if g.on("int4"):
        g.min_opset = max(g.min_opset, 21)
        return g.c.pick(("int4", "uint4"))
    return g.c.pick(("int8", "uint8"))


def fake_quantized(g: GraphBuilder, x: Value, axis: int | None, given: Value | None) -> tuple[Value, list[float]]:
    """(x through QuantizeLinear and DequantizeLinear, its scales); a chained `x` is scaled to its bound."""
    q, s, z, scales, _ = g.quantize(x, axis, scale=None if given is None else g.act_scale(x.bound))
    return g.dequantize(q, s, z, scales, axis, 16.0 if given is None else 255.0), scales


def dequantized_weight(g: GraphBuilder, dtype: str, shape: Shape, n: int | None, axis: int | None) -> tuple[Value, list[float]]:
    """(an integer weight through DequantizeLinear, its scales): per-axis along `axis` with `n` set."""
    w, wz, _ = g.int_weight(dtype, shape, n)
    ws, wsc = g.scales(n)
    return g.dequantize(Value(w, dtype, shape, 0.0), ws, wz, wsc, axis, 16.0), wsc


def requantize(g: GraphBuilder, v: Value, typical: float) -> Value:
    s = pow2_near(typical / 32) * g.c.pick((1.0, 0.5, 2.0))
    q, qs, qz, _, _ = g.quantize(v, None, scale=s)
    return g.dequantize(q, qs, qz, [s])


def requantizer(g: GraphBuilder, x_scales: Sequence[float], w_scales: Sequence[float], k: int) -> Callable[[Value], Value]:
    """The finish of a QDQ block: its float result quantized again at a scale its typical size suits."""
    typical = max(x_scales) * max(w_scales) * 8 * 8 * math.sqrt(k)
    return lambda v: requantize(g, v, typical)


# ---- integer blocks (QLinear*, *Integer) ----------------------------------------------------


@dataclass
class QuantizedInput:
    value: Value  # bound: the largest distance from the zero point
    scale: str
    zero_point: str
    scales: list[float]
    zero_points: list[int]


def integer_activation(g: GraphBuilder, given: Value | None, shape: Shape, k: int) -> QuantizedInput:
    """8-bit activations: a float input (or the chained value) quantized, or an integer graph input."""
    xdt = g.activation_type(("uint8", "int8"))
    if given is not None or g.c.flag(0.3):
        x = float_in(g, given, shape, 4)
        xq, xs, xz, xsc, xzp = g.quantize(x, None, scale=g.act_scale(x.bound), dtype=xdt)
        return QuantizedInput(Value(xq.name, xdt, xq.shape, 255.0), xs, xz, xsc, xzp)
    xs, xsc = g.scales(None)
    xz, xzp = g.zero_points(xdt, None, ACT_ZP[xdt])
    return QuantizedInput(g.int_input(xdt, shape, xzp[0], k), xs, xz, xsc, xzp)


def int32_dequantizer(g: GraphBuilder, last: bool, scale: float) -> Callable[[Value], Value]:
    """The finish of an integer conv / matmul: its int32 accumulator dequantized (a last node may stay int32)."""

    def finish(v: Value) -> Value:
        if last and g.c.flag(0.3):
            return v
        s = g.scalar("float32", pow2_near(scale))
        return g.dequantize(v, s, None, [pow2_near(scale)], None, v.bound)

    return finish


def integer_contraction(g: GraphBuilder, op: str, x: QuantizedInput, w: str, wz: str, shape: Shape, k: int,
                        attrs: Sequence[tuple], channel_axis: int | None, last: bool) -> BlockOut:  # fmt: skip
    """ConvInteger / MatMulInteger: an int32 accumulator; a zero activation zero point may be omitted."""
    keep_zero_point = g.c.flag(0.8) or x.zero_points[0] != 0
    inputs = [x.value.name, w, x.zero_point if keep_zero_point else "", wz]
    y = g.node(op, inputs, "int32", shape, x.value.bound * 16 * k, attrs)
    return BlockOut(y, channel_axis, x.value, None, False, finish=int32_dequantizer(g, last, max(x.scales) / 16))


def qlinear_contraction(g: GraphBuilder, op: str, x: QuantizedInput, w: str, wz: str, n: int | None, shape: Shape,
                        k: int, attrs: Sequence[tuple], channel_axis: int | None, last: bool,
                        bias_channels: int | None = None) -> BlockOut:  # fmt: skip
    """QLinearConv / QLinearMatMul: an 8-bit output at a scale its typical size suits, dequantized
    unless it is the last node; `bias_channels`, an int32 bias may be drawn (QLinearConv only)."""
    c = g.c
    ws, wsc = g.scales(n)
    ydt = g.activation_type(("uint8", "int8"))
    sy = pow2_near(max(x.scales) * max(wsc) * 8 * 8 * math.sqrt(k) / 32) * c.pick((1.0, 0.5, 2.0))
    ys, yz = g.scalar("float32", sy), g.scalar(ydt, c.pick(ACT_ZP[ydt]))
    inputs = [x.value.name, x.scale, x.zero_point, w, ws, wz, ys, yz]
    if bias_channels is not None and g.on("bias"):
        inputs.append(g.random_const("int32", (bias_channels,), -64, 64, "b"))
    y = g.node(op, inputs, ydt, shape, 255.0, attrs)
    if last and c.flag(0.3):
        return BlockOut(y, channel_axis, x.value, None, len(inputs) == 9, epilogues=False)
    return BlockOut(g.dequantize(y, ys, yz, [sy]), channel_axis, x.value, None, len(inputs) == 9)

