"""Turn constants into new function arguments (one-pass repros only)."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.mlir.replace_with_argument import ReplaceWithArgument
from reducer.passes.support.replacing import is_constant_like


class ConstantsToArguments(ReplaceWithArgument):
    """Not for a source repro, which keeps its constants (const-eval and folding read them); a
    one-pass repro runs one pass, where an argument is as good as a constant if the failure stays."""

    def qualifies(self, op: ir.Operation) -> bool:
        return irx.has_uses(op) and is_constant_like(op)
