"""Drop attributes the op does not require.

Only discardable attributes (namespaced `dialect.name`, e.g. `torch.onnx.pads`) and a few optional
inherent ones are candidates: deleting a required inherent attribute (a linalg.generic's
`iterator_types`) leaves an op the bindings' printer crashes on before the verifier can object.
A function's ONNX opset stays while it holds ONNX ops: without it none of them legalizes ("failed
to legalize operation 'torch.operator'"), an error of the edit's own making that every search of
attributes paid a compile or two for. A conv's group count other than 1 stays: without it the
conv reads more input channels than its weight takes, which no verifier checks and IREE's
lowering turns into an error of its own (a slice out of bounds), so the result would be an
invalid model that only looks like the bug (`reducer/graphs/onnx_model.py` refuses the same edit
of an ONNX model).
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass

_OPTIONAL_INHERENT = {"sym_visibility", "arg_attrs", "res_attrs"}
_KEPT_UNLESS_ONE = {"torch.onnx.group"}


def droppable(name: str, value: ir.Attribute) -> bool:
    if name in _KEPT_UNLESS_ONE and not _is_one(value):
        return False
    return "." in name or name in _OPTIONAL_INHERENT


def _is_one(value: ir.Attribute) -> bool:
    return isinstance(value, ir.IntegerAttr) and value.value == 1


class DropAttributes(IrPass):

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, str]]:
        found = []
        for func in irx.functions(module):
            ops = list(irx.walk_ops(func))
            kept = {irx.ONNX_OPSET} if any(irx.onnx_op_type(op) is not None for op in ops) else set()
            found.extend((func, name) for name in func.attributes if name not in kept and droppable(name, func.attributes[name]))
            for op in ops:
                found.extend((op, name) for name in op.attributes if droppable(name, op.attributes[name]))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, str]]) -> None:
        for op, name in chosen:
            del op.attributes[name]
