"""Turn a `GraphSpec` into an ONNX model, inputs, reference outputs and a one-line summary.

Reference exactness: graph inputs and weights are small integers (float tensors included),
quantization scales are powers of two, and the generator bounds every reduction so float32 sums
stay below 2**24; the reference is then exact whatever order a compiler sums in. Rounding is the
one place a compiler may legitimately be tested: QuantizeLinear in `onnx.reference` rounds halves
to even before adding the zero point (measured; the ONNX spec says so), and power-of-two scales
make ties common. The reference itself (`reference_outputs`, with spec rounding for QLinearConv
and QLinearMatMul) lives in oracles/onnx_reference.py, shared with the `reference-mismatch` oracle.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
from onnx import helper, numpy_helper

from fuzz.dynamic import NAMED, dynamic_axes
from fuzz.spec import Const, GraphSpec, Node
from oracles.onnx.reference import reference_outputs  # noqa: F401  (re-exported: the fuzzer's reference)

_T = onnx.TensorProto
_NP = {
    "float32": np.float32, "int8": np.int8, "uint8": np.uint8, "int32": np.int32, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16, "float8e4m3fn": ml_dtypes.float8_e4m3fn, "float8e5m2": ml_dtypes.float8_e5m2,
    "float8e4m3fnuz": ml_dtypes.float8_e4m3fnuz, "float8e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4,
}  # fmt: skip
NUMPY_DTYPES = _NP  # each spec dtype's numpy type (ml_dtypes for the narrow ones)
_ONNX = {
    "float32": _T.FLOAT, "int8": _T.INT8, "uint8": _T.UINT8, "int32": _T.INT32, "float16": _T.FLOAT16,
    "bfloat16": _T.BFLOAT16, "float8e4m3fn": _T.FLOAT8E4M3FN, "float8e5m2": _T.FLOAT8E5M2,
    "float8e4m3fnuz": _T.FLOAT8E4M3FNUZ, "float8e5m2fnuz": _T.FLOAT8E5M2FNUZ, "int4": _T.INT4, "uint4": _T.UINT4,
}  # fmt: skip
GRAPH_NAME = "main"  # the function name a module compiled from iree-import-onnx exports


def _ir_version(opset: int) -> int:
    """The IR version the ONNX release that introduced `opset` wrote (older readers accept it)."""
    return min(ir for _, ir, op, *_ in helper.VERSION_TABLE if op == opset)


def const_array(const: Const) -> np.ndarray:
    dtype = _NP[const.dtype]
    if const.fill == "values":
        return np.array(const.values, dtype=dtype).reshape(const.shape)
    if const.fill == "splat":
        return np.full(const.shape, const.values[0], dtype=dtype)
    if const.fill == "random":
        rng = np.random.default_rng(const.seed)
        return rng.integers(const.low, const.high, size=const.shape, endpoint=True).astype(dtype)
    raise ValueError(f"unknown fill {const.fill!r} for {const.name}")


def _attr(value):
    return list(value) if isinstance(value, tuple) else value


def build_model(spec: GraphSpec) -> onnx.ModelProto:
    """The model, every intermediate's type declared, so strict shape inference checks our shapes.

    With a dynamic dimension, the inputs that carry it declare its `dim_param`, values it passes
    through unchanged declare it too, and values whose size it changes (a conv's spatial output)
    declare that axis unknown."""
    axes = dynamic_axes(spec) if spec.dynamic is not None else {}

    def vi(name: str, dtype: str, shape: tuple[int, ...]) -> onnx.ValueInfoProto:
        marks = axes.get(name, {})
        dims = [(spec.dynamic.symbol if marks[i] == NAMED else None) if i in marks else d for i, d in enumerate(shape)]  # type: ignore[union-attr]
        return helper.make_tensor_value_info(name, _ONNX[dtype], dims)

    nodes = [helper.make_node(n.op, list(n.inputs), [n.output], name=n.output, **{k: _attr(v) for k, v in n.attrs}) for n in spec.nodes]
    by_name = {n.output: n for n in spec.nodes}
    graph = helper.make_graph(
        nodes,
        GRAPH_NAME,
        [vi(t.name, t.dtype, t.shape) for t in spec.inputs],
        [vi(o, by_name[o].dtype, by_name[o].shape) for o in spec.outputs],
        initializer=[numpy_helper.from_array(const_array(c), c.name) for c in spec.consts],
        value_info=[vi(n.output, n.dtype, n.shape) for n in spec.nodes if n.output not in spec.outputs],
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", spec.opset)],
        ir_version=_ir_version(spec.opset),
        producer_name="iree-reduce-fuzz",
    )


def validate(model: onnx.ModelProto) -> onnx.ModelProto:
    """Full checker plus strict shape inference (declared and inferred types must agree); returns
    the inferred model. Raises onnx's ValidationError / InferenceError."""
    onnx.checker.check_model(model, full_check=True)
    return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)


def make_inputs(spec: GraphSpec, seed: int, size: int | None = None) -> dict[str, np.ndarray]:
    """Integers uniform in each input's [low, high], as its dtype; deterministic in (spec, seed).

    `size`: the dynamic dimension's value (the inputs that carry it get it), else the spec's shapes."""
    carried = dict(spec.dynamic.places) if spec.dynamic is not None and size is not None else {}
    out = {}
    for i, t in enumerate(spec.inputs):
        shape = list(t.shape)
        if t.name in carried:
            shape[carried[t.name]] = size
        rng = np.random.default_rng([seed, i])
        out[t.name] = rng.integers(t.low, t.high, size=tuple(shape), endpoint=True).astype(_NP[t.dtype])
    return out


# ---- describe -------------------------------------------------------------------------------


def _shape(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


def _conv_text(spec: GraphSpec, n: Node) -> str:
    x_idx, w_idx = (0, 3) if n.op == "QLinearConv" else (0, 1)
    w = spec.shape_of(n.inputs[w_idx])
    rank = len(w) - 2
    name = {"Conv": "conv", "QLinearConv": "qlinearconv", "ConvInteger": "convinteger"}[n.op]
    parts = [f"{name}{rank}d"]
    producer = spec.producer(n.inputs[w_idx])
    if producer is not None and producer.op == "DequantizeLinear":
        parts[0] = "qdq-" + parts[0]
    group = n.attr("group", 1)
    if group != 1:
        parts.append("dw" if group == spec.shape_of(n.inputs[x_idx])[1] else f"g={group}")
    parts.append(f"k={_shape(w[2:])}")
    for key, label in (("strides", "s"), ("dilations", "d")):
        v = n.attr(key, ())
        if any(x != 1 for x in v):
            parts.append(f"{label}={v[0] if len(set(v)) == 1 else _shape(v)}")
    pads = n.attr("pads", ())
    if any(pads):
        parts.append(f"pads=({','.join(map(str, pads))})")
    parts.append(f"{_shape(spec.shape_of(n.inputs[x_idx]))}->{w[0]}")
    if n.op == "QLinearConv" and spec.shape_of(n.inputs[4]):
        parts.append("per-channel")
    const = spec.const(n.inputs[w_idx])
    if const is not None and const.fill == "splat":
        parts.append(f"w=splat({const.values[0]:g})")
    return " ".join(parts)


def _node_text(spec: GraphSpec, n: Node) -> str | None:
    if n.op in ("Conv", "QLinearConv", "ConvInteger"):
        text = _conv_text(spec, n)
    elif n.op in ("MatMul", "QLinearMatMul", "MatMulInteger"):
        b_idx = 3 if n.op == "QLinearMatMul" else 1
        producer = spec.producer(n.inputs[b_idx])
        prefix = "qdq-" if producer is not None and producer.op == "DequantizeLinear" else ""
        text = f"{prefix}{n.op.lower()} {_shape(spec.shape_of(n.inputs[0]))}@{_shape(spec.shape_of(n.inputs[b_idx]))}"
    elif n.op == "Gemm":
        flags = [k for k in ("transA", "transB") if n.attr(k, 0)] + [f"{k}={n.attr(k):g}" for k in ("alpha", "beta") if n.attr(k) is not None]
        c = f"+{_shape(spec.shape_of(n.inputs[2]))}" if len(n.inputs) > 2 else ""
        text = " ".join(["gemm", *flags, f"{_shape(spec.shape_of(n.inputs[0]))}@{_shape(spec.shape_of(n.inputs[1]))}{c}"])
    elif n.op in ("QuantizeLinear", "DequantizeLinear"):
        if spec.const(n.inputs[0]) is not None:
            return None  # a weight's dequantization: shown as qdq- on its consumer
        kind = "q" if n.op == "QuantizeLinear" else "dq"
        axis = f" axis={n.attr('axis')}" if n.attr("axis") is not None else ""
        dtype = n.dtype if kind == "q" else spec.dtype_of(n.inputs[0])
        text = f"{kind}({dtype}{axis})" + (f" {_shape(n.shape)}" if n.role == "main" else "")
    elif n.role == "clip" or n.role == "rescale" or n.role in ("bias", "relu"):
        text = n.role
    elif n.role == "add":
        other = spec.producer(n.inputs[1])
        text = "add(sibling)" if other is not None and other.role == "sibling" else "add"
    elif n.role == "sibling":
        return None
    else:
        text = n.op.lower()
    if n.output in spec.outputs and n.output != spec.outputs[-1]:
        text += " [out]"
    return text


def describe(spec: GraphSpec) -> str:
    """One line, e.g. 'conv2d g=4 k=3x3 s=2 pads=(0,1,1,0) 1x8x17x17->8 -> relu  [opset 21]'
    (with a dynamic dimension: '[opset 21, dynamic N at 1,7,33]', the first size the shapes shown)."""
    tokens = [t for t in (_node_text(spec, n) for n in spec.nodes) if t]
    dynamic = f", dynamic {spec.dynamic.symbol} at {','.join(map(str, spec.dynamic.sizes))}" if spec.dynamic is not None else ""
    return " -> ".join(tokens) + f"  [opset {spec.opset}{dynamic}]"
