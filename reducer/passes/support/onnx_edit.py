"""The pass protocol on ONNX models and the graph helpers the ONNX passes share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import prod
from typing import Any

import onnx

from oracles import Candidate
from oracles.formats import Format, suffix_of
from reducer.graphs import onnx_model
from reducer.proposal import Proposal
from reducer.search.protocol import ReductionPass

_DEFAULT_DOMAINS = ("", "ai.onnx")


# --- graph helpers ----------------------------------------------------------------------------


def is_constant(node: onnx.NodeProto) -> bool:
    return node.op_type == "Constant" and node.domain in _DEFAULT_DOMAINS


def _graph_reads(graph: onnx.GraphProto) -> set[str]:
    """Every name the graph's nodes read (over-approximates a subgraph's outer-scope names)."""
    names: set[str] = set()
    for node in graph.node:
        names |= reads(node)
    return names


def reads(node: onnx.NodeProto) -> set[str]:
    """The tensors a node reads: its inputs and whatever its subgraphs read."""
    names = {name for name in node.input if name}
    for graph in onnx_model.subgraphs(node):
        names |= _graph_reads(graph)
    return names


def replace(field: Any, items: Iterable[Any]) -> None:
    """Replaces a repeated message field's contents with (copies of) items."""
    copies = []
    for item in items:
        copy = type(item)()
        copy.CopyFrom(item)
        copies.append(copy)
    del field[:]
    field.extend(copies)


def prune(graph: onnx.GraphProto) -> None:
    """Drops nodes no graph output needs, then unused inputs, initializers and value_info."""
    needed = {o.name for o in graph.output}
    kept = []
    for node in reversed(graph.node):
        if any(name in needed for name in node.output if name):
            kept.append(node)
            needed |= reads(node)
    kept.reverse()
    produced = {name for node in kept for name in node.output if name}
    boundary = {i.name for i in graph.input} | {o.name for o in graph.output}
    replace(graph.node, kept)
    replace(graph.input, [i for i in graph.input if i.name in needed])
    replace(graph.initializer, [t for t in graph.initializer if t.name in needed])
    replace(graph.sparse_initializer, [t for t in graph.sparse_initializer if t.values.name in needed])
    replace(graph.value_info, [v for v in graph.value_info if v.name in produced and v.name not in boundary])


def known_types(inferred: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Every top-level tensor's type, as shape inference (with data propagation) sees it."""
    types: dict[str, onnx.TypeProto] = {}
    graph = inferred.graph
    for tensor in graph.initializer:
        types[tensor.name] = onnx.helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))
    for info in [*graph.input, *graph.value_info, *graph.output]:
        types[info.name] = info.type
    return types


def value_info(name: str, types: dict[str, onnx.TypeProto]) -> onnx.ValueInfoProto | None:
    """A graph input/output declaration for `name`, or None when its type is not fully known."""
    kind = types.get(name)
    if kind is None or kind.WhichOneof("value") is None:
        return None
    if kind.HasField("tensor_type") and (kind.tensor_type.elem_type == 0 or not kind.tensor_type.HasField("shape")):
        return None
    info = onnx.ValueInfoProto()
    info.name = name
    info.type.CopyFrom(kind)
    return info


class Invalid(Exception):
    """The chosen edit cannot be made (a tensor without a known type, nothing left)."""


# --- the pass protocol on ONNX ----------------------------------------------------------------


class OnnxPass(ReductionPass):
    """Targets are plain data (indices, names) found on the model; `edit` changes a fresh copy."""

    def targets(self, model: onnx.ModelProto) -> list[Any]:
        raise NotImplementedError

    def edit(self, model: onnx.ModelProto, chosen: list[Any], types: dict[str, onnx.TypeProto]) -> None:
        """Applies the chosen targets in place; raises Invalid when it cannot."""
        raise NotImplementedError

    def count(self, current: Proposal, ctx: Any) -> int:
        data = current.candidate.binary
        if data is None:
            return 0
        return len(self.targets(onnx_model.parsed_copy(data)))

    def apply(self, current: Proposal, chosen: Sequence[int], ctx: Any) -> Proposal | None:
        data = current.candidate.binary
        if data is None:
            return None
        model = onnx_model.parsed_copy(data)
        targets = self.targets(model)
        picked = [targets[i] for i in chosen if i < len(targets)]
        if not picked:
            return None
        try:
            self.edit(model, picked, known_types(onnx_model.inferred(data)))
        except Invalid:
            return None
        onnx_model.check(model)  # OnnxLoadError (a CandidateRejected) when the checker rejects the edit
        new = onnx_model.serialise(model)
        if new == data:
            return None
        candidate = current.candidate.with_binary(onnx_model.describe(model), new)
        return Proposal(candidate, onnx_model.node_count(model))


def onnx_proposal(data: bytes, flags: Sequence[str] = ()) -> Proposal:
    """The Proposal for a (validated) serialised model."""
    model = onnx_model.parse(data)
    return Proposal(Candidate(onnx_model.describe(model), tuple(flags), suffix_of(Format.ONNX), data), onnx_model.node_count(model))


# --- passes -----------------------------------------------------------------------------------


def is_zero(tensor: onnx.TensorProto) -> bool:
    """All-zero, empty, or not ours to zero (strings, external data): nothing to simplify."""
    if tensor.data_type in (onnx.TensorProto.STRING, onnx.TensorProto.UNDEFINED):
        return True
    if tensor.data_location == onnx.TensorProto.EXTERNAL or prod(tensor.dims) == 0:
        return True
    if tensor.HasField("raw_data"):
        return tensor.raw_data.count(0) == len(tensor.raw_data)
    fields = (tensor.float_data, tensor.int32_data, tensor.int64_data, tensor.double_data, tensor.uint64_data)
    return all(value == 0 for field in fields for value in field)


_PACKED = {  # sub-byte element types: elements per byte
    getattr(onnx.TensorProto, name): per_byte
    for name, per_byte in (("INT4", 2), ("UINT4", 2), ("FLOAT4E2M1", 2), ("INT2", 4), ("UINT2", 4))
    if hasattr(onnx.TensorProto, name)
}


def zeros_like(tensor: onnx.TensorProto) -> onnx.TensorProto:
    """Zeros of the tensor's shape and element type, as raw data (what the importer reads best)."""
    count = prod(tensor.dims)
    if tensor.data_type in _PACKED:
        size = -(-count // _PACKED[tensor.data_type])
    else:
        try:
            size = count * onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
        except (KeyError, ValueError, TypeError):
            raise Invalid(f"element type {tensor.data_type}") from None
    zeros = onnx.TensorProto()
    zeros.name = tensor.name
    zeros.data_type = tensor.data_type
    zeros.dims.extend(tensor.dims)
    zeros.raw_data = bytes(size)
    return zeros


def constant_value(node: onnx.NodeProto) -> onnx.AttributeProto | None:
    return next((a for a in node.attribute if a.name == "value" and a.type == onnx.AttributeProto.TENSOR), None)


def _opset(model: onnx.ModelProto, domain: str) -> int | None:
    wanted = {"", "ai.onnx"} if domain in _DEFAULT_DOMAINS else {domain}
    return next((o.version for o in model.opset_import if o.domain in wanted), None)


def required_attributes(model: onnx.ModelProto, node: onnx.NodeProto) -> set[str]:
    """Attributes the node's schema requires (none known for ops without a registered schema)."""
    version = _opset(model, node.domain)
    if version is None:
        return set()
    try:
        schema = onnx.defs.get_schema(node.op_type, version, node.domain if node.domain != "ai.onnx" else "")
    except onnx.defs.SchemaError:  # a custom-domain op
        return set()
    return {name for name, attr in schema.attributes.items() if attr.required}
