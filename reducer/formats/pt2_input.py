"""PyTorch programs (`torch.export` archives, `.pt2`): reduced node by node on the FX graph; every
candidate is exported and imported again by IREE's FX importer (which verifies it) and carries
the MLIR it imports to. The result is written with that MLIR and a standalone repro script beside
it. torch is imported only inside the methods: nothing else of a reduction needs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from iree.compiler import ir

from oracles import Candidate, Oracle, OracleOptions, Verdict, refusals
from oracles.base import mlir_path_for, renamed
from oracles.formats import Format, suffix_of
from oracles.torch import torch_missing, torch_unsupported
from oracles.torch.imported import imported_program, script_path_for
from reducer.formats.adaptor import Beside, InputFormat, Loaded
from reducer.localize.function_slice import Localization
from reducer.localize.fx_nodes import localize_fx
from reducer.passes.kinds import InputKind
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem
from reducer.storage.atomic import write_atomically
from reducer.user_error import UserError

SUFFIX = suffix_of(Format.PT2)


def program_proposal(built, flags: Sequence[str], data: tuple[tuple[str, bytes], ...]) -> Proposal:
    """The proposal of a built program (reducer/graphs/torch_program.py): the archive, its imported MLIR, its nodes."""
    return Proposal(Candidate(built.text, tuple(flags), SUFFIX, built.archive, data), built.nodes)


class Pt2Input(InputFormat):
    name = ".pt2"
    judged_as = Format.PT2
    suffixes = (SUFFIX,)
    unit = "nodes"
    kinds = frozenset({InputKind.PT2})
    editor_preload = ("reducer.graphs.torch_program",)  # a .pt2's edits load torch: the worker imports it while the original compiles
    seeds_every_input = True  # a cut's inputs carry what the original computes there
    resume_keeps_data = True

    def unavailable(self) -> str | None:
        return torch_missing() or torch_unsupported()

    def check_output(self, input_path: Path, output_path: Path) -> None:
        missing = torch_missing()
        if missing:
            raise UserError(refusals.TORCH_MISSING.say(path=input_path, why=missing))
        unsupported = torch_unsupported()
        if unsupported:
            raise UserError(refusals.TORCH_UNSUPPORTED.say(path=input_path, why=unsupported))
        mlir, script = Path(mlir_path_for(str(output_path))), Path(script_path_for(str(output_path)))
        if output_path.suffix != SUFFIX or {mlir.resolve(), script.resolve()} & {output_path.resolve(), input_path.resolve()}:
            raise UserError(refusals.PT2_OUTPUT_NAME.say(output=output_path, mlir=mlir.name, script=script.name))

    def load(self, path: Path, raw: bytes, flags: tuple[str, ...], ctx: ir.Context, options: OracleOptions) -> Loaded:
        """The user's archive, checked, brought to the importer as `options.torch_import` asks and
        made as every candidate is (reducer/graphs/torch_program.py)."""
        from oracles.torch.decompositions import NotDecomposable  # imported late: they load torch
        from oracles.torch.importer import NotImportable
        from oracles.torch.program import ArchiveError, PickledModule
        from reducer.graphs.torch_program import normalised

        try:
            built = normalised(raw, options.torch_import)
        except PickledModule as err:
            raise UserError(refusals.PT2_PICKLED.say(path=path, error=err)) from None
        except NotDecomposable as err:
            raise UserError(refusals.PT2_NOT_DECOMPOSABLE.say(path=path, how=options.torch_import, error=err)) from None
        except NotImportable as err:
            raise UserError(refusals.PT2_NOT_IMPORTABLE.say(path=path, error=err)) from None
        except ArchiveError as err:
            raise UserError(refusals.PT2_UNREADABLE.say(path=path, error=err)) from None
        return Loaded(program_proposal(built, flags, ()), InputKind.PT2)

    def cannot_judge(self, oracle: Oracle, candidate: Candidate) -> str | None:
        return self.judging_oracle(oracle).cannot_judge(candidate)  # the wrapper refuses an oracle that judges ONNX models

    def read_case(self, path: Path, flags: tuple[str, ...]) -> Candidate:
        from reducer.graphs.torch_program import imported_text  # imported late: it loads torch

        data = path.read_bytes()
        return Candidate(imported_text(data), flags, SUFFIX, data)

    def localise(self, problem: ReductionProblem, source_name: str) -> Localization:
        return localize_fx(problem)

    def named_in_messages(self, verdict: Verdict, candidate: Candidate, output_path: Path) -> Verdict:
        verdict = super().named_in_messages(verdict, candidate, output_path)
        return renamed(verdict, "input.mlir", Path(mlir_path_for(str(output_path))).name)

    def write_beside(self, best: Proposal, oracle: Oracle, verdict: Verdict, output_path: Path,
                     log: Callable[[str], None]) -> Beside:
        """The imported MLIR (the candidate carries it) and the standalone repro script (`bug.reduced.py`)."""
        mlir = Path(mlir_path_for(str(output_path)))
        write_atomically(mlir, best.candidate.text)
        script_path, script_text = _write_script(best, oracle, verdict, output_path, log)
        return Beside(str(mlir), best.candidate.text, script_path, script_text)

    def failing_pass_case(self, best: Proposal, oracle: Oracle) -> Candidate | None:
        return Candidate(best.candidate.text, best.candidate.flags)  # the candidate carries its imported MLIR

    def mlir_of(self, case: Candidate, oracle: Oracle) -> Candidate | None:
        return imported_program(case)


def _write_script(best: Proposal, oracle: Oracle, verdict: Verdict, output_path: Path,
                  log: Callable[[str], None]) -> tuple[str | None, str | None]:
    from reducer.formats.torch_script import script  # imported late: it loads torch

    path = Path(script_path_for(str(output_path)))
    try:
        text = script(best.candidate, oracle, verdict.detail)
    except Exception as err:  # noqa: BLE001  (a program the writer cannot spell is still the result)
        path.unlink(missing_ok=True)  # never leave a script from an earlier run beside this result
        log(f"no repro script written: {type(err).__name__}: {err}")
        return None, None
    write_atomically(path, text)
    return str(path), text
