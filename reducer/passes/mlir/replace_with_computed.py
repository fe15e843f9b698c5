"""Turn an op's results into `neg` of new function arguments: computed values without their inputs.

replace-with-argument makes a value an input: for a transient-copy bug that changes its lifetime
(an argument is external, a computed value transient), and the copy it was about goes. An
elementwise op of a new argument keeps the value computed while what computed it (an embedding's
table lookup and its constants, a chain of views) goes.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from oracles.mlir.types import read_tensor_type
from reducer.passes.support.replacing import ReplaceResults, is_constant_like

FLOATS = ("f16", "bf16", "f32", "f64")


def negation(value_type: ir.Type) -> str | None:
    """The elementwise negation op for a value of `value_type`, if it has one."""
    spelled = read_tensor_type(str(value_type))
    if spelled is None or spelled.dims is None:
        return None
    if spelled.torch:
        return "torch.aten.neg" if spelled.element in FLOATS or spelled.element.startswith("si") else None
    return "arith.negf" if spelled.element in FLOATS else None


def _negated_argument(op: ir.Operation) -> bool:
    return op.name in ("torch.aten.neg", "arith.negf") and isinstance(op.operands[0].owner, ir.Block)


class ReplaceWithComputed(ReplaceResults):
    top_level_only = True

    def qualifies(self, op: ir.Operation) -> bool:
        computed_from_ops = any(not isinstance(v.owner, ir.Block) for v in op.operands)
        return (irx.has_uses(op) and not is_constant_like(op) and computed_from_ops and not _negated_argument(op)
                and all(negation(r.type) is not None for r in op.results))

    def replace(self, op: ir.Operation, func: ir.Operation) -> bool:
        block = irx.entry_block(func)
        for result in op.results:
            argument = block.add_argument(result.type, ir.Location.unknown())
            with ir.InsertionPoint(op):
                negated = ir.Operation.create(negation(result.type), results=[result.type], operands=[argument])
            result.replace_all_uses_with(negated.results[0])
        irx.sync_arguments(func)
        return True
