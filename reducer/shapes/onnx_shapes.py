"""Tensor dimensions of an ONNX model, and resizing one while every dependent shape stays consistent.

A dimension target is a set of (tensor, axis) places among graph inputs, initializers and
Constant values that change together: first every place holding the same size (so a conv's input
channels and its weight's in-channels move as one), then each place alone. Shape inference
recomputes every intermediate type; attribute fix-ups keep kernel sizes, pads and depthwise
group counts consistent with the new weights. A resize the checker or strict inference rejects
is no candidate, nor one that adds a degenerate tensor (`reducer.shapes.degenerate`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

from reducer.graphs import onnx_model
from reducer.graphs.onnx_model import CONV_OPERANDS, OnnxLoadError
from reducer.shapes import degenerate

Place = tuple[str, int]  # (tensor name, axis)
DYNAMIC = -1  # a graph input's dynamic dim (a dim_param): the data it runs on says its size, no shape pass moves it


@dataclass(frozen=True)
class Dimension:
    key: str  # stable across resizes of other dimensions
    places: tuple[Place, ...]
    value: int


def _is_shape_data(tensor: onnx.TensorProto) -> bool:
    """1-D int64 tensors are shapes, axes, pads or indices: resizing them changes meaning."""
    return tensor.data_type == onnx.TensorProto.INT64 and len(tensor.dims) <= 1


def _constant_tensors(model: onnx.ModelProto) -> dict[str, onnx.TensorProto]:
    found = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value" and attr.type == onnx.AttributeProto.TENSOR:
                    found[node.output[0]] = attr.t
    return found


# Operand slots that hold indices, shapes, axes, pads or counts (op type -> input positions):
# a graph input fed into one keeps its size, and so its values (cutting them changes meaning).
_INDEX_SLOTS = {
    "Gather": (1,), "GatherElements": (1,), "GatherND": (1,), "ScatterElements": (1,), "ScatterND": (1,),
    "Reshape": (1,), "Expand": (1,), "Tile": (1,), "Slice": (1, 2, 3, 4), "Pad": (1, 3), "Resize": (1, 2, 3),
    "TopK": (1,), "OneHot": (0, 1), "Unsqueeze": (1,), "Squeeze": (1,), "Split": (1,), "CumSum": (1,),
    "ConstantOfShape": (0,), "Range": (0, 1, 2), "ReduceSum": (1,), "ReduceMean": (1,), "ReduceMax": (1,),
    "ReduceMin": (1,), "ReduceProd": (1,),
}


def index_inputs(model: onnx.ModelProto) -> set[str]:
    """Tensors the graph uses as indices, shapes, axes or counts."""
    return {node.input[slot] for node in model.graph.node
            for slot in _INDEX_SLOTS.get(node.op_type, ()) if slot < len(node.input) and node.input[slot]}


def _input_shapes(model: onnx.ModelProto) -> dict[str, list[int]]:
    """The graph inputs' shapes, a dynamic dim as DYNAMIC (its static dims shrink like any)."""
    constants = _constant_tensors(model)
    indices = index_inputs(model)
    shapes = {}
    for value in model.graph.input:
        if value.name in constants or value.name in indices or not value.type.tensor_type.HasField("shape"):
            continue
        shapes[value.name] = [d.dim_value if d.HasField("dim_value") else DYNAMIC for d in value.type.tensor_type.shape.dim]
    return shapes


def places(model: onnx.ModelProto) -> dict[Place, int]:
    """Every resizable (tensor, axis) with its current size, in a stable order."""
    found: dict[Place, int] = {}
    for name, dims in _input_shapes(model).items():
        for axis, size in enumerate(dims):
            if size != DYNAMIC:
                found[(name, axis)] = size
    indices = index_inputs(model)
    for name, tensor in _constant_tensors(model).items():
        if not _is_shape_data(tensor) and name not in indices:
            for axis, size in enumerate(tensor.dims):
                found[(name, axis)] = size
    return found


def dimensions(model: onnx.ModelProto) -> list[Dimension]:
    """Value classes first (all places of one size move together), then single places."""
    sizes = places(model)
    by_value: dict[int, list[Place]] = {}
    for place, size in sizes.items():
        if size > 1:
            by_value.setdefault(size, []).append(place)
    # A class is named by its first place, not its size: once it shrinks (or merges with another
    # class at the same size) the search knows it as the one it settled, and only rechecks it.
    result = [Dimension(f"size class of {members[0][0]}[{members[0][1]}]", tuple(members), size) for size, members in by_value.items()]
    result.sort(key=lambda d: -d.value)  # the largest sizes first: they shrink the most
    for place, size in sizes.items():
        if size > 1 and len(by_value[size]) > 1:
            result.append(Dimension(f"{place[0]}[{place[1]}]", (place,), size))
    return result


def _sliced(tensor: onnx.TensorProto, axis: int, size: int) -> onnx.TensorProto:
    array = numpy_helper.to_array(tensor)
    index = [slice(None)] * array.ndim
    index[axis] = slice(0, size)
    return numpy_helper.from_array(np.ascontiguousarray(array[tuple(index)]), tensor.name)


def resize(model: onnx.ModelProto, dimension: Dimension, size: int) -> onnx.ModelProto | None:
    """A copy with every place of `dimension` set to `size`, fixed up and checked; None if invalid."""
    edited = onnx.ModelProto()
    edited.CopyFrom(model)
    graph = edited.graph
    targets = set(dimension.places)
    for value in graph.input:
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if (value.name, axis) in targets:
                dim.dim_value = size
    for i, tensor in enumerate(graph.initializer):
        for axis in range(len(tensor.dims)):
            if (tensor.name, axis) in targets:
                graph.initializer[i].CopyFrom(_sliced(graph.initializer[i], axis, size))
    for node in graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value" and attr.type == onnx.AttributeProto.TENSOR:
                    for axis in range(len(attr.t.dims)):
                        if (node.output[0], axis) in targets:
                            attr.t.CopyFrom(_sliced(attr.t, axis, size))
                    attr.t.name = ""
    _fix_convolutions(edited, dimension.value, size, targets)

    def consistent(inferred: onnx.ModelProto) -> bool:
        # a zero-sized tensor or a window past its input the model did not have is no candidate either
        return (not onnx_model.channel_mismatch(inferred) and _per_channel_consistent(inferred, model)
                and degenerate.onnx_sites(inferred) <= degenerate.onnx_model_sites(model))

    return reinferred(edited, consistent)


def reinferred(edited: onnx.ModelProto, accept=lambda inferred: True) -> onnx.ModelProto | None:
    """`edited` (its inputs or weights changed in place) with every intermediate and output type
    recomputed by strict shape inference, not carried over; None when inference, `accept` (of the
    inferred model) or the checker rejects it, or an output's shape cannot be told (the importer
    needs it)."""
    del edited.graph.value_info[:]
    for value in edited.graph.output:
        value.type.tensor_type.ClearField("shape")
    try:
        inferred = shape_inference.infer_shapes(edited, check_type=True, strict_mode=True, data_prop=True)
    except Exception:  # noqa: BLE001  (InferenceError and friends: the edit does not fit)
        return None
    if not accept(inferred):
        return None
    types = {v.name: v.type for v in inferred.graph.output}
    for value in edited.graph.output:
        if value.name not in types or not types[value.name].tensor_type.HasField("shape"):
            return None
        value.type.CopyFrom(types[value.name])
    try:
        onnx_model.check(edited)
    except OnnxLoadError:
        return None
    return edited


def _fix_convolutions(model: onnx.ModelProto, old: int, new: int, targets: set[Place]) -> None:
    """Kernel shapes follow the weights, pads stay below the kernel, depthwise groups follow channels."""
    constants = _constant_tensors(model)
    shapes = {**_input_shapes(model), **{name: list(t.dims) for name, t in constants.items()}}
    for node in model.graph.node:
        if node.op_type not in CONV_OPERANDS:
            continue
        data_at, weight_at = CONV_OPERANDS[node.op_type]
        weight = shapes.get(node.input[weight_at])
        attrs = {a.name: a for a in node.attribute}
        if weight is not None and "kernel_shape" in attrs:
            kernel = weight[2:]
            attrs["kernel_shape"].ints[:] = kernel
            if "pads" in attrs and len(attrs["pads"].ints) == 2 * len(kernel):
                rank = len(kernel)
                attrs["pads"].ints[:] = [min(p, kernel[i % rank] - 1) for i, p in enumerate(attrs["pads"].ints)]
        data = node.input[data_at]
        if "group" in attrs and attrs["group"].i == old and (data, 1) in targets:
            attrs["group"].CopyFrom(helper.make_attribute("group", new))  # depthwise stays depthwise


# op -> (parameter input, the input it describes, that input's axis or None for the op's `axis`):
# a 1-D parameter of more than one element has one entry per slice along that axis.
_PER_CHANNEL: dict[str, tuple[tuple[int, int, int | None], ...]] = {
    "Conv": ((2, 1, 0),),
    "ConvInteger": ((3, 1, 0),),
    "QLinearConv": ((4, 3, 0), (5, 3, 0), (8, 3, 0)),
    "MatMulInteger": ((2, 0, -2), (3, 1, -1)),
    "QLinearMatMul": ((1, 0, -2), (2, 0, -2), (4, 3, -1), (5, 3, -1)),
    "QuantizeLinear": ((1, 0, None), (2, 0, None)),
    "DequantizeLinear": ((1, 0, None), (2, 0, None)),
}


def _per_channel_consistent(inferred: onnx.ModelProto, before: onnx.ModelProto) -> bool:
    """Per-channel scales, zero points and biases keep one entry per channel.

    ONNX shape inference does not check them, and a model whose weight lost channels its zero
    points kept is a different, invalid program: the reduction must not drift onto it. A
    one-entry parameter is per-tensor, unless it had more entries `before` the resize: cut to one
    alone, it no longer matches its channels (the importer rejects a 1-entry conv bias or
    per-axis scale beside 32 channels; measured: 3 wasted compiles on the README's example).
    """
    known = _param_dims(inferred)
    had = _param_dims(before)
    for node in inferred.graph.node:
        attrs = {a.name: a for a in node.attribute}
        if "block_size" in attrs:
            continue  # blocked quantization: its own shape rule, checked by the op schema
        for param, described, axis in _PER_CHANNEL.get(node.op_type, ()):
            if param >= len(node.input) or not node.input[param] or described >= len(node.input):
                continue
            values, shape = known.get(node.input[param], []), known.get(node.input[described], [])
            per_tensor = values == [1] and had.get(node.input[param], [1]) in ([1], [])
            if len(values) != 1 or per_tensor or not shape:
                continue
            where = axis if axis is not None else (attrs["axis"].i if "axis" in attrs else 1)
            if not -len(shape) <= where < len(shape) or shape[where] not in (values[0], -1):
                return False
    return True


def _param_dims(model: onnx.ModelProto) -> dict[str, list[int]]:
    """The dims of every graph input, intermediate and constant, by name."""
    known = {v.name: _dims(v.type.tensor_type) for v in [*model.graph.input, *model.graph.value_info]}
    known.update({name: list(t.dims) for name, t in _constant_tensors(model).items()})
    return known


def _dims(tensor_type) -> list[int]:
    if tensor_type is None or not tensor_type.HasField("shape"):
        return []
    return [d.dim_value if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim]


def shape_summary(model: onnx.ModelProto, named: bool = True) -> str:
    """'x: 1x32x16x16, w: 64x32x1x1' for the graph inputs and non-shape constants.

    `named=False` leaves the names out where they carry no meaning (a lifted function's are
    positional, so the same name before and after reduction may be another tensor).
    """
    params = {value.name: [d.dim_param if d.dim_param and "x" not in d.dim_param else "?" for d in value.type.tensor_type.shape.dim]
              for value in model.graph.input}
    shapes = [(name, [params[name][axis] if d == DYNAMIC else d for axis, d in enumerate(dims)])
              for name, dims in _input_shapes(model).items()]
    shapes += [(name, t.dims) for name, t in _constant_tensors(model).items() if not _is_shape_data(t) and len(t.dims)]
    return ", ".join((f"{name}: " if named else "") + "x".join(map(str, dims)) for name, dims in shapes)
