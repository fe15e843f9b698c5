"""Degenerate tensors a shape reduction must not create.

A zero-sized dimension, or a window op (conv, pool) whose padded input is smaller than its
dilated kernel, may keep the failure, but a compiler engineer dismisses such a repro as invalid
input. Shape passes compare the sites of a candidate with those of what it was made from: a
candidate may keep a degenerate site the original had, never add one.
"""

from __future__ import annotations

import onnx
from iree.compiler import ir
from onnx import shape_inference

from oracles import Candidate
from oracles.mlir import ir as irx
from oracles.mlir.types import read_tensor_type
from oracles.onnx.lift import NotLiftable, lift
from reducer.graphs import onnx_model
from reducer.graphs.onnx_model import OnnxLoadError

_WINDOW_OPS = {"Conv": 1, "ConvInteger": 1, "QLinearConv": 3, "MaxPool": None, "AveragePool": None, "LpPool": None}


def _dims(value: onnx.ValueInfoProto) -> list[int] | None:
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]


def onnx_sites(inferred: onnx.ModelProto) -> set[str]:
    """Degenerate sites of a shape-inferred model: zero-sized tensors and windows past their input.

    A site names a place (tensor, node and axis), not sizes: the same site before and after a
    resize is one site.
    """
    graph = inferred.graph
    shapes: dict[str, list[int]] = {}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        dims = _dims(value)
        if dims is not None:
            shapes[value.name] = dims
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    sites = {f"{name}: a zero-sized dim" for name, dims in shapes.items() if 0 in dims}
    for index, node in enumerate(graph.node):
        if node.op_type in _WINDOW_OPS:
            sites.update(_window_sites(index, node, shapes))
    return sites


def _window_sites(index: int, node: onnx.NodeProto, shapes: dict[str, list[int]]) -> set[str]:
    attrs = {a.name: a for a in node.attribute}
    if "auto_pad" in attrs and attrs["auto_pad"].s.decode() not in ("NOTSET", ""):
        return set()  # SAME pads up to the kernel; VALID windows are checked by inference
    data = shapes.get(node.input[0])
    weight_input = _WINDOW_OPS[node.op_type]
    if "kernel_shape" in attrs:
        kernel = list(attrs["kernel_shape"].ints)
    elif weight_input is not None and weight_input < len(node.input) and node.input[weight_input] in shapes:
        kernel = shapes[node.input[weight_input]][2:]
    else:
        return set()
    if data is None or len(data) != len(kernel) + 2:
        return set()
    rank = len(kernel)
    pads = list(attrs["pads"].ints) if "pads" in attrs else [0] * (2 * rank)
    dilations = list(attrs["dilations"].ints) if "dilations" in attrs else [1] * rank
    sites = set()
    for axis, (size, k) in enumerate(zip(data[2:], kernel)):
        padded, window = size + pads[axis] + pads[axis + rank], (k - 1) * dilations[axis] + 1
        if 0 <= size and padded < window:
            sites.add(f"{node.op_type} node {index} ({node.name or node.output[0]}): padded input below its dilated kernel on axis {axis + 2}")
    return sites


def onnx_model_sites(model: onnx.ModelProto) -> set[str]:
    """Degenerate sites of a model as it is (shapes inferred here; none if inference fails)."""
    try:
        return onnx_sites(shape_inference.infer_shapes(model, data_prop=True))
    except Exception:  # noqa: BLE001  (InferenceError and friends: nothing to compare with)
        return set()


def mlir_sites(module: ir.Module) -> set[str]:
    """Zero-sized dims of every op result and block argument (builtin or torch tensors).

    Linalg's verifier already holds a convolution's or pool's input at or above its dilated
    window for non-empty outputs, so the zero check covers windows too.
    """
    sites = set()
    for index, op in enumerate(irx.walk_ops(module.operation)):
        arguments = [arg for region in op.regions for block in region.blocks for arg in block.arguments]
        for value in [*arguments, *op.results]:
            spelled = read_tensor_type(str(value.type))
            if spelled is not None and spelled.dims is not None and 0 in spelled.dims:
                sites.add(f"{op.name} #{index}: a zero-sized dim")
    return sites


def candidate_sites(candidate: Candidate, ctx: ir.Context) -> set[str]:
    """Degenerate sites of a reduction result: ONNX model, torch-onnx MLIR (lifted too) or other MLIR."""
    if candidate.binary is not None:
        try:
            return onnx_sites(onnx_model.inferred(candidate.binary))
        except OnnxLoadError:
            return onnx_model_sites(onnx_model.parse(candidate.binary))
    sites = mlir_sites(irx.parse(candidate.text, ctx))
    if '"onnx.' in candidate.text:
        try:
            sites |= onnx_model_sites(lift(candidate.text))
        except NotLiftable:
            pass
    return sites
