"""The conv family: Conv in float32 or a half type, Conv between QDQ pairs, QLinearConv, ConvInteger."""

from __future__ import annotations

from fuzz.generation.geometry import ConvGeometry, conv_geometry
from fuzz.generation.graph import BlockOut, GraphBuilder, Value
from fuzz.generation.operands import (
    cast_back,
    contraction_input,
    dequantized_weight,
    fake_quantized,
    float_in,
    integer_activation,
    integer_contraction,
    qdq_weight_type,
    qlinear_contraction,
    requantizer,
)


def conv_block(g: GraphBuilder, kind: str, given: Value | None, last: bool, ftype: str = "float32") -> BlockOut:
    """A conv of `kind` (a `CONV_KINDS` feature) on a fresh input or the chained value `given`."""
    geo = conv_geometry(g, given.shape if given else None)
    attrs = geo.attrs(g)
    if kind == "conv":
        return _float_conv(g, geo, attrs, given, last, ftype)
    if kind == "qdq_conv":
        return _qdq_conv(g, geo, attrs, given)
    return _integer_conv(g, kind, geo, attrs, given, last)


def _with_bias(g: GraphBuilder, inputs: list[str], bound: float, dtype: str, channels: int) -> float:
    """Appends a bias to the conv's `inputs` when `bias` draws one: the bound with it."""
    if g.on("bias"):
        b, bmax = g.bias(dtype, (channels,))
        inputs.append(b)
        bound += bmax
    return bound


def _float_conv(g: GraphBuilder, geo: ConvGeometry, attrs: list[tuple], given: Value | None, last: bool, ftype: str) -> BlockOut:
    m = geo.w[0]
    x, ftype, rw = contraction_input(g, given, geo.x, ftype, geo.k)
    if ftype == "bfloat16":
        g.min_opset = max(g.min_opset, 22)  # Conv takes bfloat16 from opset 22
    w, wmax = g.float_weight(geo.w, ftype, rw)
    inputs = [x.name, w]
    bound = _with_bias(g, inputs, x.bound * wmax * geo.k, ftype, m)
    y = g.node("Conv", inputs, ftype, geo.out, bound, attrs)

    def sibling() -> Value:
        w2, wmax2 = g.float_weight(geo.w, ftype, rw)
        return g.node("Conv", [x.name, w2], ftype, geo.out, x.bound * wmax2 * geo.k, attrs, "sibling")

    return BlockOut(y, 1, x, sibling, len(inputs) == 3, finish=cast_back(g, ftype, last))


def _qdq_conv(g: GraphBuilder, geo: ConvGeometry, attrs: list[tuple], given: Value | None) -> BlockOut:
    m = geo.w[0]
    x = float_in(g, given, geo.x, 4)
    xd, sx = fake_quantized(g, x, 1 if g.on("per_axis") else None, given)
    wdt = qdq_weight_type(g)
    per_channel = g.on("per_axis")
    wd, wsc = dequantized_weight(g, wdt, geo.w, m if per_channel else None, 0 if per_channel else None)
    inputs = [xd.name, wd.name]
    bound = _with_bias(g, inputs, xd.bound * wd.bound * geo.k, "float32", m)
    y = g.node("Conv", inputs, "float32", geo.out, bound, attrs)
    return BlockOut(y, 1, x, None, len(inputs) == 3, finish=requantizer(g, sx, wsc, geo.k))


def _integer_conv(g: GraphBuilder, kind: str, geo: ConvGeometry, attrs: list[tuple], given: Value | None, last: bool) -> BlockOut:
    """qlinear_conv / conv_integer: integer activations, from a graph input or a QuantizeLinear."""
    m = geo.w[0]
    x = integer_activation(g, given, geo.x, geo.k)
    wdt = g.c.pick(("int8", "uint8"))
    # the reference broadcasts per-channel weight parameters for 2-D convs only
    per_channel = len(geo.out) == 4 and g.on("per_axis")
    n = m if per_channel else None
    w, wz, _ = g.int_weight(wdt, geo.w, n)
    if kind == "conv_integer":
        return integer_contraction(g, "ConvInteger", x, w, wz, geo.out, geo.k, attrs, 1, last)
    return qlinear_contraction(g, "QLinearConv", x, w, wz, n, geo.out, geo.k, attrs, 1, last, bias_channels=m)
