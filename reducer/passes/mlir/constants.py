"""Strip constant data: dense and resource-backed constants become zero splats of the same type."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass
from reducer.passes.support.replacing import zero_attr


def _is_resource(attr: ir.Attribute) -> bool:
    try:
        ir.DenseResourceElementsAttr(attr)
        return True
    except ValueError:
        return False


def _strippable(attr: ir.Attribute) -> bool:
    if isinstance(attr, ir.DenseElementsAttr):
        return not attr.is_splat
    return _is_resource(attr)


class SplatConstants(IrPass):

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, str]]:
        found = []
        for op in irx.walk_ops(module.operation):
            for name in op.attributes:
                attr = op.attributes[name]
                if _strippable(attr) and zero_attr(ir.ShapedType(attr.type).element_type) is not None:
                    found.append((op, name))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, str]]) -> None:
        for op, name in chosen:
            shaped = ir.ShapedType(op.attributes[name].type)
            op.attributes[name] = ir.DenseElementsAttr.get_splat(shaped, zero_attr(shaped.element_type))
