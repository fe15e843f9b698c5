"""ONNX models as the reducer holds them: serialised bytes in, a validated ModelProto out, bytes back.

An ONNX candidate is its serialised model (`Candidate.binary`). Every edit is validated the way
an invalid edit would otherwise surface, as an import failure: the full checker and strict shape
inference. Inference with data propagation also gives every intermediate tensor its type, which
the graph passes need when a tensor becomes a graph input or output.
"""

from __future__ import annotations

import functools
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError
from onnx import shape_inference
from onnx.external_data_helper import uses_external_data

from oracles.candidate import CandidateRejected

# What the checker and shape inference raise for a bad model (ValueError: over 2 GB).
_INVALID = (onnx.checker.ValidationError, shape_inference.InferenceError, onnx.defs.SchemaError, ValueError, RuntimeError)


class OnnxLoadError(ValueError, CandidateRejected):
    """An input that is not a valid ONNX model; `str()` is one line (the checker's message). An
    edit's model the checker rejects is a rejected candidate (oracles/candidate.py)."""


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def parse(data: bytes) -> onnx.ModelProto:
    """The ModelProto in `data`, unchecked; OnnxLoadError when the bytes are no protobuf."""
    try:
        return onnx.load_model_from_string(data)
    except (DecodeError, ValueError, RuntimeError) as err:
        raise OnnxLoadError(f"cannot parse the protobuf: {_one_line(err)}") from None


def check(model: onnx.ModelProto) -> onnx.ModelProto:
    """Full checker plus strict shape inference, and what they leave out; returns the inferred model
    (types in value_info).

    Raises OnnxLoadError with the checker's (or inference's) message on one line.
    """
    try:
        onnx.checker.check_model(model, full_check=True)  # includes strict, type-checking inference
    except _INVALID as err:
        raise OnnxLoadError(_one_line(err) or type(err).__name__) from None
    try:
        # The importer infers with data propagation: the types it sees (static Reshape outputs, ...).
        inferred_model = shape_inference.infer_shapes(model, data_prop=True)
    except _INVALID:
        inferred_model = shape_inference.infer_shapes(model)
    mismatch = channel_mismatch(inferred_model)
    if mismatch:
        raise OnnxLoadError(mismatch)
    return inferred_model


# Each conv op: the positions of its data and weight inputs. ONNX's shape inference never
# compares the input's channels with the weight's and the group count, and IREE's lowering
# slices by the weight: a conv that lost its `group` compiles on to an error of its own (a slice
# "out of bounds", seen in a fuzz reduction that dropped the attribute), so a reduction could
# end on a model that no runtime accepts.
CONV_OPERANDS = {"Conv": (0, 1), "ConvInteger": (0, 1), "QLinearConv": (0, 3), "ConvTranspose": (0, 1)}


def channel_mismatch(inferred_model: onnx.ModelProto) -> str | None:
    """Why a conv of the (shape-inferred) model has input channels its weight and group count do
    not take, or None; dims that are not static are not judged."""
    graph = inferred_model.graph
    shapes: dict[str, list[int | None]] = {t.name: list(t.dims) for t in graph.initializer}
    for value in (*graph.input, *graph.value_info, *graph.output):
        dims = value.type.tensor_type.shape.dim
        shapes.setdefault(value.name, [d.dim_value if d.HasField("dim_value") else None for d in dims])
    for i, node in enumerate(graph.node):
        if node.op_type not in CONV_OPERANDS or node.domain not in ("", "ai.onnx"):
            continue
        x_at, w_at = CONV_OPERANDS[node.op_type]
        x, w = (shapes.get(node.input[k]) if k < len(node.input) else None for k in (x_at, w_at))
        if not x or not w or len(x) < 2 or len(w) < 2:
            continue
        group = next((a.i for a in node.attribute if a.name == "group"), 1)
        taken = w[0] if node.op_type == "ConvTranspose" else (None if w[1] is None else w[1] * group)
        if x[1] is not None and taken is not None and x[1] != taken:
            per = "" if node.op_type == "ConvTranspose" else f" ({w[1]} per group x {group} group{'s' if group > 1 else ''})"
            return (f"node {i} ({node.op_type} {node.name or node.output[0]!r}): its input has {x[1]} channels, "
                    f"its weight takes {taken}{per}")
        if w[0] is not None and w[0] % group:
            return f"node {i} ({node.op_type} {node.name or node.output[0]!r}): {w[0]} weight channels do not split into {group} groups"
    return None


def load_bytes(data: bytes) -> onnx.ModelProto:
    """Parses and validates; raises OnnxLoadError for an invalid model."""
    model = parse(data)
    check(model)
    return model


def read_model_file(path: Path) -> bytes:
    """The model's bytes, with any external tensor data pulled in so the model is self-contained."""
    data = path.read_bytes()
    model = parse(data)
    tensors = list(model.graph.initializer)
    if any(uses_external_data(t) for t in tensors):
        try:
            onnx.load_external_data_for_model(model, str(path.parent))
        except (OSError, ValueError) as err:
            raise OnnxLoadError(f"cannot load external tensor data: {_one_line(err)}") from None
        data = serialise(model)
    return data


@functools.lru_cache(maxsize=16)
def _parsed(data: bytes) -> onnx.ModelProto:
    return parse(data)


@functools.lru_cache(maxsize=16)
def _inferred(data: bytes) -> onnx.ModelProto:
    return check(parse(data))


def parsed_copy(data: bytes) -> onnx.ModelProto:
    """A fresh, editable copy of the model in `data` (parsing is cached)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(_parsed(data))
    return copy


def inferred(data: bytes) -> onnx.ModelProto:
    """The shape-inferred model of `data` (cached; do not edit it)."""
    return _inferred(data)


def subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    graphs = []
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            graphs.append(attr.g)
        elif attr.type == onnx.AttributeProto.GRAPHS:
            graphs.extend(attr.graphs)
    return graphs


def node_count(model_or_graph: onnx.ModelProto | onnx.GraphProto) -> int:
    """Nodes in the graph, nested subgraphs (If/Loop/Scan bodies) included."""
    graph = model_or_graph.graph if isinstance(model_or_graph, onnx.ModelProto) else model_or_graph
    return sum(1 + sum(node_count(g) for g in subgraphs(node)) for node in graph.node)


def serialise(model: onnx.ModelProto) -> bytes:
    return model.SerializeToString(deterministic=True)


def describe(model: onnx.ModelProto) -> str:
    """The short text an ONNX candidate carries in place of program text."""
    ops: dict[str, int] = {}
    for node in model.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    listing = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in ops.items())
    return f"ONNX model {model.graph.name!r}: {node_count(model)} nodes ({listing})"


def to_text(model: onnx.ModelProto, limit: int = 20000) -> str | None:
    """ONNX's textual syntax for the model, or None when it is larger than `limit` characters."""
    try:
        text = onnx.printer.to_text(model)
    except (RuntimeError, ValueError, TypeError):
        return None
    return text if len(text) <= limit else None
