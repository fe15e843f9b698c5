"""Forward a same-typed operand in place of an op's results."""

from __future__ import annotations

from iree.compiler import ir

from reducer.passes.replacing import ReplaceResults


class ReplaceWithOperand(ReplaceResults):

    def qualifies(self, op: ir.Operation) -> bool:
        operand_types = [str(v.type) for v in op.operands]
        return all(str(r.type) in operand_types for r in op.results)

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        for result in op.results:
            operand = next(v for v in op.operands if v.type == result.type)
            result.replace_all_uses_with(operand)
        return True
