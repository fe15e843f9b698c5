"""The IR walks of the phase oracles: every op of a module, the copies and transient allocations of
a stream schedule, the dispatches that update a constant in place, and the source each op came from.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.compiling.symptoms import Symptom, function_of
from oracles.mlir import ir as irx
from oracles.mlir.locations import PARSED_BUFFER, location_leaves

COPY_OPS = ("stream.cmd.copy", "stream.async.copy", "stream.async.clone")
# IREE 3.13 lowers the copies of a concatenated KV-cache context (tensor.concat and
# extract_slice around a global, seed 000) to dispatches of this name rather than stream copies:
# they move the same bytes, so the transient-copy oracle counts them as copies.
SLOW_MEMCPY_SUFFIX = "_slow_memcpy"
STREAM_DISPATCH_OPS = ("stream.cmd.dispatch", "stream.async.dispatch")
TRANSIENT_RESOURCE = "!stream.resource<transient>"
CONSTANT_OPS = ("arith.constant", "flow.tensor.splat", "flow.tensor.constant")


def walk_ops(module: ir.Module) -> list[ir.Operation]:
    """Every operation nested in `module` (an `ir.Module`), outer before inner; valid while it lives."""
    return list(irx.walk_ops(module.operation))


def _defining_op(value):
    """The op that defines `value`, or None for a block argument."""
    return value.owner.operation if isinstance(value, ir.OpResult) else None


def tied_operands(dispatch) -> list[int]:
    """Operand indices (into all operands) that a `flow.dispatch`'s results are tied to.

    `tied_operands` holds, per result, an index into the `arguments` operand segment (or -1
    for an untied result); the segments are workload, arguments, argument_dims, result_dims,
    so an argument index is shifted by the workload's length.
    """
    attributes = dispatch.attributes
    if "tied_operands" not in attributes:
        return []
    workload = next(iter(attributes["operandSegmentSizes"])) if "operandSegmentSizes" in attributes else 0
    indices = []
    for entry in attributes["tied_operands"]:
        index = ir.IntegerAttr(entry).value
        if index >= 0:
            indices.append(workload + index)
    return indices


def _symbol_name(attr) -> str:
    """The name in a `sym_name` (StringAttr) or a symbol reference (FlatSymbolRefAttr)."""
    if isinstance(attr, ir.FlatSymbolRefAttr):
        return attr.value
    if isinstance(attr, ir.StringAttr):
        return attr.value
    return str(attr).lstrip("@").strip('"')


def readwrite_constant_dispatches(module) -> list[tuple[str, str]]:
    """(dispatch entry point, constant it updates in place) for each offending `flow.dispatch`."""
    return [(entry, what) for entry, what, _ in readwrite_constant_ops(module)]


def readwrite_constant_ops(module) -> list[tuple[str, str, object]]:
    """(dispatch entry point, constant it updates in place, the dispatch op) for each offending `flow.dispatch`.

    A constant is an `arith.constant`, `flow.tensor.splat`, `flow.tensor.constant`, or a
    `util.global.load` of a `util.global` that is not `mutable`.
    """
    ops = walk_ops(module)
    immutable_globals = {
        _symbol_name(op.attributes["sym_name"])
        for op in ops
        if op.name == "util.global" and "is_mutable" not in op.attributes
    }
    found = []
    for op in ops:
        if op.name != "flow.dispatch":
            continue
        for index in tied_operands(op):
            source = _defining_op(op.operands[index])
            if source is None:
                continue
            if source.name in CONSTANT_OPS:
                what = source.name
            elif source.name == "util.global.load" and _symbol_name(source.attributes["global"]) in immutable_globals:
                what = f"util.global.load @{_symbol_name(source.attributes['global'])}"
            else:
                continue
            entry = op.attributes["entry_points"]
            found.append((str(entry[0]) if len(entry) else "?", what, op))
            break
    return found


def source_locations(op) -> tuple[str, ...]:
    """The source `file:line:col` leaves of `op`'s location: what the compile was given, printed with
    --mlir-print-debuginfo (without it an op only has its place in the printed IR, which is dropped)."""
    return tuple(str(loc) for loc in location_leaves(str(op.location)) if loc.file != PARSED_BUFFER)


def _lifetime(value) -> str:
    """'transient' for a `!stream.resource<transient>` value (the type's parameter), else its type."""
    spelled = str(value.type)
    return spelled[len("!stream.resource<") : -1] if spelled.startswith("!stream.resource<") else spelled


def _copy_kind(op) -> str:
    """The kind of copy or transient allocation `op` is, or '' for any other op."""
    if op.name in COPY_OPS:
        operands = [v for v in op.operands if str(v.type).startswith("!stream.resource<")]
        flow = f"{_lifetime(operands[0])}->{_lifetime(operands[-1])}" if len(operands) >= 2 else ""
        if op.name != "stream.cmd.copy" and op.results:
            flow = f"{_lifetime(operands[0]) if operands else '?'}->{_lifetime(op.results[0])}"
        return f"{op.name} {flow}".strip()
    if op.name == "stream.resource.alloca" and any(str(r.type) == TRANSIENT_RESOURCE for r in op.results):
        return "stream.resource.alloca transient"
    if op.name in STREAM_DISPATCH_OPS and _is_slow_memcpy(op):
        resources = [v for v in op.operands if str(v.type).startswith("!stream.resource<")]
        target = op.results[0] if op.results else resources[-1] if resources else None
        if resources and target is not None:
            return f"slow_memcpy dispatch {_lifetime(resources[0])}->{_lifetime(target)}"
    return ""


def _is_slow_memcpy(dispatch) -> bool:
    # `in` and `[]`, not `.get`: the bindings of IREE 3.10 and older have no OpAttributeMap.get (a case
    # judged under an older release, oracles/releases/).
    entries = dispatch.attributes["entry_points"] if "entry_points" in dispatch.attributes else []  # noqa: SIM401
    return any(str(entry).endswith(SLOW_MEMCPY_SUFFIX) for entry in entries)


def transient_copy_symptoms(module) -> list[Symptom]:
    """Each copy (by op and source -> target lifetime) and transient allocation of a stream-phase
    module, in program order.

    The lifetimes tell copies apart: updating a global copies external -> variable, returning
    it copies variable -> external; a reduction must keep the kind of copy the bug is about.
    """
    found = []
    for op in walk_ops(module):
        kind = _copy_kind(op)
        if kind:
            found.append(Symptom(kind, function_of(op), source_locations(op), seeds=not kind.startswith("stream.resource.alloca")))
    return found
