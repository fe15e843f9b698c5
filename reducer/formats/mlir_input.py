"""MLIR in any dialect IREE parses, as text or bytecode: reduced as text, op by op."""

from __future__ import annotations

from pathlib import Path

from iree.compiler import ir

from oracles import Candidate, OracleOptions, refusals
from oracles.formats import Format
from oracles.mlir import ir as irx
from reducer.formats.adaptor import InputFormat, Loaded
from reducer.localize.failure_site import localize
from reducer.localize.function_slice import Localization
from reducer.passes.kinds import EVERY_KIND, MLIR_KINDS, InputKind, mlir_kind
from reducer.passes.registry import PASSES, PassRow
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem
from reducer.user_error import UserError


class MlirInput(InputFormat):
    name = "MLIR"
    judged_as = Format.MLIR
    suffixes = (".mlir",)  # and any suffix no other format claims
    kinds = MLIR_KINDS

    def load(self, path: Path, raw: bytes, flags: tuple[str, ...], ctx: ir.Context, options: OracleOptions) -> Loaded:
        module, text = self.parse(path, raw, ctx)
        return Loaded(Proposal(Candidate(text, flags), irx.count_ops(module)), mlir_kind(module))

    def parse(self, path: Path, raw: bytes, ctx: ir.Context) -> tuple[ir.Module, str]:
        """Text or bytecode (which exporters write, whatever the suffix) as a module, and its text."""
        try:
            if raw.startswith(irx.BYTECODE_MAGIC):
                try:
                    module = irx.parse_bytecode(raw, ctx, source_name=str(path))
                except irx.ParseError as err:
                    raise UserError(refusals.MLIR_BYTECODE_UNREADABLE.say(path=path, error=err)) from None
                return module, irx.to_text(module)
            try:
                text = raw.decode()
            except UnicodeDecodeError:
                raise UserError(refusals.MLIR_NOT_TEXT.say(path=path)) from None
            return irx.parse(text, ctx, source_name=str(path)), text  # ParseError carries the location
        except irx.ParseError as err:
            raise UserError(refusals.UNPARSEABLE_MLIR.say(error=err)) from None

    def pass_rows(self, rows: tuple[PassRow, ...] = PASSES) -> list[PassRow]:
        """The rows of any MLIR kind; a row that also edits ONNX models (plain-values) runs when named."""
        return [row for row in rows
                if (InputKind.ONNX not in row.inputs and row.inputs & MLIR_KINDS) or row.inputs == EVERY_KIND]

    def localise(self, problem: ReductionProblem, source_name: str) -> Localization:
        return localize(problem, source_name)
