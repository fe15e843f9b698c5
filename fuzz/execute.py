"""One fuzz case: build the model, import it, compile it through each pipeline, run, compare.

Two backends do the IREE work. `InProcess` keeps a warm compiler and runtime in the worker
process (about twice as fast per compile); the campaign runs it in a process pool, so a compiler
crash kills only a worker. `Isolated` runs every tool as a child process with a timeout and a
memory cap (the oracles' toolchain); the campaign re-runs a case with it when a worker died or
hung. A compile that fails in-process reports the diagnostics the compiler printed, caught
from the worker's stderr, as the tool would have printed them.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx

from fuzz.build import build_model, describe, make_inputs
from fuzz.pipelines import Pipeline
from fuzz.spec import GraphSpec
from oracles import Candidate
from oracles.compiling.lds import OVERRUN
from oracles.compiling.signature import (
    crash_signature,
    error_signature,
    first_error,
    is_crash,
    normalise,
)
from oracles.numeric.compare import compare_outputs
from oracles.numeric.run import run_module
from oracles.onnx.importer import import_error_line, import_model
from oracles.onnx.reference import is_quantized, reduction_length, reference_outputs
from oracles.toolchain.tools import Limits, ProcessResult, compile_candidate
from oracles.toolchain.warm import COMPILE_FROM, COMPILE_TO, compile_capturing

SHARED_PHASE = "input"  # compiled once per case, then each pipeline goes on from it
# Finding classes, as the fuzzer reports them.
IMPORT_FAILURE, COMPILE_ERROR, CRASH, TIMEOUT, LDS_OVERRUN, MISMATCH = (
    "import failure",
    "compile error",
    "crash",
    "timeout",
    "LDS overrun",
    "mismatch",
)


@dataclass
class Finding:
    kind: str
    pipeline: str
    signature: str  # normalised: the dedup key
    detail: str


@dataclass
class PipelineRun:
    pipeline: str
    status: str  # "ok", "compiled" (GPU, not run), a finding kind, or "run error"
    seconds: float
    detail: str = ""
    max_abs: float = 0.0  # against the reference
    mismatch_fraction: float = 0.0  # of the elements beyond tolerance
    agreement: str = ""  # against the case's first pipeline that ran


@dataclass
class CaseResult:
    seed: int
    spec_json: str
    description: str
    runs: list[PipelineRun] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    backend: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def classify_compile_failure(process: ProcessResult) -> tuple[str, str]:
    """(finding kind, normalised signature) of a failed compile."""
    if process.timed_out:
        return TIMEOUT, "timeout: compile"
    if is_crash(process.returncode, process.stderr):
        return CRASH, crash_signature(process.returncode, process.stderr, process.signal_name)
    if OVERRUN.search(process.stderr):
        return LDS_OVERRUN, error_signature(process.stderr)
    return COMPILE_ERROR, error_signature(process.stderr)


class Isolated:
    """Every tool in its own process: nothing the compiler does can take the campaign down."""

    name = "isolated"

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def import_onnx(self, model: onnx.ModelProto, workdir: Path, opset_version: int | None = None) -> tuple[str | None, str]:
        """Imported MLIR, or None and the importer's error (its exception line, not 'Traceback')."""
        text, process = import_model(model.SerializeToString(), workdir, self.limits, opset_version)
        return text, "" if text is not None else (import_error_line(process.stderr) or f"exit {process.returncode}")

    def compile(self, mlir: str, flags: tuple[str, ...], workdir: Path) -> tuple[Path | None, ProcessResult | None]:
        workdir.mkdir(parents=True, exist_ok=True)
        result = compile_candidate(Candidate(mlir), list(flags), workdir, self.limits, "module.vmfb")
        return (result.output if result.ok else None), result.process

    def run(self, vmfb: Path, function: str, inputs: list[np.ndarray], workdir: Path, driver: str) -> list[np.ndarray] | str:
        return run_module(vmfb, function, inputs, workdir, self.limits, device=driver)


class InProcess(Isolated):
    """A warm compiler and runtime in this (worker) process; failures fall back to `Isolated`."""

    name = "in-process"

    def import_onnx(self, model: onnx.ModelProto, workdir: Path, opset_version: int | None = None) -> tuple[str | None, str]:
        from iree.compiler.tools.import_onnx import __main__ as importer

        workdir.mkdir(parents=True, exist_ok=True)
        path, output = workdir / "model.onnx", workdir / "model.mlir"
        onnx.save(model, path)
        argv = [str(path), "-o", str(output)] + ([] if opset_version is None else ["--opset-version", str(opset_version)])
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                importer.main(importer.parse_arguments(argv))
        except Exception:  # noqa: BLE001  (the importer reports every failure as some Python exception)
            return super().import_onnx(model, workdir, opset_version)  # for the error text the command line prints
        return output.read_text(), ""

    def __init__(self, limits: Limits) -> None:
        super().__init__(limits)
        self._lowered: tuple[str, Path | None] | None = None  # (program hash, its `input` phase IR)

    def compile(self, mlir: str, flags: tuple[str, ...], workdir: Path) -> tuple[Path | None, ProcessResult | None]:
        workdir.mkdir(parents=True, exist_ok=True)
        source_path, output_path = workdir / "input.mlir", workdir / "module.vmfb"
        source_path.write_text(mlir)
        lowered = self._input_phase(mlir, flags, workdir)
        start = (lowered, [*flags, f"{COMPILE_FROM}{SHARED_PHASE}"]) if lowered else (source_path, list(flags))
        result = compile_capturing(*start, output_path)
        if result is None:  # a flag only the command line takes
            return super().compile(mlir, flags, workdir)
        return (output_path if result.returncode == 0 else None), result

    def _input_phase(self, mlir: str, flags: tuple[str, ...], workdir: Path) -> Path | None:
        """The program after the target-independent `input` phase, lowered once per program.

        Every pipeline of a case starts from it: the torch-to-linalg conversion is the same for
        all of them, and doing it once saves about a fifth of a case's compile time.
        """
        key = hashlib.sha256(mlir.encode()).hexdigest()
        if self._lowered is None or self._lowered[0] != key or not (self._lowered[1] and self._lowered[1].is_file()):
            path = workdir / f"lowered.{SHARED_PHASE}.mlir"
            result = compile_capturing(workdir / "input.mlir", [*flags, f"{COMPILE_TO}{SHARED_PHASE}"], path)
            self._lowered = (key, path if result is not None and result.returncode == 0 else None)
        return self._lowered[1]

    def run(self, vmfb: Path, function: str, inputs: list[np.ndarray], workdir: Path, driver: str) -> list[np.ndarray] | str:
        import iree.runtime as rt

        try:
            config = rt.Config(driver)
            context = rt.SystemContext(config=config)
            module = rt.VmModule.copy_buffer(context.instance, vmfb.read_bytes())
            context.add_vm_module(module)
            result = context.modules[module.name][function](*inputs)
        except Exception as err:  # noqa: BLE001  (a runtime failure of any kind is this run's result)
            return " ".join(str(err).split())[:300]
        results = result if isinstance(result, (tuple, list)) else [result]
        return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]


def _mismatch_signature(spec: GraphSpec) -> str:
    """Ops only, no pipeline: a wrong answer several pipelines share is one bug (one finding)."""
    ops = sorted({node.op for node in spec.nodes})
    return f"mismatch: {'+'.join(ops)}"


def run_case(
    seed: int, spec: GraphSpec, pipelines: list[Pipeline], backend: Isolated, gpu_drivers: tuple[str, ...] = ()
) -> CaseResult:
    """Everything one case does; never raises for what IREE does (that is a finding).

    A GPU pipeline runs and is compared only when its driver is in `gpu_drivers` (it has a device).
    """
    start = time.monotonic()
    result = CaseResult(seed, spec.to_json(), describe(spec), backend=backend.name)
    model = build_model(spec)
    inputs = make_inputs(spec, seed)
    expected = reference_outputs(model, inputs)
    ordered = [inputs[value.name] for value in model.graph.input]
    quantized, longest = is_quantized(model), reduction_length(model)
    with tempfile.TemporaryDirectory(prefix="fuzz-case-") as tmp:
        workdir = Path(tmp)
        mlir, why = backend.import_onnx(model, workdir / "import")
        if mlir is None:
            result.findings.append(Finding(IMPORT_FAILURE, "import", "import: " + normalise(why), why))
            result.seconds = time.monotonic() - start
            return result
        first: tuple[str, list[np.ndarray]] | None = None  # pipelines are compared with each other too
        for pipeline in pipelines:
            t0 = time.monotonic()
            where = workdir / pipeline.name
            vmfb, process = backend.compile(mlir, pipeline.flags, where)
            if vmfb is None:
                kind, signature = classify_compile_failure(process)
                detail = first_error(process.stderr) if process else ""
                _add(result, Finding(kind, pipeline.name, signature, detail))
                result.runs.append(PipelineRun(pipeline.name, kind, time.monotonic() - t0, detail))
                continue
            if pipeline.gpu and pipeline.driver not in gpu_drivers:
                result.runs.append(PipelineRun(pipeline.name, "compiled", time.monotonic() - t0))
                continue
            outputs = backend.run(vmfb, model.graph.name, ordered, where, pipeline.driver)
            if isinstance(outputs, str):
                result.runs.append(PipelineRun(pipeline.name, "run error", time.monotonic() - t0, outputs))
                if "crash" in outputs:
                    _add(result, Finding(CRASH, pipeline.name, f"runtime: {normalise(outputs)}", outputs))
                continue
            comparison = compare_outputs(expected, outputs, reduction_length=longest, quantized=quantized)
            status = "ok" if comparison.matches else MISMATCH
            run = PipelineRun(pipeline.name, status, time.monotonic() - t0, comparison.description, comparison.max_abs, comparison.mismatch_fraction)
            if first is None:
                first = (pipeline.name, outputs)
            else:
                peer = compare_outputs(first[1], outputs, reduction_length=longest, quantized=quantized)
                run.agreement = f"{'agrees with' if peer.matches else 'differs from'} {first[0]}: {peer.description}"
            result.runs.append(run)
            if not comparison.matches:
                detail = "; ".join(filter(None, (comparison.description, run.agreement)))
                _add(result, Finding(MISMATCH, pipeline.name, _mismatch_signature(spec), detail))
    result.seconds = time.monotonic() - start
    return result


def _add(result: CaseResult, finding: Finding) -> None:
    """One finding per signature and case: a front-end error every pipeline hits is one bug."""
    for known in result.findings:
        if known.signature == finding.signature:
            known.pipeline += f",{finding.pipeline}"
            return
    result.findings.append(finding)

