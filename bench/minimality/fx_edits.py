"""Single edits of a `.pt2` program, through torch.fx: delete a node, bypass a node, halve a dim.

The program is read as the flat FX graph of reducer/graphs/torch_program.py (its placeholders the
inputs, its weights attributes), one node edited on a fresh copy, then exported and imported again
(`built`): a graph torch.export or the FX importer rejects is no candidate. Deleting a node makes
what read each tensor it computes read a new last input (the inputs before it keep their data).
Bypassing a one-tensor node makes its readers read one of its inputs of the same shape and dtype.
Halving makes one static dim of an input or a weight (which keeps its leading half), or every
static dim of one size at once (the graph's `resize`, size arguments of views too), half as large;
the export traces the rest anew.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
import torch

from bench.minimality.check import Edit, NoCandidate
from oracles import Candidate
from reducer.graphs import torch_program as tp


def edits(result: Candidate) -> Iterator[Edit]:
    ed = tp.editable_of(result.binary, result.data)
    ops = ed.ops()
    for i, node in enumerate(ops):
        yield Edit("deletion", f"delete node {i} ({node.name})", partial(_made, result, _delete, i))
    for i, node in enumerate(ops):
        for j in same_typed_inputs(node):
            yield Edit("bypass", f"bypass node {i} ({node.name}) by its input {node.all_input_nodes[j].name}",
                       partial(_made, result, _bypass, i, j))
    dims = static_dims(ed)
    for name, axis, size in dims:
        yield Edit("halving", f"halve {name} axis {axis} ({size} -> {size // 2})", partial(_made, result, _halve, name, axis))
    for size in sorted(tp.sizes(ed), reverse=True):
        if sum(1 for _, _, s in dims if s == size) > 1:
            yield Edit("halving", f"halve every dim of size {size}", partial(_made, result, _halve_every, size))


def _tensor(node: torch.fx.Node) -> torch.Tensor | None:
    value = node.meta.get("val")
    return value if isinstance(value, torch.Tensor) else None


def same_typed_inputs(node: torch.fx.Node) -> list[int]:
    """Positions in `all_input_nodes` of the inputs a one-tensor node can be bypassed by."""
    value = _tensor(node)
    if value is None:
        return []
    return [j for j, source in enumerate(node.all_input_nodes)
            if (other := _tensor(source)) is not None and other.shape == value.shape and other.dtype == value.dtype]


def static_dims(ed: tp.Editable) -> list[tuple[str, int, int]]:
    """(input or weight, axis, size) of every static dim above 1 (a weight by its attribute name)."""
    dims = [(node.name, axis, size) for node in ed.inputs() if (value := _tensor(node)) is not None
            for axis, size in enumerate(value.shape) if isinstance(size, int) and size > 1]
    targets = sorted({node.target for node in ed.graph.nodes if node.op == "get_attr"})
    for name in targets:
        weight = tp.attribute(ed.module, name)
        if isinstance(weight, torch.Tensor):
            dims += [(name, axis, size) for axis, size in enumerate(weight.shape) if size > 1]
    return dims


def _made(result: Candidate, edit, *args) -> Candidate:
    """`edit(ed, *args)` on a fresh copy of the result's graph, exported and imported again."""
    ed = tp.editable_of(result.binary, result.data)
    try:
        edit(ed, *args)
        built = tp.built(ed)  # NotExportable, NotImportable: CandidateRejected
    except tp.Invalid as err:
        raise NoCandidate(str(err)) from None
    return Candidate(built.text, result.flags, result.suffix, built.archive, tp.carried_data(ed))


def _delete(ed: tp.Editable, i: int) -> None:
    node = ed.ops()[i]
    for value in tp.tensors_of(node):
        value.replace_all_uses_with(tp.placeholder_for(ed, value, None))
    tp.erase_unread(ed, [node])
    if node in ed.graph.nodes:
        raise NoCandidate(f"{node.name} computes a value no input can stand in for")


def _bypass(ed: tp.Editable, i: int, j: int) -> None:
    node = ed.ops()[i]
    node.replace_all_uses_with(node.all_input_nodes[j])
    ed.graph.erase_node(node)


def _halve(ed: tp.Editable, name: str, axis: int) -> None:
    """One dim of one input (traced at half its size, its data's leading half) or of one weight halved."""
    for node in ed.inputs():
        if node.name == name:
            size = _tensor(node).shape[axis]
            node.meta[tp.RESIZED] = {**node.meta.get(tp.RESIZED, {}), axis: size // 2}
            carried = node.meta.get(tp.CARRIED)
            if carried is not None and carried[1].ndim > axis:
                block = tuple(slice(0, size // 2) if k == axis else slice(None) for k in range(carried[1].ndim))
                node.meta[tp.CARRIED] = (carried[0], np.ascontiguousarray(carried[1][block]))
            return
    weight = tp.attribute(ed.module, name)
    block = tuple(slice(0, size // 2) if k == axis else slice(None) for k, size in enumerate(weight.shape))
    tp.set_attribute(ed.module, name, weight.detach()[block].clone())


def _halve_every(ed: tp.Editable, size: int) -> None:
    tp.resize(ed, size, size // 2)
