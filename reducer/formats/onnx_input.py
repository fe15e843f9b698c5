"""ONNX models: reduced node by node as a graph; each candidate is imported by iree-import-onnx
first, and the result is written with the MLIR it imports to beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from iree.compiler import ir

from oracles import Candidate, Oracle, OracleOptions, Verdict, refusals
from oracles.base import renamed
from oracles.formats import Format, suffix_of
from oracles.numeric.dispatch_test import DispatchTest
from oracles.onnx.importer import INNER_DIR, as_program_data, import_model, mlir_path_for
from oracles.toolchain.tools import scratch_dir
from reducer.formats.adaptor import Beside, InputFormat, Loaded
from reducer.graphs import onnx_model
from reducer.localize.failure_site import localize
from reducer.localize.function_slice import Localization
from reducer.localize.wrong_value import write_program_test, wrong_dispatch_path
from reducer.passes.kinds import InputKind
from reducer.passes.onnx.pin_dims import DynamicNeed, dynamic_need
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem
from reducer.storage.atomic import write_atomically
from reducer.user_error import UserError


class OnnxInput(InputFormat):
    name = "ONNX"
    judged_as = Format.ONNX
    suffixes = (suffix_of(Format.ONNX),)
    unit = "nodes"
    kinds = frozenset({InputKind.ONNX})
    tools = ("iree-compile", "iree-import-onnx")

    def check_output(self, input_path: Path, output_path: Path) -> None:
        mlir = Path(mlir_path_for(str(output_path)))
        if mlir.resolve() in (output_path.resolve(), input_path.resolve()):
            raise UserError(refusals.ONNX_OUTPUT_NAME.say(output=output_path, mlir=mlir.name))

    def load(self, path: Path, raw: bytes, flags: tuple[str, ...], ctx: ir.Context, options: OracleOptions) -> Loaded:
        try:
            data = onnx_model.read_model_file(path)
            model = onnx_model.load_bytes(data)
        except onnx_model.OnnxLoadError as err:
            raise UserError(refusals.INVALID_ONNX.say(path=path, error=err)) from None
        candidate = Candidate(onnx_model.describe(model), flags, suffix_of(Format.ONNX), data)
        return Loaded(Proposal(candidate, onnx_model.node_count(model)), InputKind.ONNX)

    def read_case(self, path: Path, flags: tuple[str, ...]) -> Candidate:
        return Candidate(path.stem, flags, suffix_of(Format.ONNX), path.read_bytes())

    def localise(self, problem: ReductionProblem, source_name: str) -> Localization:
        return localize(problem, source_name)

    def dynamic_need(self, problem: ReductionProblem, original: Proposal) -> DynamicNeed | None:
        return dynamic_need(problem, original)

    def named_in_messages(self, verdict: Verdict, candidate: Candidate, output_path: Path) -> Verdict:
        verdict = super().named_in_messages(verdict, candidate, output_path)
        return renamed(verdict, f"{INNER_DIR}/input.mlir", Path(mlir_path_for(str(output_path))).name)

    def write_beside(self, best: Proposal, oracle: Oracle, verdict: Verdict, output_path: Path,
                     log: Callable[[str], None]) -> Beside:
        """The reduced model's imported MLIR next to it (none when it does not import)."""
        text = self.mlir_of(best.candidate, oracle)
        input_text = onnx_model.to_text(onnx_model.parse(best.candidate.binary))
        path = Path(mlir_path_for(str(output_path)))
        if text is None:
            path.unlink(missing_ok=True)  # never leave an MLIR from an earlier run beside this result
            log(f"the reduced model does not import; no {path.name} written")
            return Beside(input_text=input_text)
        write_atomically(path, text.text)
        return Beside(str(path), text.text, input_text=input_text)

    def failing_pass_case(self, best: Proposal, oracle: Oracle) -> Candidate | None:
        return self.mlir_of(best.candidate, oracle)

    def mlir_of(self, case: Candidate, oracle: Oracle) -> Candidate | None:
        with scratch_dir() as tmp:
            options = oracle.options
            text, _ = import_model(case.binary, Path(tmp), options.limits, options.opset_version)
        return Candidate(text, case.flags) if text is not None else None

    def wants_case_test(self, oracle: Oracle, beside: Beside) -> bool:
        return oracle.name == "miscompile" and bool(beside.mlir_text)

    def case_test(self, oracle: Oracle, best: Proposal, beside: Beside, output_path: Path,
                  log: Callable[[str], None]) -> DispatchTest | None:
        """A miscompile's reduced case has no MLIR to localise on: its imported program, the wrong
        pipeline's module against the right one's outputs, is the test (`OUTPUT.wrong-dispatch/`)."""
        program = Candidate(beside.mlir_text, best.candidate.flags,
                            data=as_program_data(best.candidate.data, best.candidate.binary, oracle.options.seed))
        test = write_program_test(oracle, program, wrong_dispatch_path(output_path))
        log(f"test of the reduced case in {test.directory}: "
            f"{'reproduces alone' if test.reproduces else 'does NOT reproduce alone'} ({test.detail})")
        return test
