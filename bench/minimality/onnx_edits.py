"""Single edits of an ONNX model, through the onnx package: delete a node, bypass a node, halve a dim.

Each candidate starts from a fresh parse of the result and must pass the onnx checker and strict
shape inference (`onnx_model.check`; a failure there is no candidate). Deleting a node makes each
of its outputs that something reads a graph input of the same type (its values, where the
original computed that tensor, travel with the candidate's data as `at:NAME`). Bypassing a node
makes what read its one output read one of its inputs of the same type and shape instead.
Halving makes one static dim of a graph input or weight (an initializer or a Constant node's
tensor, which keeps its leading half), or every static dim of one size at once, half as large, and lets shape inference derive
the rest; a halving that makes a tensor degenerate the result did not have (a zero-sized dim, a pool
or conv window past its padded input, reducer/shapes/degenerate.py: what the reference evaluator
refuses to run and the shape passes never make) is no candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import onnx
from onnx import numpy_helper

from bench.minimality.edit import Edit, NoCandidate
from oracles import Candidate
from reducer.graphs import onnx_model
from reducer.shapes.degenerate import onnx_sites


def edits(result: Candidate) -> Iterator[Edit]:
    model = onnx_model.parse(result.binary)
    types = tensor_types(onnx_model.check(model))
    nodes = list(model.graph.node)
    for i, node in enumerate(nodes):
        yield Edit("deletion", f"delete node {i} ({node.op_type})", partial(_made, result, _delete, i))
    for i, node in enumerate(nodes):
        for j in same_typed_inputs(model.graph, node, types):
            yield Edit("bypass", f"bypass node {i} ({node.op_type}) by its input {j} ({node.input[j]})",
                       partial(_made, result, _bypass, i, j))
    dims = static_dims(model.graph)
    for name, axis, size in dims:
        yield Edit("halving", f"halve {name} axis {axis} ({size} -> {size // 2})", partial(_made, result, _halve, {(name, axis)}))
    for size in sorted({size for _, _, size in dims}, reverse=True):
        every = {(name, axis) for name, axis, s in dims if s == size}
        if len(every) > 1:
            yield Edit("halving", f"halve every dim of size {size} ({len(every)} dims)", partial(_made, result, _halve, every))


def tensor_types(inferred: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Every tensor's type in a shape-inferred model, initializers included."""
    graph = inferred.graph
    types = {t.name: onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims)) for t in graph.initializer}
    for value in (*graph.input, *graph.value_info, *graph.output):
        types[value.name] = value.type
    return types


def _readers(graph: onnx.GraphProto, name: str) -> bool:
    return any(name in node.input for node in graph.node) or any(out.name == name for out in graph.output)


def _static(tensor_type: onnx.TypeProto | None) -> bool:
    if tensor_type is None or not tensor_type.HasField("tensor_type") or not tensor_type.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") for d in tensor_type.tensor_type.shape.dim)


def same_typed_inputs(graph: onnx.GraphProto, node: onnx.NodeProto, types: dict[str, onnx.TypeProto]) -> list[int]:
    """The inputs a node's one read output can be bypassed by: same element type, same static shape
    (each name once); none for a node of several read outputs."""
    read = [out for out in node.output if out and _readers(graph, out)]
    if len(read) != 1 or not _static(types.get(read[0])):
        return []
    wanted, seen, found = types[read[0]].SerializeToString(), set(), []
    for j, name in enumerate(node.input):
        if name and name not in seen and name in types and types[name].SerializeToString() == wanted:
            found.append(j)
        seen.add(name)
    return found


def weights(graph: onnx.GraphProto) -> list[tuple[str, onnx.TensorProto]]:
    """(name, tensor) of the initializers and of the tensors Constant nodes hold (named by their output)."""
    found = [(t.name, t) for t in graph.initializer]
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            found += [(node.output[0], a.t) for a in node.attribute if a.name == "value" and a.type == onnx.AttributeProto.TENSOR]
    return found


def static_dims(graph: onnx.GraphProto) -> list[tuple[str, int, int]]:
    """(tensor, axis, size) of every static dim above 1 of the graph inputs and weights (`weights`)."""
    dims = [(name, axis, size) for name, t in weights(graph) for axis, size in enumerate(t.dims) if size > 1]
    initializers = {t.name for t in graph.initializer}
    for value in graph.input:
        if value.name in initializers:
            continue
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value > 1:
                dims.append((value.name, axis, dim.dim_value))
    return dims


def _made(result: Candidate, edit, *args) -> Candidate:
    """`edit(model, types, *args)` on a fresh copy of the result's model, checked."""
    model = onnx_model.parse(result.binary)
    edit(model, tensor_types(onnx_model.check(model)), *args)
    onnx_model.check(model)  # OnnxLoadError (a CandidateRejected) when it is no model
    return result.with_binary(onnx_model.describe(model), onnx_model.serialise(model))


def _forget(graph: onnx.GraphProto, names: set[str]) -> None:
    keep = [v for v in graph.value_info if v.name not in names]
    del graph.value_info[:]
    graph.value_info.extend(keep)


def _delete(model: onnx.ModelProto, types: dict[str, onnx.TypeProto], i: int) -> None:
    graph = model.graph
    node = graph.node[i]
    del graph.node[i]
    for out in node.output:
        if out and _readers(graph, out):
            if out not in types:
                raise NoCandidate(f"no type for {out}")
            graph.input.append(onnx.helper.make_value_info(out, types[out]))
    _forget(graph, set(node.output))


def _bypass(model: onnx.ModelProto, types: dict[str, onnx.TypeProto], i: int, j: int) -> None:
    graph = model.graph
    node = graph.node[i]
    source = node.input[j]
    (out,) = [out for out in node.output if out and _readers(graph, out)]
    del graph.node[i]
    for reader in graph.node:
        for k, name in enumerate(reader.input):
            if name == out:
                reader.input[k] = source
    for output in graph.output:
        if output.name == out:
            output.name = source
    _forget(graph, set(node.output))


def _halve(model: onnx.ModelProto, types: dict[str, onnx.TypeProto], dims: set[tuple[str, int]]) -> None:
    """The dims named in `dims` halved; every type shape inference derives is derived again."""
    before = onnx_sites(onnx.shape_inference.infer_shapes(model, data_prop=True))
    graph = model.graph
    for name, tensor in weights(graph):
        axes = [axis for held, axis in dims if held == name]
        if axes:  # the leading half of its values
            array = numpy_helper.to_array(tensor)
            block = tuple(slice(0, size // 2) if axis in axes else slice(None) for axis, size in enumerate(array.shape))
            tensor.CopyFrom(numpy_helper.from_array(array[block].copy(), tensor.name))
    for value in graph.input:
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if (value.name, axis) in dims:
                dim.dim_value //= 2
    del graph.value_info[:]
    for output in graph.output:
        output.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as err:
        raise NoCandidate(f"shape inference: {' '.join(str(err).split())[:200]}") from None
    for output, derived in zip(graph.output, inferred.graph.output):
        output.type.CopyFrom(derived.type)
    added = onnx_sites(inferred) - before
    if added:
        raise NoCandidate(f"degenerate: {sorted(added)[0]}")
