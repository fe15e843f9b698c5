"""Turn constants into new function arguments."""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.mlir.replace_with_argument import ReplaceWithArgument
from reducer.passes.support.replacing import is_constant_like


class ConstantsToArguments(ReplaceWithArgument):
    """Apart from replace-with-argument, and after it: a constant is often what the failure needs
    (const-eval, folding and the importer's quantisation lowering read it), so trying constants
    with the other ops would spend ddmin's chunks on edits that fail. Where the failure stays with
    the constant made data, the program is smaller; compile-only (registry.py): a wrong answer
    keeps its constants."""

    def qualifies(self, op: ir.Operation) -> bool:
        return irx.has_uses(op) and is_constant_like(op)
