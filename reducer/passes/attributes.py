"""Drop attributes the op does not require.

Only discardable attributes (namespaced `dialect.name`, e.g. `torch.onnx.pads`) and a few optional
inherent ones are candidates: deleting a required inherent attribute (a linalg.generic's
`iterator_types`) leaves an op the bindings' printer crashes on before the verifier can object.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.base import IrPass

_OPTIONAL_INHERENT = {"sym_visibility", "arg_attrs", "res_attrs"}


def droppable(name: str) -> bool:
    return "." in name or name in _OPTIONAL_INHERENT


class DropAttributes(IrPass):

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, str]]:
        found = []
        for func in irx.functions(module):
            for op in [func, *irx.walk_ops(func)]:
                found.extend((op, name) for name in op.attributes if droppable(name))
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, str]]) -> None:
        for op, name in chosen:
            del op.attributes[name]
