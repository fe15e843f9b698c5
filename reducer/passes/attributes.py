"""Drop attributes the verifier does not require (the verifier rejects the rest at no compile cost)."""

from __future__ import annotations

import iree.compiler.ir as ir

from reducer import ir as irx
from reducer.passes.base import IrPass

# Attributes whose removal always breaks the op: skip them instead of paying a verify each.
_STRUCTURAL = {"function_type", "sym_name", "operandSegmentSizes", "resultSegmentSizes", "value", "name", "callee"}


class DropAttributes(IrPass):
    name = "drop-attributes"
    description = "drop attributes the verifier does not require"

    def targets(self, module: ir.Module) -> list[tuple[ir.Operation, str]]:
        found = []
        for func in irx.functions(module):
            for op in [func, *irx.walk_ops(func)]:
                found.extend((op, name) for name in op.attributes if name not in _STRUCTURAL)
        return found

    def edit(self, module: ir.Module, chosen: list[tuple[ir.Operation, str]]) -> None:
        for op, name in chosen:
            del op.attributes[name]
