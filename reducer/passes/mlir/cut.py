"""Cut a function at a value: return it alone and drop what came after (Polygraphy's output move)."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.support.ir_pass import IrPass


def _largest_function(module: ir.Module) -> ir.Operation | None:
    called = irx.called_symbols(module)
    candidates = [f for f in irx.functions(module) if irx.entry_block(f) is not None and irx.symbol_name(f) not in called]
    return max(candidates, key=lambda f: len(list(irx.entry_block(f).operations)), default=None)


class CutAtValue(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Value]:
        func = _largest_function(module)
        if func is None:
            return []
        ops = [op.operation for op in irx.entry_block(func).operations]
        # Constants are never where a failure sits, and cutting at one breaks the bisection's order.
        return [result for op in ops if not irx.is_terminator(op) and len(op.operands) for result in op.results]

    def edit(self, module: ir.Module, chosen: list[ir.Value]) -> None:
        if not chosen:
            return
        value = chosen[0]
        func = _largest_function(module)
        block = irx.entry_block(func)
        ops = [op.operation for op in block.operations]
        terminator = ops[-1]
        owner = value.owner.operation
        position = next(i for i, op in enumerate(ops) if op == owner)
        with ir.InsertionPoint(terminator):
            ir.Operation.create(terminator.name, operands=[value])
        for op in reversed(ops[position + 1 :]):  # users come after their producers: erase back to front
            op.erase()
        fn_type = irx.function_type(func)
        irx.set_function_type(func, list(fn_type.inputs), [value.type])
        for attr in ("res_attrs",):
            if attr in func.attributes:
                del func.attributes[attr]
        irx.erase_dead(func)
