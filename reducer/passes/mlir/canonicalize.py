"""Canonicalize and CSE the whole module as one candidate (kept only if it is smaller)."""

from __future__ import annotations

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from reducer.passes.support.ir_pass import IrPass


class Canonicalize(IrPass):

    def targets(self, module: ir.Module) -> list[ir.Module]:
        return [module]

    def edit(self, module: ir.Module, chosen: list[ir.Module]) -> None:
        if not chosen:
            return
        try:
            PassManager.parse("builtin.module(canonicalize,cse,symbol-dce)", module.context).run(module.operation)
        except ir.MLIRError:
            pass  # the pipeline rejects this IR (e.g. SPIR-V in front of a codegen pass): no candidate from it
