"""The ONNX reference an IREE result is judged against: `onnx.reference`, read the way the spec reads.

One implementation for the fuzzer (which builds a model and compares every pipeline with it)
and the `reference-mismatch` oracle (which does the same for each candidate of a reduction).

`onnx.reference`'s QLinearConv and QLinearMatMul (onnx 1.23) add the output zero point *before*
rounding, so with an odd zero point every tie lands on the other neighbour; the QLinearMatMul spec
says y = saturate(round_half_even(x / y_scale) + y_zero_point), as QuantizeLinear does. IREE 3.13
follows the spec (measured on generated QLinearConv cases: every mismatch against the stock
reference was a tie, none against the spec formula). Its LRN sums squares over the wrong axis (see
`LRN`). `reference_outputs` therefore replaces those three kernels by spec-conforming ones unless
`stock=True`.

The graph also says how closely a result must match: the longest reduction (K of a matmul,
C*kh*kw of a conv) scales float tolerances, and a graph that requantizes may round 8-bit
results 1 LSB apart.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, shape_inference
from onnx.reference import ReferenceEvaluator
from onnx.reference.ops.op_conv import _conv_implementation
from onnx.reference.ops.op_lrn import LRN as _StockLRN
from onnx.reference.ops.op_qlinear_conv import QLinearConv as _StockQLinearConv
from onnx.reference.ops.op_qlinear_matmul import QLinearMatMul as _StockQLinearMatMul

from oracles import refusals
from oracles.data.arrays import (
    DYNAMIC,
    ArgType,
    array_file,
    inputs_for_signature,
    spelled_shape,
    write_array,
)

MATMULS = frozenset({"MatMul", "Gemm", "MatMulInteger", "QLinearMatMul"})
CONVS = frozenset({"Conv", "ConvInteger", "QLinearConv"})
# Ops whose 8-bit results come from rounding a scaled value: IREE may land 1 LSB from the reference.
REQUANTIZING = frozenset({"QuantizeLinear", "QLinearConv", "QLinearMatMul", "DynamicQuantizeLinear"})
# Where each quantized op takes its scales (input positions).
SCALE_INPUTS = {"QuantizeLinear": (1,), "DequantizeLinear": (1,), "QLinearConv": (1, 4, 6), "QLinearMatMul": (1, 4, 6)}


def _requantize(acc: np.ndarray, multiplier: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """saturate(round_half_even(acc * multiplier) + zero_point), the spec's order."""
    info = np.iinfo(zero_point.dtype)
    q = np.rint(acc * multiplier) + zero_point.astype(np.int64)
    return np.clip(q, info.min, info.max).astype(zero_point.dtype)


class QLinearConv(_StockQLinearConv):
    def _run(self, x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B=None,
             auto_pad=None, dilations=None, group=None, kernel_shape=None, pads=None, strides=None):  # fmt: skip
        per_channel = (-1,) + (1,) * (w.ndim - 1)
        wz = w_zero_point.astype(np.int32)
        W = w.astype(np.int32) - (wz.reshape(per_channel) if wz.size > 1 else wz)
        X = x.astype(np.int32) - x_zero_point.astype(np.int32)
        acc = _conv_implementation(
            X, W, B, auto_pad or self.auto_pad, dilations or self.dilations, group or self.group,
            kernel_shape or self.kernel_shape, pads or self.pads, strides or self.strides,
        ).astype(np.int32)  # fmt: skip
        ws = w_scale.reshape((1, -1) + (1,) * (x.ndim - 2)) if np.size(w_scale) > 1 else w_scale
        return (_requantize(acc, x_scale * ws / y_scale, y_zero_point),)


class QLinearMatMul(_StockQLinearMatMul):
    def _run(self, a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
        acc = np.matmul(a.astype(np.int32) - a_zero_point.astype(np.int32), b.astype(np.int32) - b_zero_point.astype(np.int32))
        return (_requantize(acc, a_scale * b_scale / y_scale, y_zero_point),)


class LRN(_StockLRN):
    """The spec's sum of squares over the `size` channels around each channel. onnx 1.23's loop
    runs over the batch instead (`for c in range(x.shape[0])`), so with one image every channel
    but the first comes out unnormalised: Inception v1's two LRNs then differ from IREE (which
    follows the spec) by up to 11% and would be named as the op that computes a wrong value."""

    def _run(self, x, alpha=None, beta=None, bias=None, size=None):
        before, after = (size - 1) // 2, math.ceil((size - 1) / 2) + 1
        squares = x**2
        square_sum = np.zeros_like(x)
        for c in range(x.shape[1]):
            square_sum[:, c] = np.sum(squares[:, max(0, c - before) : min(x.shape[1], c + after)], axis=1)
        return ((x / ((bias + (alpha / size) * square_sum) ** beta)).astype(x.dtype),)


# The kernels read the spec's way instead of onnx.reference's own (see the module docstring).
SPEC_KERNELS = [QLinearConv, QLinearMatMul, LRN]


def reference_outputs(
    model: onnx.ModelProto, inputs: dict[str, np.ndarray], *, stock: bool = False, strict: bool = False
) -> list[np.ndarray]:
    """`onnx.reference` outputs; QLinearConv/QLinearMatMul round, and LRN sums, as the spec says unless `stock`.

    `strict` accepts only answers a quantized model can mean: it raises FloatingPointError where
    the evaluation divides by zero or makes a NaN (numpy would cast the NaN to an arbitrary
    integer), and ValueError where a quantization scale is not a positive number. A reducer
    zeroes initializers and turns tensors into seeded inputs, and a zero scale is a different,
    degenerate computation than the one the original got wrong.
    """
    evaluator = ReferenceEvaluator(model) if stock else ReferenceEvaluator(model, new_ops=SPEC_KERNELS)
    if not strict:
        return [np.asarray(v) for v in evaluator.run(None, inputs)]
    with np.errstate(divide="raise", invalid="raise"):
        values = evaluator.run(None, inputs, intermediate=True)
    for node in model.graph.node:
        for position in SCALE_INPUTS.get(node.op_type, ()):
            name = node.input[position] if position < len(node.input) else ""
            scale = np.asarray(values.get(name, 1.0), dtype=np.float64)
            if name and not np.all(np.isfinite(scale) & (scale > 0)):
                raise ValueError(refusals.SCALE_NOT_POSITIVE.say(op=node.op_type, name=name, values=scale.reshape(-1)[:4].tolist()))
    return [np.asarray(values[output.name]) for output in model.graph.output]


# ---------------------------------------------------------------------------------------------
# Inputs


def _type_of(value: onnx.ValueInfoProto) -> ArgType:
    """(shape, numpy dtype) of a graph input, a dynamic dim (a `dim_param` or none) as DYNAMIC:
    the data it runs on says its size; ValueError for what cannot be fed."""
    tensor = value.type.tensor_type
    if not value.type.HasField("tensor_type"):
        raise ValueError(refusals.INPUT_NOT_TENSOR.say(name=value.name))
    if not tensor.HasField("shape"):
        raise ValueError(refusals.INPUT_NO_SHAPE.say(name=value.name))
    dims = [dim.dim_value if dim.HasField("dim_value") else DYNAMIC for dim in tensor.shape.dim]
    try:
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type))
    except (KeyError, TypeError, ValueError):
        raise ValueError(refusals.INPUT_ELEMENT_TYPE.say(name=value.name, element=tensor.elem_type)) from None
    return tuple(dims), dtype


def graph_inputs(model: onnx.ModelProto) -> list[tuple[str, ArgType]]:
    """The inputs a caller feeds (initializers listed as inputs have their value), in graph order."""
    initialized = {t.name for t in model.graph.initializer}
    return [(value.name, _type_of(value)) for value in model.graph.input if value.name not in initialized]


def dim_names(model: onnx.ModelProto) -> dict[tuple[str, int], str]:
    """The `dim_param` of each dynamic dim of the graph's inputs, by (input name, axis)."""
    return {(value.name, axis): dim.dim_param for value in model.graph.input
            for axis, dim in enumerate(value.type.tensor_type.shape.dim) if not dim.HasField("dim_value")}


def graph_outputs(model: onnx.ModelProto) -> list[tuple[str, ArgType | None]]:
    """The graph's outputs by name, with their type where it is static (None where not)."""
    typed: list[tuple[str, ArgType | None]] = []
    for value in model.graph.output:
        try:
            typed.append((value.name, _type_of(value)))
        except ValueError:
            typed.append((value.name, None))
    return typed


def intermediate_values(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every tensor the graph computes on `inputs` (spec rounding), by name: what a cut that
    turns one of them into a graph input feeds it, so the cut graph sees the original's values."""
    evaluator = ReferenceEvaluator(model, new_ops=SPEC_KERNELS)
    values = evaluator.run(None, inputs, intermediate=True)
    initialized = {t.name for t in model.graph.initializer}
    return {name: np.asarray(v) for name, v in values.items() if name and name not in initialized and isinstance(v, np.ndarray | np.generic)}


def seeded_inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    """Small-integer inputs by name, from the inputs' types (`inputs_for_signature`): exact in every
    float type, so the reference is exact and what differs comes from the compiler."""
    named = graph_inputs(model)
    params = dim_names(model)
    for name, (shape, _) in named:
        if shape is not None and DYNAMIC in shape:
            axis = shape.index(DYNAMIC)
            param = params.get((name, axis)) or f"{name}.{axis}"
            raise ValueError(refusals.INPUT_DYNAMIC.say(name=name, param=param, shape=spelled_shape(shape)))
    values = inputs_for_signature([arg for _, arg in named], seed)
    return {name: np.asarray(value) for (name, _), value in zip(named, values)}


# ---------------------------------------------------------------------------------------------
# Tolerance


def _static_shapes(model: onnx.ModelProto) -> dict[str, tuple[int, ...]]:
    try:
        model = shape_inference.infer_shapes(model)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError, RuntimeError):
        pass  # declared types and initializers are enough for a tolerance
    shapes: dict[str, tuple[int, ...]] = {t.name: tuple(t.dims) for t in model.graph.initializer}
    graph = model.graph
    for value in (*graph.input, *graph.value_info, *graph.output):
        dims = value.type.tensor_type.shape.dim
        if value.type.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            shapes.setdefault(value.name, tuple(d.dim_value for d in dims))
    return shapes


def _attribute(node: onnx.NodeProto, name: str, default: int) -> int:
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def reduction_length(model: onnx.ModelProto) -> int:
    """The longest reduction in the graph (K of a matmul, C/group*kh*kw of a conv), for tolerances."""
    shapes = _static_shapes(model)
    longest = 1
    for node in model.graph.node:
        if node.op_type in MATMULS and node.input:
            a = shapes.get(node.input[0], ())
            transposed = node.op_type == "Gemm" and _attribute(node, "transA", 0)
            k = a[0] if transposed and a else (a[-1] if a else 1)
            longest = max(longest, k)
        elif node.op_type in CONVS and len(node.input) > 1:
            weight = shapes.get(node.input[3 if node.op_type == "QLinearConv" else 1], ())
            longest = max(longest, math.prod(weight[1:]) if len(weight) > 1 else 1)
    return longest


def is_quantized(model: onnx.ModelProto) -> bool:
    """True when the graph requantizes somewhere: 8-bit results may then be 1 LSB apart."""
    return any(node.op_type in REQUANTIZING for node in model.graph.node)


def non_finite_output(outputs: list[np.ndarray]) -> int | None:
    """The index of the first float output holding NaN or Inf, or None."""
    for index, output in enumerate(outputs):
        if output.dtype.kind in "iub":
            continue
        with np.errstate(invalid="ignore"):
            if not np.all(np.isfinite(output.astype(np.float64))):
                return index
    return None


def write_inputs(model: onnx.ModelProto, seed: int, directory: Path) -> list[str]:
    """Writes arg<i> (the seeded inputs) and expected<j> (the reference's outputs); their names."""
    inputs = seeded_inputs(model, seed)
    try:
        expected = reference_outputs(model, inputs, strict=True)
    except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
        raise ValueError(refusals.REFERENCE_FAILS.say(error=" ".join(str(err).split()))) from None
    written = []
    for stem, values in (("arg", list(inputs.values())), ("expected", expected)):
        for i, value in enumerate(values):
            path = directory / array_file(np.asarray(value).dtype, f"{stem}{i}")
            write_array(np.asarray(value), path)
            written.append(path.name)
    return written
