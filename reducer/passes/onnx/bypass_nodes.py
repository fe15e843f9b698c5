"""Bypass nodes: every read of a node's output reads an earlier tensor of the same type instead.

llvm-reduce's operands-skip, MLIR's replace-with-operand, on an ONNX graph. Removing a node
(onnx-remove-nodes) makes its output a graph input (carrying what the original computes there)
and what computed the node's inputs goes with it: a failure that needs the nodes upstream (a
dynamic-size miscompile that needs both matmuls of a chain) is lost, so removal keeps a Clip
between them that a bypass drops: the Clip's users read its input, and the chain stays
connected. The node goes, and what only fed it.

The tensor standing in may be one of the node's inputs or one of its producers' (up to DEPTH
nodes back), as for replace-with-operand: a cast there and back (f16 -> f32 -> f16) goes in one
step, where neither cast alone has an input of its output's type.
"""

from __future__ import annotations

from collections.abc import Iterator

import onnx

from reducer.graphs import onnx_model
from reducer.graphs.onnx_model import OnnxLoadError
from reducer.passes.support.onnx_edit import (
    Invalid,
    OnnxPass,
    is_constant,
    known_types,
    prune,
    reads,
    replace,
)

# A target: (node index, the name of the earlier tensor that stands in for its outputs).
Target = tuple[int, str]
# How many producers back a same-typed tensor is looked for.
DEPTH = 3


def _dim_key(dim: onnx.TensorShapeProto.Dimension) -> int | str | None:
    """A dim as comparable data: its size, its symbol, or None when nothing is known of it."""
    if dim.HasField("dim_value"):
        return dim.dim_value
    return dim.dim_param or None


def same_type(a: onnx.TypeProto | None, b: onnx.TypeProto | None) -> bool:
    """Both tensors of one known element type and one known shape (symbols equal by name)."""
    if a is None or b is None or not a.HasField("tensor_type") or not b.HasField("tensor_type"):
        return False
    ta, tb = a.tensor_type, b.tensor_type
    if ta.elem_type == 0 or ta.elem_type != tb.elem_type or not ta.HasField("shape") or not tb.HasField("shape"):
        return False
    da, db = [_dim_key(d) for d in ta.shape.dim], [_dim_key(d) for d in tb.shape.dim]
    return da == db and None not in da


def read_outputs(node: onnx.NodeProto, read: set[str]) -> list[str]:
    """The node's outputs some node or a graph output reads."""
    return [name for name in node.output if name and name in read]


def graph_reads(graph: onnx.GraphProto) -> set[str]:
    """Every name read in the graph: by its nodes (and their subgraphs) and as a graph output."""
    names = {o.name for o in graph.output}
    for node in graph.node:
        names |= reads(node)
    return names


def earlier_tensors(graph: onnx.GraphProto, producers: dict[str, int], node: onnx.NodeProto) -> Iterator[str]:
    """The node's inputs, then its producers' inputs, and so on DEPTH deep, nearest first."""
    seen: set[str] = set()
    frontier = [node]
    for _ in range(DEPTH):
        following = []
        for current in frontier:
            for name in current.input:
                if not name or name in seen:
                    continue
                seen.add(name)
                yield name
                if name in producers:
                    following.append(graph.node[producers[name]])
        frontier = following


class OnnxBypassNodes(OnnxPass):

    def targets(self, model: onnx.ModelProto) -> list[Target]:
        """Each node with each earlier tensor of the type of every read output of the node: graph
        order, then nearest first (a binary op may be bypassed by either operand)."""
        try:
            types = known_types(onnx_model.inferred(onnx_model.serialise(model)))
        except OnnxLoadError:
            return []
        graph = model.graph
        read = graph_reads(graph)
        producers = {name: i for i, node in enumerate(graph.node) for name in node.output if name}
        found: list[Target] = []
        for i, node in enumerate(graph.node):
            outputs = read_outputs(node, read)
            if is_constant(node) or not outputs:
                continue
            for name in earlier_tensors(graph, producers, node):
                if all(same_type(types.get(name), types.get(o)) for o in outputs):
                    found.append((i, name))
        return found

    def edit(self, model, chosen, types) -> None:
        graph = model.graph
        by_node: dict[int, str] = {}
        for i, name in chosen:
            by_node.setdefault(i, name)
        read = graph_reads(graph)
        alias: dict[str, str] = {}
        for i in sorted(by_node):  # graph order: an input a bypass renamed is followed to its source
            source = alias.get(by_node[i], by_node[i])
            for output in read_outputs(graph.node[i], read):
                alias[output] = source
        replace(graph.node, [n for i, n in enumerate(graph.node) if i not in by_node])
        for node in graph.node:
            rename_reads(node, alias)
        moved: dict[str, str] = {}  # a tensor an output took the name of -> that name
        for output in graph.output:
            if output.name in alias:
                source = alias[output.name]
                if reroute_output(graph, output, moved.get(source, source)):
                    moved[source] = output.name
        prune(graph)


def rename_reads(node: onnx.NodeProto, names: dict[str, str]) -> None:
    """The node, and the nodes of its subgraphs, read `names[x]` wherever they read x."""
    for k, name in enumerate(node.input):
        if name in names:
            node.input[k] = names[name]
    for graph in onnx_model.subgraphs(node):
        for inner in graph.node:
            rename_reads(inner, names)


def reroute_output(graph: onnx.GraphProto, output: onnx.ValueInfoProto, source: str) -> bool:
    """The graph output `output` returns `source`. Where a node of the graph makes `source`, that
    tensor takes the output's name (the outputs keep their names, which the expected outputs are
    keyed by: True); else (a graph input, an initializer) the output is renamed to `source`."""
    if source in {o.name for o in graph.output}:
        raise Invalid(f"{source} would be returned twice")
    producer = next((n for n in graph.node if source in n.output), None)
    if producer is None:
        output.name = source
        return False
    producer.output[list(producer.output).index(source)] = output.name
    for node in graph.node:
        rename_reads(node, {source: output.name})
    return True
