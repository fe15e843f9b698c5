"""Replace an op's results with zero constants."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.replacing import ReplaceResults, create_zero, is_constant_like


class ReplaceWithConstant(ReplaceResults):

    def qualifies(self, op: ir.Operation) -> bool:
        return irx.has_uses(op) and not is_constant_like(op) and len(op.operands) > 0

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        zeros = []
        with ir.InsertionPoint(op):
            for result in op.results:
                zero = create_zero(result.type)
                if zero is None:
                    for made in zeros:
                        made.erase()
                    return False
                zeros.append(zero)
        for result, zero in zip(op.results, zeros):
            result.replace_all_uses_with(zero.results[0])
        return True
