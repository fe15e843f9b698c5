"""The matmul family: MatMul in float32 or a half type, MatMul between QDQ pairs, QLinearMatMul,
MatMulInteger, and Gemm."""

from __future__ import annotations

from fuzz.generation.geometry import matmul_geometry, matmul_shape
from fuzz.generation.graph import BlockOut, GraphBuilder, Shape, Value
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
from fuzz.generation.ranges import BASE_DIMS, CHANNELS, MAX_ELEMS, MAX_K, MAX_MACS


def matmul_block(g: GraphBuilder, kind: str, given: Value | None, last: bool, ftype: str = "float32") -> BlockOut:
    """A matmul of `kind` (a matmul-family feature) on a fresh input or the chained value `given`."""
    if kind == "gemm":
        return _gemm_block(g, given, last, ftype)
    quantized = kind not in ("matmul", "batch_matmul")
    a_shape, b_shape = matmul_geometry(g, given.shape if given else None, kind == "batch_matmul" or given is not None, not quantized)
    out = matmul_shape(a_shape, b_shape)
    axis = None if len(out) == 0 else len(out) - 1
    if not quantized:
        return _float_matmul(g, given, a_shape, b_shape, out, axis, last, ftype)
    per_column = len(b_shape) >= 2 and g.on("per_axis")
    n = b_shape[-1] if per_column else None
    if kind == "qdq_matmul":
        return _qdq_matmul(g, given, a_shape, b_shape, out, axis, n)
    return _integer_matmul(g, kind, given, a_shape, b_shape, out, axis, n, last)


def _float_matmul(g: GraphBuilder, given: Value | None, a_shape: Shape, b_shape: Shape, out: Shape, axis: int | None,
                  last: bool, ftype: str) -> BlockOut:  # fmt: skip
    k = a_shape[-1]
    a, ftype, rw = contraction_input(g, given, a_shape, ftype, k)
    b, bmax = g.weight_or_input(b_shape, ftype, rw)
    y = g.node("MatMul", (a.name, b), ftype, out, a.bound * bmax * k)

    def sibling() -> Value:
        b2, bmax2 = g.float_weight(b_shape, ftype, rw)
        return g.node("MatMul", (a.name, b2), ftype, out, a.bound * bmax2 * k, (), "sibling")

    return BlockOut(y, axis, a, sibling if g.is_const(b) else None, finish=cast_back(g, ftype, last))


def _qdq_matmul(g: GraphBuilder, given: Value | None, a_shape: Shape, b_shape: Shape, out: Shape, axis: int | None,
                n: int | None) -> BlockOut:  # fmt: skip
    k = a_shape[-1]
    a = float_in(g, given, a_shape, 4)
    a_axis = g.c.pick(range(-len(a_shape), len(a_shape))) if g.on("per_axis") else None
    ad, sa = fake_quantized(g, a, a_axis, given)
    wd, wsc = dequantized_weight(g, qdq_weight_type(g), b_shape, n, -1 if n else None)
    y = g.node("MatMul", (ad.name, wd.name), "float32", out, ad.bound * wd.bound * k)
    return BlockOut(y, axis, a, None, finish=requantizer(g, sa, wsc, k))


def _integer_matmul(g: GraphBuilder, kind: str, given: Value | None, a_shape: Shape, b_shape: Shape, out: Shape,
                    axis: int | None, n: int | None, last: bool) -> BlockOut:  # fmt: skip
    """qlinear_matmul / matmul_integer: integer activations, from a graph input or a QuantizeLinear."""
    k = a_shape[-1]
    a = integer_activation(g, given, a_shape, k)
    w, wz, _ = g.int_weight(g.c.pick(("int8", "uint8")), b_shape, n)
    if kind == "matmul_integer":
        return integer_contraction(g, "MatMulInteger", a, w, wz, out, k, (), axis, last)
    return qlinear_contraction(g, "QLinearMatMul", a, w, wz, n, out, k, (), axis, last)


def _gemm_block(g: GraphBuilder, given: Value | None, last: bool = True, ftype: str = "float32") -> BlockOut:
    c = g.c
    trans_a, trans_b = g.on("transpose"), g.on("transpose")
    if given is not None:
        r0, r1 = given.shape
        m, k = (r1, r0) if trans_a else (r0, r1)
    else:
        m = g.dim(BASE_DIMS, MAX_ELEMS)
        k = g.dim(BASE_DIMS, min(MAX_K, MAX_ELEMS // m))
    cap = max(1, min(MAX_ELEMS // k, MAX_ELEMS // m, MAX_MACS // (m * k)))
    n = 1 if g.on("vector", 0.3) else g.dim(CHANNELS, cap, large=True)
    a, ftype, rw = contraction_input(g, given, (k, m) if trans_a else (m, k), ftype, k)
    b_shape = (n, k) if trans_b else (k, n)
    b, bmax = g.weight_or_input(b_shape, ftype, rw)
    alpha = c.pick((1.0, 0.5, 2.0)) if c.flag(0.3) else 1.0
    if ftype != "float32":
        alpha = min(alpha, 1.0)  # alpha 2 would double the exactness budget
    attrs: list[tuple] = []
    for key, on in (("transA", trans_a), ("transB", trans_b)):
        if on or c.flag(0.2):
            attrs.append((key, int(on)))
    if alpha != 1.0:
        attrs.append(("alpha", alpha))
    inputs = [a.name, b]
    bound = alpha * a.bound * bmax * k
    if g.on("bias"):
        shape = c.pick(((m, n), (n,), (1, n), (m, 1), (), (1, 1))) if "broadcast" in g.f else (m, n)
        bias, bb = g.bias(ftype, shape)
        beta = c.pick((1.0, 0.5, 2.0)) if c.flag(0.3) else 1.0
        if beta != 1.0:
            attrs.append(("beta", beta))
        inputs.append(bias)
        bound += beta * bb
    y = g.node("Gemm", inputs, ftype, (m, n), bound, attrs)

    def sibling() -> Value:
        b2, bmax2 = g.float_weight(b_shape, ftype, rw)
        return g.node("Gemm", [a.name, b2], ftype, (m, n), alpha * a.bound * bmax2 * k, [x for x in attrs if x[0] != "beta"], "sibling")

    return BlockOut(y, 1, a, sibling if g.is_const(b) else None, len(inputs) == 3, finish=cast_back(g, ftype, last))
