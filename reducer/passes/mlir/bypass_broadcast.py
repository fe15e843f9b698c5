"""Let broadcasting elementwise ops read past an op that only broadcasts or casts their operand.

`mul(x, unsqueeze(convert(y)))`: a torch (or ONNX) add, mul, where ... broadcasts its operands
to its result's shape and casts them to its element type, so an `unsqueeze`, `expand`, a view
that adds unit dims or a float cast in front of it redoes what the op does anyway. The target
is each op whose first tensor operand broadcasts to its result (right-aligned, each dim 1 or
equal; floats to floats) and whose every user broadcasts; the edit makes the users read that
operand and erases the op. Forwarding a same-typed operand is replace-with-operand's job: here
the types differ, which is why nothing else removes these ops.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from oracles.mlir.types import TensorSpelling, read_tensor_type
from reducer.passes.support.ir_pass import IrPass
from reducer.passes.support.replacing import is_constant_like

# Elementwise ops that broadcast their tensor operands (torch.aten names, ONNX names under torch.operator).
TORCH_BROADCASTING = frozenset(f"torch.aten.{name}" for name in (
    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "maximum", "minimum", "where.self", "pow.Tensor_Tensor",
    "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor", "logical_and", "logical_or"))
ONNX_BROADCASTING = frozenset((
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Where", "Equal", "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "And", "Or"))
FLOATS = ("f16", "bf16", "f32", "f64")


def broadcasts(op: ir.Operation) -> bool:
    if op.name == "torch.operator":
        return irx.onnx_op_type(op) in ONNX_BROADCASTING
    return op.name in TORCH_BROADCASTING


def broadcasts_to(source: TensorSpelling, target: TensorSpelling) -> bool:
    """Whether `source` broadcasts to `target`'s shape and its elements cast to target's as a float op does."""
    if source.dims is None or target.dims is None or len(source.dims) > len(target.dims):
        return False
    same_kind = source.element == target.element or (source.element in FLOATS and target.element in FLOATS)
    aligned = target.dims[len(target.dims) - len(source.dims):]
    return same_kind and all(s == 1 or s == t for s, t in zip(source.dims, aligned))


def bypassed_operand(op: ir.Operation) -> ir.Value | None:
    """The operand `op`'s users can read instead of its result, or None."""
    if len(op.results) != 1 or is_constant_like(op) or not irx.has_uses(op):
        return None
    result = op.results[0]
    target = read_tensor_type(str(result.type))
    source_value = next((v for v in op.operands if read_tensor_type(str(v.type)) is not None), None)
    if target is None or source_value is None or source_value.type == result.type:
        return None
    source = read_tensor_type(str(source_value.type))
    if source.torch != target.torch or not broadcasts_to(source, target):
        return None
    return source_value if all(broadcasts(use.owner.operation) for use in result.uses) else None


class BypassBroadcast(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Operation]:
        return [op for func in irx.functions(module) for op in irx.walk_ops(func) if bypassed_operand(op) is not None]

    def edit(self, module: ir.Module, chosen: list[ir.Operation]) -> None:
        for op in reversed(chosen):  # a later op first: an earlier one may be what it reads
            operand = bypassed_operand(op)
            if operand is not None:
                op.results[0].replace_all_uses_with(operand)
                op.erase()
        for func in irx.functions(module):
            irx.erase_dead(func)
