"""Every oracle, in the order `reduce --list-oracles` prints them: the whole declaration.

One row per oracle: what makes a candidate interesting, the inputs it judges, what it runs and
reads, and how it is pinned to the original's failure once calibrated. `fuzz` finds cases with
these oracles; `reduce` shrinks them with the same ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles import refusals
from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.compiling.compile_failure import CompileError, Crash, Timeout
from oracles.compiling.ir_phase import (
    DispatchCount,
    IrMatch,
    ReadwriteConstant,
    TransientCopy,
)
from oracles.compiling.lds import LdsLimit
from oracles.formats import Format, format_of
from oracles.numeric.eager_mismatch import EagerMismatch
from oracles.numeric.miscompile import Miscompile
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.numeric.run_error import RunError
from oracles.onnx.importer import onnx_oracle
from oracles.script import Script
from oracles.torch.imported import torch_oracle


@dataclass(frozen=True)
class OracleRow:
    """One oracle: its class (which holds its name) and its declaration."""

    oracle: type[Oracle]
    inputs: str  # what it judges: MLIR (any level), ONNX (a model, imported per candidate), .pt2 (a torch.export program, imported per candidate)
    runs: str  # what one call runs and reads
    summary: str  # when a candidate is interesting

    @property
    def name(self) -> str:
        return self.oracle.name


# Every input format: an ONNX model or a .pt2 program is imported per candidate and judged as its MLIR.
ANY_INPUT = "MLIR, ONNX, .pt2"

ORACLE_TABLE: tuple[OracleRow, ...] = (
    OracleRow(LdsLimit, ANY_INPUT, "full compile; kernel metadata (group_segment_fixed_size, .shared)",
              "a dispatch overruns shared memory (LDS): the compiler's own error, or with --lds-bytes N any "
              "dispatch above N; gfx942 unless the flags name a GPU; calibrated, a dispatch of the original's kind "
              "(matmul_like, conv, reduction, ...) unless --any-dispatch"),
    OracleRow(CompileError, ANY_INPUT, "compile to the first failing phase; diagnostics",
              "compilation fails with the original's normalised error signature (or --match REGEX)"),
    OracleRow(Crash, ANY_INPUT, "full compile, isolated; signal and assertion text",
              "the compiler dies by a signal or an assertion with the original's signature"),
    OracleRow(Timeout, ANY_INPUT, "full compile, isolated, cut at --hang-seconds or at a deadlock",
              "compilation runs past --hang-seconds, or deadlocks (every thread blocked, no CPU time for 5 s); "
              "calibrated, the original's kind of hang"),
    OracleRow(TransientCopy, ANY_INPUT, "--compile-to=stream; the stream schedule",
              "the stream schedule keeps every kind of copy (op or *_slow_memcpy dispatch, source -> target "
              "lifetime) and transient allocation the original had (one of each), or --keep's one, or --threshold N "
              "in total"),
    OracleRow(ReadwriteConstant, ANY_INPUT, "--compile-to=flow; flow.dispatch ties",
              "a flow.dispatch updates a constant or an immutable global in place; calibrated, every kind the "
              "original had (dispatch kind, constant or immutable global), or --keep's one"),
    OracleRow(DispatchCount, ANY_INPUT, "--compile-to=--phase (default flow); dispatch ops",
              "at least --threshold N dispatches at --phase (a missed fusion)"),
    OracleRow(IrMatch, ANY_INPUT, "--compile-to=--phase; the printed IR",
              "regex --pattern matches the IR at --phase at least --threshold times (default 1)"),
    OracleRow(Miscompile, ANY_INPUT, "two compiles (--pipeline-a, --pipeline-b) and two iree-run-module runs, each on the "
              "device its pipeline targets (--device-a, --device-b name others)",
              "the two pipelines give different results on the same inputs (seeded, or --inputs) beyond a dtype-aware tolerance; "
              "calibrated, wrong the original's way (kind, output, at least --wrong-share of its fraction and error); "
              "never when the program reads a tensor.empty value; with --expected-outputs and no --pipeline-b, B is the "
              "reference pipeline llvm-cpu-O0 (generic CPU, --iree-opt-level=O0, --iree-opt-data-tiling=false, "
              "--iree-llvmcpu-enable-ukernels=none), which must match them"),
    OracleRow(ReferenceMismatch, "MLIR, ONNX", "import, compile, iree-run-module; onnx.reference on the same inputs",
              "IREE's outputs (the flags' pipeline, seeded inputs or --inputs) differ from onnx.reference beyond tolerance; "
              "MLIR must be torch-onnx IR (iree-import-onnx output): it runs as it is, against the ONNX graph it lifts to "
              "(its weights included, arguments bound by position); other IR is refused, naming the op that stops the lift; "
              "calibrated, wrong the original's way (kind, output, at least --wrong-share of its fraction and error)"),
    OracleRow(EagerMismatch, ".pt2", "compile, iree-run-module; the program run eagerly by PyTorch on the same inputs",
              "IREE's outputs (the flags' pipeline, seeded inputs, --inputs or --dim sizes) differ from PyTorch eager beyond "
              "tolerance; calibrated, wrong the original's way (kind, output, at least --wrong-share of its fraction and error)"),
    OracleRow(RunError, ANY_INPUT, "full compile, iree-run-module on the device the compile targets (a GPU's too; --device "
              "names another); its status",
              "the compiled program fails when it runs on seeded inputs (or --inputs): the runtime's status (code and "
              "message, numbers normalised) or its signal; calibrated, the original's; a run that rejects its own inputs "
              "is refused"),
    OracleRow(Script, ANY_INPUT, "--cmd with {} the candidate path; flags in $IREE_FLAGS",
              "the external command exits 0 (as in C-Vise and llvm-reduce)"),
)

ORACLES: dict[str, type[Oracle]] = {row.name: row.oracle for row in ORACLE_TABLE}


def make_oracle(name: str, options: OracleOptions | None = None) -> Oracle:
    if name not in ORACLES:
        raise OracleSetupError(refusals.UNKNOWN_ORACLE.say(name=name, valid=", ".join(ORACLES)))
    if options is not None and options.keep and not getattr(ORACLES[name], "has_symptoms", False):
        raise OracleSetupError(refusals.KEEP_WRONG_ORACLE.say(name=name))
    return ORACLES[name](options)


# The oracle that judges a candidate of each format: an ONNX model imported first, a `.pt2` program on the
# MLIR it carries (or run eagerly); MLIR is judged as it is.
JUDGE_WRAPPERS = {Format.ONNX: onnx_oracle, Format.PT2: torch_oracle}


def oracle_for_input(oracle: Oracle, where: Format | str) -> Oracle:
    """The oracle that judges an input of this format (or of this path or suffix)."""
    fmt = where if isinstance(where, Format) else format_of(where)
    wrap = JUDGE_WRAPPERS.get(fmt)
    return wrap(oracle) if wrap is not None else oracle


def table() -> str:
    """The table as `reduce --list-oracles` prints it."""
    lines = [f"{'oracle':19} {'inputs':16} {'one call runs':72} interesting when"]
    lines += [f"{row.name:19} {row.inputs:16} {row.runs:72} {row.summary}" for row in ORACLE_TABLE]
    return "\n".join(lines)
