"""PyTorch programs as the reducer edits them: the FX graph of a `torch.export` archive.

A `.pt2` candidate is an archive's bytes (`Candidate.binary`), the torch-dialect MLIR the FX
importer makes of it (`Candidate.text`, what the oracles judge) and its inputs' values
(`Candidate.data`, keyed by position as the imported function's arguments are: `in:argI` the
user's or seeded, `at:argI` what the original computes where a cut made the input).

An edit works on an `Editable`: the program unlifted to a flat `GraphModule` whose placeholders
are its inputs in order, whose parameters, buffers and constants are attributes read by
`get_attr`, and whose buffer updates are `copy_` into the buffer. After the edit the module is
exported again (`torch.export.export`, then made functional; its ops were decomposed on load, as
`--torch-import` asks, and an edit brings no new ones), which re-verifies
every candidate: shapes, dtypes and dynamic dims are traced anew and a graph PyTorch does not
accept is no candidate. Only the attributes the graph still reads go into the new archive, so
unused parameters and buffers drop out of every candidate. The new program is imported once
here (oracles/torch/importer.py); one the importer rejects is no candidate either.
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
from torch.export import ExportedProgram

from oracles.candidate import CandidateRejected
from oracles.data.carried import INPUT, INTERMEDIATE, pack, unpack
from oracles.torch import DEFAULT_IMPORT
from oracles.torch.decompositions import as_imported
from oracles.torch.importer import import_text
from oracles.torch.program import (
    ASSERTIONS,
    describe,
    functional,
    is_node,
    loaded,
    nodes,
    one_line,
    quiet,
    save,
)

ATEN = torch.ops.aten
CARRIED = "carried"  # a placeholder's meta: (data prefix, array) it runs on
SMALLEST_EXAMPLE = 2  # export specialises a dynamic dim traced at size 0 or 1
# Where each node was traced from: after a re-export of the reducer's own module only noise, which
# grows with every edit (and `from_node` holds object ids: the same program would not save to the
# same bytes). Neither the importer nor PyTorch needs them.
PROVENANCE = ("stack_trace", "from_node", "nn_module_stack", "source_fn_stack", "torch_fn")


class Invalid(Exception):
    """The edit cannot be made (nothing to keep, an input that is no tensor): no candidate."""


class NotExportable(CandidateRejected):
    """torch.export rejects the edited graph: a rejected candidate (oracles/candidate.py), as one
    the FX importer rejects (NotImportable)."""


@dataclass
class Editable:
    """A program's graph as a flat GraphModule; edits change `module.graph` in place."""

    module: torch.fx.GraphModule

    @property
    def graph(self) -> torch.fx.Graph:
        return self.module.graph

    def inputs(self) -> list[torch.fx.Node]:
        return [n for n in self.graph.nodes if n.op == "placeholder"]

    def ops(self) -> list[torch.fx.Node]:
        """The program's nodes as `node_count` counts them, buffer updates excluded."""
        return [n for n in self.graph.nodes if is_node(n) and not is_update(n)]

    def tensor_ops(self) -> list[torch.fx.Node]:
        """The ops whose value is one tensor: those an input or a constant can stand in for."""
        return [n for n in self.ops() if isinstance(n.meta.get("val"), torch.Tensor)]

    def cuttable_ops(self) -> list[torch.fx.Node]:
        """The ops a cut can stand in for: the tensor ops and the multi-output ops (at their getitems)."""
        return [n for n in self.ops() if tensors_of(n)]

    def updates(self) -> list[torch.fx.Node]:
        """The buffer updates (`copy_` into a buffer), in order."""
        return [n for n in self.graph.nodes if is_update(n)]

    def outputs(self) -> list[torch.fx.Node]:
        return list(output_node(self.graph).args[0])

    def copy(self) -> Editable:
        """A copy to edit: a new graph; the attributes (weights) are shared until an edit replaces one."""
        graph = torch.fx.Graph()
        values: dict[torch.fx.Node, torch.fx.Node] = {}
        result = graph.graph_copy(self.graph, values)
        graph.output(result)
        return Editable(torch.fx.GraphModule(self.module, graph))


def is_update(node: torch.fx.Node) -> bool:
    """A buffer update: the unlifted form of a mutation output, `copy_(buffer, new value)`."""
    return node.op == "call_function" and node.target is ATEN.copy_.default and node.args[0].op == "get_attr"


def is_selection(node: torch.fx.Node) -> bool:
    """A getitem: one tensor of a multi-output node's tuple (not one of the program's nodes)."""
    return node.op == "call_function" and node.target is operator.getitem


def tensors_of(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The FX nodes holding the tensors `node` computes: `node` for a tensor op; for a multi-output
    op (a split, whose value is a tuple no input can be) its getitem users, each selecting one
    tensor, where a cut stands in instead; [] for anything else (a size)."""
    value = node.meta.get("val")
    if isinstance(value, torch.Tensor):
        return [node]
    if isinstance(value, (tuple, list)):
        return [u for u in node.users if is_selection(u) and isinstance(u.meta.get("val"), torch.Tensor)]
    return []


def stand_in_for(ed: Editable, node: torch.fx.Node, cut: Callable[[torch.fx.Node], bool], values: dict[str, np.ndarray]) -> None:
    """The readers of `node`'s tensors (`tensors_of`: a multi-output op's at its getitems) for which
    `cut(reader)` read a new input each instead, carrying `values` (what the parent computes there)."""
    for value in tensors_of(node):
        readers = [u for u in value.users if cut(u)]
        if readers:
            stand_in = placeholder_for(ed, value, values.get(value.name))
            for user in readers:
                user.replace_input_with(value, stand_in)


def erase_unread(ed: Editable, ops: list[torch.fx.Node]) -> None:
    """Erases each of `ops` (in graph order) that nothing reads once the later ones are gone; a
    multi-output op goes with its getitems once nothing reads those."""
    for node in reversed(ops):
        for selection in [u for u in node.users if is_selection(u) and not u.users]:
            ed.graph.erase_node(selection)
        if not node.users:
            ed.graph.erase_node(node)


def output_node(graph: torch.fx.Graph) -> torch.fx.Node:
    return next(n for n in reversed(graph.nodes) if n.op == "output")


def node_count(program: ExportedProgram) -> int:
    """The program's nodes (oracles/torch/program.py, `is_node`)."""
    return len(nodes(program))


def editable(program: ExportedProgram, data: tuple[tuple[str, bytes], ...] = ()) -> Editable:
    """The program as a flat GraphModule, each input carrying its value from `data` (by position)."""
    with quiet():
        unlifted = program.module()
    graph = torch.fx.Graph()
    values: dict[torch.fx.Node, torch.fx.Node] = {}
    result = graph.graph_copy(unlifted.graph, values)
    graph.output(result)
    for node in list(graph.nodes):
        if node.op == "call_module" or (node.op == "call_function" and node.target in ASSERTIONS and not node.users):
            graph.erase_node(node)  # export's guard function and checks: a re-export adds its own
    module = torch.fx.GraphModule(unlifted, graph)  # takes the attributes the graph reads, nothing else
    stored = unpack(data)
    for i, node in enumerate(n for n in graph.nodes if n.op == "placeholder"):
        for prefix in (INPUT, INTERMEDIATE):
            if f"{prefix}arg{i}" in stored:
                node.meta[CARRIED] = (prefix, stored[f"{prefix}arg{i}"])
                break
    return Editable(module)


def carried_data(ed: Editable) -> tuple[tuple[str, bytes], ...]:
    """The values the edited program's inputs run on, keyed by their new positions."""
    arrays = {}
    for i, node in enumerate(ed.inputs()):
        carried = node.meta.get(CARRIED)
        if carried is not None:
            arrays[f"{carried[0]}arg{i}"] = carried[1]
    return pack(arrays)


def trace_inputs(ed: Editable) -> tuple[list[torch.Tensor], tuple[dict[int, object] | None, ...]]:
    """Example inputs to trace (zeros at the sizes the program was traced at) and the dynamic dims."""
    examples, specs = [], []
    for node in ed.inputs():
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor):
            raise Invalid(f"input {node.name} is not a tensor")
        sizes, dynamic = [], {}
        resized = node.meta.get(RESIZED, {})
        for axis, size in enumerate(value.shape):
            if isinstance(size, int):
                sizes.append(resized.get(axis, size))
                continue
            # A symbol, or an expression of one where a cut made a value computed from a dynamic
            # dim an input (4*s77 after a reshape): a dynamic dim of its own at the size it ran at;
            # where the rest of the program needs the relation back, the export rejects it.
            hint = size.node.hint
            sizes.append(max(int(hint) if hint is not None else SMALLEST_EXAMPLE, SMALLEST_EXAMPLE))
            dynamic[axis] = torch.export.Dim.DYNAMIC
        examples.append(torch.zeros(sizes, dtype=value.dtype))
        specs.append(dynamic or None)
    return examples, tuple(specs)


def exported(ed: Editable) -> ExportedProgram:
    """The edited module exported again and made functional; NotExportable when PyTorch rejects it."""
    ed.graph.lint()
    ed.module.recompile()
    examples, dynamic = trace_inputs(ed)
    with quiet():
        try:
            program = functional(torch.export.export(ed.module, tuple(examples),
                                                     dynamic_shapes=dynamic if any(d is not None for d in dynamic) else None))
        except Exception as err:  # noqa: BLE001  (export raises anything for a graph it cannot trace)
            raise NotExportable(f"torch.export rejects it: {one_line(err)}") from None
    for node in program.graph.nodes:
        for key in PROVENANCE:
            node.meta.pop(key, None)
    return program


@dataclass(frozen=True)
class Built:
    """A program made from an edit: its archive, its imported MLIR, its node count and description."""

    archive: bytes
    text: str
    nodes: int
    description: str


def built(ed: Editable) -> Built:
    """Exports, saves and imports the edited program; Invalid when it cannot be traced,
    NotExportable or NotImportable (CandidateRejected both) when the exporter or the importer rejects it."""
    program = exported(ed)
    text = import_text(program)
    return Built(save(program), text, node_count(program), describe(program))


def normalised(data: bytes, how: str = DEFAULT_IMPORT) -> Built:
    """A user's archive as every candidate is kept: brought to the importer as `how` asks
    (oracles/torch/decompositions.py: once, here, so every candidate descends from the program as
    imported) and saved as such, so an edit loads it as it loads any candidate. Not exported again
    from its own graph: that doubled the load (an export and a second decomposition, about 2.7
    CPU s of a 120-node program on a 2-core machine) for the same imported text, and every edit
    exports anyway (a graph that does not export again makes no candidate). ArchiveError (one
    line; PickledModule, NotDecomposable, NotImportable) when it cannot be read or imported."""
    program = as_imported(_fresh(data), how)
    text = import_text(program)  # NotImportable for a program the importer cannot take
    return Built(save(program), text, node_count(program), describe(program))


def imported_text(archive: bytes) -> str:
    """The MLIR a saved candidate's archive imports to (what the candidate carried)."""
    return import_text(loaded(archive))


def _fresh(data: bytes) -> ExportedProgram:
    from oracles.torch.program import load

    return load(data)


@functools.lru_cache(maxsize=4)
def _editable_of(archive: bytes, data: tuple[tuple[str, bytes], ...]) -> Editable:
    return editable(loaded(archive), data)


def editable_of(archive: bytes, data: tuple[tuple[str, bytes], ...] = ()) -> Editable:
    """A fresh Editable of a candidate's archive and data (parsed once per content)."""
    return _editable_of(archive, data).copy()


def placeholder_for(ed: Editable, node: torch.fx.Node, value: np.ndarray | None) -> torch.fx.Node:
    """A new last input standing in for `node`'s value (carrying `value`, what the parent computes there)."""
    last = ed.inputs()[-1] if ed.inputs() else None
    with ed.graph.inserting_after(last) if last is not None else ed.graph.inserting_before(next(iter(ed.graph.nodes))):
        placeholder = ed.graph.placeholder(node.name)
    placeholder.meta["val"] = node.meta["val"]
    if value is not None:
        placeholder.meta[CARRIED] = (INTERMEDIATE, value)
    return placeholder


def constant_for(ed: Editable, node: torch.fx.Node, value: torch.Tensor) -> torch.fx.Node:
    """A new buffer holding `value`, read where `node` was."""
    name = f"_constant_{node.name}"
    ed.module.register_buffer(name, value)
    with ed.graph.inserting_before(node):
        read = ed.graph.get_attr(name)
    read.meta["val"] = node.meta["val"]
    return read


def prune(ed: Editable) -> None:
    """Drops what no output or buffer update needs, and inputs nothing reads."""
    ed.graph.eliminate_dead_code()
    for node in ed.inputs():
        if not node.users:
            ed.graph.erase_node(node)
    used = {n.target for n in ed.graph.nodes if n.op == "get_attr"}
    for name in [name for name, _ in [*ed.module.named_parameters(), *ed.module.named_buffers()] if name not in used]:
        _drop_attribute(ed.module, name)


def _drop_attribute(module: torch.nn.Module, name: str) -> None:
    owner_path, _, leaf = name.rpartition(".")
    owner = module.get_submodule(owner_path) if owner_path else module
    if hasattr(owner, leaf):
        delattr(owner, leaf)


def static_shape(node: torch.fx.Node) -> tuple[int, ...] | None:
    value = node.meta.get("val")
    if not isinstance(value, torch.Tensor) or not all(isinstance(d, int) for d in value.shape):
        return None
    return tuple(value.shape)


def zeros_like_node(node: torch.fx.Node) -> torch.Tensor:
    shape = static_shape(node)
    if shape is None:
        raise Invalid(f"{node.name} has a dynamic shape")
    return torch.zeros(shape, dtype=node.meta["val"].dtype)


def keep_only(ed: Editable, keep: set[str], values: dict[str, np.ndarray]) -> None:
    """Keeps the ops named in `keep` (a multi-output op with its getitems): what they read from
    other ops becomes inputs carrying `values` (what the parent computes there; a multi-output
    op is cut at its getitems), what others read from them (or the program returns) becomes the
    outputs; buffer updates of kept values stay. Invalid when nothing is kept."""
    ops = ed.ops()
    kept = [n for n in ops if n.name in keep]
    if not kept:
        raise Invalid("nothing to keep")
    kept_set = set(kept)
    inside = kept_set | {s for n in kept for s in n.users if is_selection(s)}
    returned = set(ed.outputs())
    tensors = [t for n in kept for t in tensors_of(n)]
    outputs = [t for t in tensors if t in returned or any(u not in inside and u.op != "output" and not is_update(u) for u in t.users)]
    if not outputs and not tensors:
        raise Invalid("the kept ops compute no tensor")
    updates = [u for u in ed.updates() if u.args[1] in inside]
    for update in ed.updates():
        if update not in updates:
            ed.graph.erase_node(update)
    output_node(ed.graph).args = (tuple(outputs or tensors[-1:]),)
    for node in ops:
        if node not in kept_set:  # a value that is no tensor (a size) stays, with what computes it
            stand_in_for(ed, node, lambda user: user in kept_set, values)
    erase_unread(ed, [n for n in ops if n not in kept_set])


RESIZED = "resized"  # a placeholder's meta: axis -> the size a shape edit gave it
# Size-typed (SymInt) arguments that are no tensor size: a shape edit leaves them as they are.
NOT_SIZES = frozenset({"stride", "padding", "dilation", "output_padding", "kernel_size", "step", "dim", "dims"})


def _static_dims(ed: Editable) -> Iterator[tuple[str, int, int]]:
    """(input name, axis, size) of each static dim of the inputs, then ('', axis, size) of each dim
    of the tensors the program reads (parameters, buffers, constants; once per read)."""
    for node in ed.inputs():
        for axis, d in enumerate(getattr(node.meta.get("val"), "shape", ())):
            if isinstance(d, int):
                yield node.name, axis, d
    for node in ed.graph.nodes:
        if node.op == "get_attr":
            value = attribute(ed.module, node.target)
            if isinstance(value, torch.Tensor):
                yield from (("", axis, d) for axis, d in enumerate(value.shape))


def sizes(ed: Editable) -> set[int]:
    """The static sizes above 1 of the program's inputs and tensors (parameters, buffers, constants)."""
    return {d for _, _, d in _static_dims(ed) if d > 1}


def resize(ed: Editable, old: int, new: int) -> None:
    """Every static dim of size `old` of the inputs and tensors becomes `new` (the leading block
    of their values), and so does every size argument of that size (a view's, a norm's shape);
    the export that follows re-traces the rest, and refuses a graph whose shapes no longer agree."""
    for node in ed.inputs():
        value = node.meta.get("val")
        axes = {axis for axis, d in enumerate(getattr(value, "shape", ())) if isinstance(d, int) and d == old}
        if axes:
            _resize_input(node, axes, new)
    done: set[str] = set()
    for node in ed.graph.nodes:
        if node.op == "get_attr" and node.target not in done:
            done.add(node.target)
            value = attribute(ed.module, node.target)
            axes = {axis for axis, d in enumerate(getattr(value, "shape", ())) if d == old}
            if axes:
                set_attribute(ed.module, node.target, value.detach()[_leading(value.dim(), axes, new)].clone())
        elif node.op == "call_function" and hasattr(node.target, "_schema"):
            _resize_arguments(node, old, new)


def shared_input_axes(ed: Editable) -> list[tuple[str, int, int]]:
    """(input name, axis, size) of each static input dim above 1 whose size another input dim or
    tensor dim shares: a size class `resize` moves together, which one dim may leave alone."""
    dims = list(_static_dims(ed))
    counts = Counter(d for _, _, d in dims)
    return [(name, axis, d) for name, axis, d in dims if name and d > 1 and counts[d] > 1]


def resize_input_axis(ed: Editable, name: str, axis: int, new: int) -> None:
    """One input's dim `axis` becomes `new` (the leading block of its value), nothing else: the
    export that follows re-traces the rest, and refuses a graph whose shapes no longer agree."""
    node = next((n for n in ed.inputs() if n.name == name), None)
    shape = getattr(node.meta.get("val"), "shape", ()) if node is not None else ()
    if node is None or axis >= len(shape) or not isinstance(shape[axis], int):
        raise Invalid(f"no static dim {axis} of an input {name}")
    _resize_input(node, {axis}, new)


def _resize_input(node: torch.fx.Node, axes: set[int], new: int) -> None:
    """An input's `axes` traced at `new`, the value it carries cut to their leading block."""
    node.meta[RESIZED] = {**node.meta.get(RESIZED, {}), **{axis: new for axis in axes}}
    carried = node.meta.get(CARRIED)
    if carried is not None:
        node.meta[CARRIED] = (carried[0], np.ascontiguousarray(carried[1][_leading(carried[1].ndim, axes, new)]))


def _leading(ndim: int, axes: set[int], size: int) -> tuple[slice, ...]:
    return tuple(slice(0, size) if axis in axes else slice(None) for axis in range(ndim))


def _resize_arguments(node: torch.fx.Node, old: int, new: int) -> None:
    args, kwargs = list(node.args), dict(node.kwargs)
    for position, argument in enumerate(node.target._schema.arguments):
        if "SymInt" not in str(argument.type) or argument.name in NOT_SIZES:
            continue
        if position < len(args):
            args[position] = _swapped(args[position], old, new)
        elif argument.name in kwargs:
            kwargs[argument.name] = _swapped(kwargs[argument.name], old, new)
    node.args, node.kwargs = tuple(args), kwargs


def _swapped(value: object, old: int, new: int) -> object:
    if isinstance(value, int) and not isinstance(value, bool):
        return new if value == old else value
    if isinstance(value, (list, tuple)):
        return type(value)(_swapped(v, old, new) for v in value)
    return value


def attribute(module: torch.nn.Module, name: str) -> object:
    for part in name.split("."):
        module = getattr(module, part)
    return module


def set_attribute(module: torch.nn.Module, name: str, value: torch.Tensor) -> None:
    owner_path, _, leaf = name.rpartition(".")
    owner = module.get_submodule(owner_path) if owner_path else module
    if isinstance(getattr(owner, leaf), torch.nn.Parameter):
        setattr(owner, leaf, torch.nn.Parameter(value, requires_grad=False))
    else:
        owner.register_buffer(leaf, value)
