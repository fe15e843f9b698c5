"""What passes that replace an op's results share: the walk over replaceable ops, zero constants of any type."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from oracles.mlir.types import read_tensor_type
from reducer.passes.support.ir_pass import IrPass

_CONSTANT_OPS = ("arith.constant", "torch.vtensor.literal", "torch.constant.")
# `torch.symbolic_int` declares a dynamic dim's symbol for `torch.bind_symbolic_shape`, whose
# verifier crashes the process (SIGSEGV in IREE 3.13's torch-mlir) when the symbol is anything
# else: 46 edits of a torch export's reduction died of it. Never a target.
_NEVER_REPLACED = ("torch.symbolic_int",)


def is_constant_like(op: ir.Operation) -> bool:
    if op.name.startswith(_CONSTANT_OPS):
        return True
    return irx.onnx_op_type(op) == "Constant"


def zero_attr(element: ir.Type) -> ir.Attribute | None:
    if isinstance(element, (ir.IntegerType, ir.IndexType)):
        return ir.IntegerAttr.get(element, 0)
    if isinstance(element, ir.FloatType):
        return ir.FloatAttr.get(element, 0.0)
    return None


def create_zero(value_type: ir.Type) -> ir.Operation | None:
    """A zero constant of `value_type` at the current insertion point, if the type has one."""
    if isinstance(value_type, ir.RankedTensorType):
        tensor = value_type
        zero = zero_attr(tensor.element_type)
        if zero is None or not tensor.has_static_shape:
            return None
        splat = ir.DenseElementsAttr.get_splat(tensor, zero)
        return ir.Operation.create("arith.constant", results=[value_type], attributes={"value": splat})
    zero = zero_attr(value_type)
    if zero is not None:
        return ir.Operation.create("arith.constant", results=[value_type], attributes={"value": zero})
    return _create_torch_zero(value_type)


def _create_torch_zero(value_type: ir.Type) -> ir.Operation | None:
    spelled = str(value_type)
    vtensor = read_tensor_type(spelled)
    if vtensor is not None and vtensor.torch and vtensor.dims is not None:
        if not vtensor.static:
            return None
        builtin = ir.RankedTensorType(ir.Type.parse(vtensor.builtin()))
        zero = zero_attr(builtin.element_type)
        if zero is None:
            return None
        splat = ir.DenseElementsAttr.get_splat(builtin, zero)
        return ir.Operation.create("torch.vtensor.literal", results=[value_type], attributes={"value": splat})
    scalars = {
        "!torch.int": ("torch.constant.int", lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)),
        "!torch.float": ("torch.constant.float", lambda: ir.FloatAttr.get(ir.F64Type.get(), 0.0)),
        "!torch.bool": ("torch.constant.bool", lambda: ir.BoolAttr.get(False)),
    }
    if spelled in scalars:
        name, attr = scalars[spelled]
        return ir.Operation.create(name, results=[value_type], attributes={"value": attr()})
    if spelled == "!torch.none":
        return ir.Operation.create("torch.constant.none", results=[value_type])
    return None


class ReplaceResults(IrPass):
    """Shared walk: subclasses say which ops qualify and what replaces one result."""

    top_level_only = False

    def qualifies(self, op: ir.Operation) -> bool:
        raise NotImplementedError

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        raise NotImplementedError

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, ir.Operation]]:
        found = []
        for func in irx.functions(module):
            ops = (
                [op.operation for op in irx.entry_block(func).operations] if self.top_level_only and irx.entry_block(func) else list(irx.walk_ops(func))
            )
            found.extend((op, func) for op in ops if len(op.results) and not irx.is_terminator(op)
                         and op.name not in _NEVER_REPLACED and self.qualifies(op))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, ir.Operation]]) -> None:
        # Back to front: an op nested in a chosen op is handled before its parent goes away.
        for op, func in reversed(chosen):
            if self.replace(op, func):
                op.erase()
        for func in irx.functions(module):
            irx.erase_dead(func)
