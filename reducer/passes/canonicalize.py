"""Canonicalize and CSE the whole module as one candidate (kept only if it is smaller)."""

from __future__ import annotations

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from reducer.passes.base import IrPass


class Canonicalize(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Module]:
        return [module]

    def edit(self, module: ir.Module, chosen: list[ir.Module]) -> None:
        if chosen:
            PassManager.parse("builtin.module(canonicalize,cse,symbol-dce)", module.context).run(module.operation)
