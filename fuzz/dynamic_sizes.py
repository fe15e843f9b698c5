"""The sizes a dynamic dimension runs at: which awkward sizes the graph is valid and within budget at.

Apart from `fuzz/dynamic.py` (which values carry the symbol, a property of the spec alone, that
building a model needs): choosing sizes builds the model, so this module sits above `fuzz/build.py`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import onnx

from fuzz.build import build_model
from fuzz.dynamic import (
    AWKWARD_SIZES,
    CONVS,
    MAX_ELEMS_AT_SIZE,
    SYMBOLS,
    Infeasible,
    dynamic_roots,
    propagate,
)
from fuzz.spec import DynamicDim, GraphSpec


def make_dynamic(spec: GraphSpec, pick, budget_elems: int = MAX_ELEMS_AT_SIZE) -> GraphSpec | None:
    """The spec with one dimension made symbolic and 3-4 sizes to run at, or None when no
    dimension of its first block can be (`pick(options)` chooses, as the generator's chooser)."""
    roots = dynamic_roots(spec)
    if not roots:
        return None
    kind, name, axis = pick(roots)
    places = ((name, axis),)
    for _ in range(len(spec.inputs) + 1):  # add the inputs that must follow until none is missing
        try:
            _, missing = propagate(spec, places)
        except Infeasible:
            return None
        if not missing:
            break
        places = tuple(sorted(set(places) | missing))
    else:
        return None
    base = spec.shape_of(name)[axis]
    model = build_model(replace(spec, dynamic=DynamicDim(SYMBOLS[kind], places, (base,))))
    valid = [s for s in AWKWARD_SIZES if s != base and fits(model, SYMBOLS[kind], s, budget_elems)]
    if not valid:
        return None
    chosen: list[int] = []
    for group in ((1,), (2, 3, 5, 7, 13, 17, 31), (15, 17, 31, 33, 63, 65)):
        options = [s for s in valid if s in group and s not in chosen]
        if options:
            chosen.append(pick(options))
    return replace(spec, dynamic=DynamicDim(SYMBOLS[kind], places, (base, *chosen)))


def static_model_at(model: onnx.ModelProto, symbol: str, size: int) -> onnx.ModelProto:
    """The dynamic model with `symbol` fixed to `size` everywhere, every shape inferred again
    (strict: ValueError-like onnx errors where a size does not fit the graph)."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    graph = fixed.graph
    for value in (*graph.input, *graph.output):
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param") and dim.dim_param == symbol:
                dim.dim_value = size
    for value in graph.output:
        for dim in value.type.tensor_type.shape.dim:
            if not dim.HasField("dim_value"):
                dim.Clear()
    del graph.value_info[:]
    inferred = onnx.shape_inference.infer_shapes(fixed, check_type=True, strict_mode=True, data_prop=True)
    for out in inferred.graph.output:  # outputs declared from what inference found
        known = next((v for v in inferred.graph.value_info if v.name == out.name), None)
        if known is not None:
            out.type.CopyFrom(known.type)
    return inferred


def fits(model: onnx.ModelProto, symbol: str, size: int, budget_elems: int = MAX_ELEMS_AT_SIZE) -> bool:
    """Whether the graph is valid at `size` (every dim positive) and its tensors within budget."""
    try:
        fixed = static_model_at(model, symbol, size)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError, RuntimeError):
        return False
    shapes = {}
    for value in (*fixed.graph.input, *fixed.graph.value_info, *fixed.graph.output):
        dims = value.type.tensor_type.shape.dim
        if any(not d.HasField("dim_value") or d.dim_value <= 0 for d in dims):
            return False
        if math.prod(d.dim_value for d in dims) > budget_elems:
            return False
        shapes[value.name] = [d.dim_value for d in dims]
    return all(_window_fits(node, shapes) for node in fixed.graph.node if node.op_type in CONVS)


def _window_fits(node: onnx.NodeProto, shapes: dict[str, list[int]]) -> bool:
    """The conv's (dilated) kernel fits its padded input: ONNX shape inference divides with C's
    truncation and calls a window that does not fit one output element."""
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    x = shapes.get(node.input[0])
    kernel = attrs.get("kernel_shape")
    if x is None or kernel is None:
        return True
    rank = len(kernel)
    pads = attrs.get("pads", [0] * 2 * rank)
    dilations = attrs.get("dilations", [1] * rank)
    return all(x[2 + i] + pads[i] + pads[i + rank] >= (kernel[i] - 1) * dilations[i] + 1 for i in range(rank))
