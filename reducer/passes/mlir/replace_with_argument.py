"""Turn an op's results into new function arguments."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.replacing import ReplaceResults, is_constant_like


class ReplaceWithArgument(ReplaceResults):
    top_level_only = True

    def qualifies(self, op: ir.Operation) -> bool:
        return irx.has_uses(op) and not is_constant_like(op)

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        block = irx.entry_block(func)
        for result in op.results:
            argument = block.add_argument(result.type, ir.Location.unknown())
            result.replace_all_uses_with(argument)
        irx.sync_arguments(func)
        return True
