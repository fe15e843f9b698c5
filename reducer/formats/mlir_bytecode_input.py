"""MLIR bytecode (`.mlirbc`, which exporters write): read as bytecode, reduced as text (every pass
edits text, and a report shows it), and the result written as bytecode with its text beside it."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from oracles import Candidate, Oracle, Verdict, refusals
from oracles.mlir import ir as irx
from reducer.formats.adaptor import Beside
from reducer.formats.mlir_input import MlirInput
from reducer.proposal import Proposal
from reducer.storage.atomic import write_atomically
from reducer.user_error import UserError


def text_path_for(output_path: Path) -> Path:
    """`bug.reduced.mlirbc` -> `bug.reduced.mlir`: the result as text, beside the bytecode."""
    return output_path.with_suffix(".mlir")


class MlirBytecodeInput(MlirInput):
    name = "MLIR bytecode"
    suffixes = (".mlirbc",)

    def check_output(self, input_path: Path, output_path: Path) -> None:
        text = text_path_for(output_path)
        if text.resolve() in (output_path.resolve(), input_path.resolve()):
            raise UserError(refusals.MLIRBC_OUTPUT_NAME.say(output=output_path, text=text.name))

    def result_bytes(self, candidate: Candidate) -> bytes:
        buffer = io.BytesIO()
        irx.parse(candidate.text).operation.write_bytecode(buffer)
        return buffer.getvalue()

    def write_beside(self, best: Proposal, oracle: Oracle, verdict: Verdict, output_path: Path,
                     log: Callable[[str], None]) -> Beside:
        path = text_path_for(output_path)
        write_atomically(path, best.candidate.text)
        return Beside(str(path), best.candidate.text)
