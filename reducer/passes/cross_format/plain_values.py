"""Plain values: scales to 1 or powers of two, zero points to small integers, data to small integers.

A wrong answer is only as convincing as its numbers: a 1-node repro with an output scale of 64,
odd zero points and random weights is wrong by 2 LSB and reads like rounding. Each constant an
op reads as a scale, zero point or data (reducer/passes/support/value_ladders.py) is a target whose size
is its level on its ladder; the shrink search takes each to the plainest rung on which the
calibrated oracle still sees the original's wrong answer (same kind, at least --wrong-share of its
fraction and error) with no smaller wrong fraction and error than before the edit or than the
original's, so a value
that would hide the error (an output scale that rounds it away, a zero point of 0 that removes the
bug) is never kept. On ONNX models it edits initializers and
Constant nodes; on torch-onnx IR the `onnx.Constant` and `torch.vtensor.literal` ops in place
(a dense_resource blob, which the bindings cannot read, gets only the rungs that need no value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from iree.compiler import ir
from onnx import numpy_helper

from oracles import Verdict
from oracles.mlir import ir as irx
from oracles.numeric.wrong_answer import at_least_as_wrong
from reducer.graphs import onnx_model
from reducer.passes.support.ir_pass import edited_proposal
from reducer.passes.support.onnx_edit import constant_value, is_constant
from reducer.passes.support.value_ladders import ROLES, Ladder, ladder, role_of
from reducer.proposal import Proposal
from reducer.search.protocol import Convert, ShrinkPass

_TORCH_CONSTANTS = {"torch.vtensor.literal": "value"}  # op -> attribute holding the data
_ONNX_CONSTANT_ATTR = "torch.onnx.value"


@dataclass(frozen=True)
class _Target:
    key: str
    role: str
    ladder: Ladder


def _usable(dtype: np.dtype) -> bool:
    return dtype.kind in "iuf" and dtype.itemsize <= 8 and dtype.name in np.sctypeDict


def _as_plain(best: Verdict, verdict: Verdict) -> bool:
    return at_least_as_wrong(best.metrics, verdict.metrics)


class PlainValues(ShrinkPass):
    """Targets are constants read as scales, zero points or data; sizes are ladder levels.

    A plainer value is kept only while the wrong answer stays at least as plain: the same kind,
    no smaller wrong fraction and no smaller error than the best's or the original's (not only
    the calibrated share of the original's).
    """

    keeps = staticmethod(_as_plain)

    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        """Scales first, then zero points, then data: the values that set the arithmetic's scale
        decide how large an error the data can show."""
        targets = sorted(self._targets(current, ctx), key=lambda t: ROLES.index(t.role))
        return [(t.key, t.ladder.level) for t in targets if t.ladder.level > 1]

    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        target = next((t for t in self._targets(current, ctx) if t.key == key), None)
        if target is None or size >= target.ladder.level:
            return None
        value = target.ladder.at(size)
        if value is None:
            return None
        if current.candidate.binary is not None:
            return _set_onnx(current, key, value)
        return _set_torch(current, key, value, ctx)

    def _targets(self, current: Proposal, ctx: ir.Context) -> list[_Target]:
        if current.candidate.binary is not None:
            return _onnx_targets(onnx_model.parse(current.candidate.binary))
        if '"onnx.' not in current.candidate.text:
            return []
        with ctx, ir.Location.unknown(ctx):
            return [t for t, _ in _torch_targets(irx.parse(current.candidate.text, ctx))]


# --- ONNX models --------------------------------------------------------------------------------


def _onnx_values(model: onnx.ModelProto) -> dict[str, onnx.TensorProto]:
    values = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        value = constant_value(node) if is_constant(node) else None
        if value is not None and node.output:
            values[node.output[0]] = value.t
    return values


def _onnx_targets(model: onnx.ModelProto) -> list[_Target]:
    uses: dict[str, list[tuple[str, int]]] = {}
    for node in model.graph.node:
        for position, name in enumerate(node.input):
            uses.setdefault(name, []).append((node.op_type, position))
    for output in model.graph.output:
        uses.setdefault(output.name, []).append(("graph output", 0))
    targets = []
    for name, tensor in _onnx_values(model).items():
        role = role_of(uses.get(name, []))
        if role is None or tensor.data_location == onnx.TensorProto.EXTERNAL:
            continue
        try:
            array = numpy_helper.to_array(tensor)
        except (ValueError, TypeError, KeyError):
            continue
        if _usable(array.dtype):
            targets.append(_Target(name, role, ladder(role, array, array.dtype, tuple(array.shape))))
    return targets


def _set_onnx(current: Proposal, name: str, value: np.ndarray) -> Proposal | None:
    model = onnx_model.parsed_copy(current.candidate.binary)
    tensor = _onnx_values(model).get(name)
    if tensor is None:
        return None
    tensor.CopyFrom(numpy_helper.from_array(np.array(value, order="C"), tensor.name))
    onnx_model.check(model)  # OnnxLoadError (a CandidateRejected) when the checker rejects the value
    data = onnx_model.serialise(model)
    if data == current.candidate.binary:
        return None
    return Proposal(current.candidate.with_binary(onnx_model.describe(model), data), onnx_model.node_count(model))


# --- torch-onnx IR ------------------------------------------------------------------------------


def _numpy_type(element: ir.Type) -> np.dtype | None:
    if isinstance(element, ir.IntegerType):
        if element.width not in (8, 16, 32, 64):
            return None
        return np.dtype(f"{'uint' if element.is_unsigned else 'int'}{element.width}")
    for kind, name in ((ir.F16Type, "float16"), (ir.F32Type, "float32"), (ir.F64Type, "float64")):
        if isinstance(element, kind):
            return np.dtype(name)
    return None


def _constant_attr(op: ir.Operation) -> str | None:
    if irx.onnx_op_type(op) == "Constant":
        return _ONNX_CONSTANT_ATTR if _ONNX_CONSTANT_ATTR in op.attributes else None
    name = _TORCH_CONSTANTS.get(op.name)
    return name if name is not None and name in op.attributes else None


def _read(attr: ir.Attribute, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray | None:
    """The data of a dense attribute; None for a dense_resource blob (the bindings cannot read it)."""
    if not isinstance(attr, ir.DenseElementsAttr):
        return None
    try:
        if attr.is_splat:
            return np.full(shape, np.array(ir.DenseElementsAttr(attr).get_splat_value().value), dtype=dtype)
        return np.array(attr).astype(dtype).reshape(shape)
    except (ValueError, TypeError, RuntimeError, AttributeError):
        return None


def _torch_targets(module: ir.Module) -> list[tuple[_Target, tuple[ir.Operation, str, ir.Type]]]:
    found = []
    for index, op in enumerate(o for o in irx.walk_ops(module.operation) if _constant_attr(o)):
        attr_name = _constant_attr(op)
        attr = op.attributes[attr_name]
        try:
            shaped = ir.ShapedType(attr.type)
        except ValueError:
            continue
        dtype = _numpy_type(shaped.element_type)
        if dtype is None or not shaped.has_static_shape:
            continue
        uses = []
        for use in op.results[0].uses:
            user = use.owner if isinstance(use.owner, ir.Operation) else use.owner.operation
            uses.append((irx.onnx_op_type(user) or user.name, use.operand_number))
        role = role_of(uses)
        if role is None:
            continue
        shape = tuple(shaped.shape)
        target = _Target(f"constant {index}", role, ladder(role, _read(attr, dtype, shape), dtype, shape))
        found.append((target, (op, attr_name, shaped.element_type)))
    return found


def _set_torch(current: Proposal, key: str, value: np.ndarray, ctx: ir.Context) -> Proposal | None:
    module = irx.parse(current.candidate.text, ctx)
    with ctx, ir.Location.unknown(ctx):
        where = next((place for target, place in _torch_targets(module) if target.key == key), None)
        if where is None:
            return None
        op, attr_name, element = where
        op.attributes[attr_name] = ir.DenseElementsAttr.get(np.array(value, order="C"), type=element, shape=list(value.shape))
    return edited_proposal(current, module)
