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
import re
import resource
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from fuzz.build import NUMPY_DTYPES, build_model, describe, make_inputs
from fuzz.coverage import dump_flags, read_configurations, shared_memory
from fuzz.host import host_cpu_description, uses_host_cpu
from fuzz.pipelines import Pipeline, SharedStretch, shared_stretches
from fuzz.spec import HALF, GraphSpec
from oracles import Candidate
from oracles.compiling.lds import OVERRUN
from oracles.data.run import run_module
from oracles.numeric.compare import compare_outputs, tolerance_for
from oracles.onnx.importer import import_error_line, import_model
from oracles.onnx.reference import is_quantized, reduction_length, reference_outputs
from oracles.signature import (
    crash_signature,
    error_signature,
    first_error,
    is_crash,
    normalise,
    root_error_lines,
)
from oracles.toolchain.tools import Limits, ProcessResult, compile_candidate, tools_dir
from oracles.toolchain.warm import COMPILE_FROM, COMPILE_TO, compile_capturing

SHARED_PHASE = "input"  # compiled once per case, then each pipeline goes on from it
# Finding classes, as the fuzzer reports them.
IMPORT_FAILURE, COMPILE_ERROR, CRASH, TIMEOUT, DEADLOCK, LDS_OVERRUN, MISMATCH, RUN_ERROR = (
    "import failure",
    "compile error",
    "crash",
    "timeout",
    "deadlock",  # every thread blocked, no CPU time: stopped early (oracles/toolchain/deadlock.py)
    "LDS overrun",
    "mismatch",
    "run error",  # a finding only at a dynamic dimension's size (the module ran at the others)
)
RUNTIME = "runtime: "  # a finding's signature starts so when the compiled module failed as it ran


@dataclass
class Finding:
    kind: str
    pipeline: str
    signature: str  # normalised: the dedup key
    detail: str
    size: str = ""  # the dynamic dimension's value it showed at, e.g. "N=13"
    match: str = ""  # a regex pinning this error when its compile printed several
    host_cpu: str = ""  # the host CPU a `target-cpu=host` pipeline compiled for


@dataclass
class PipelineRun:
    pipeline: str
    status: str  # "ok", "compiled" (GPU, not run), a finding kind, or "run error"
    seconds: float
    detail: str = ""
    max_abs: float = 0.0  # against the reference
    mismatch_fraction: float = 0.0  # of the elements beyond tolerance
    agreement: str = ""  # against the case's first pipeline that ran
    configs: list[list[str]] = field(default_factory=list)  # per dispatch: target, codegen pipeline, intrinsic, op kind
    lds: dict[str, int] = field(default_factory=dict)  # GPU kernel -> workgroup memory bytes


@dataclass
class CaseResult:
    seed: int
    spec_json: str
    description: str
    runs: list[PipelineRun] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    backend: str = ""
    cpu_seconds: float = 0.0  # user + system, the worker's threads (and its tools) included


def classify_compile_failure(process: ProcessResult) -> tuple[str, str]:
    """(finding kind, normalised signature) of a failed compile."""
    if process.deadlocked:
        return DEADLOCK, "deadlock: compile"
    if process.timed_out:
        return TIMEOUT, "timeout: compile"
    if is_crash(process.returncode, process.stderr):
        return CRASH, crash_signature(process.returncode, process.stderr, process.signal_name)
    if OVERRUN.search(process.stderr):
        return LDS_OVERRUN, error_signature(process.stderr)
    return COMPILE_ERROR, error_signature(process.stderr)


_PLACEHOLDER = re.compile(r'(?<!\w)N(?!\w)|%\?|@\?|<path>|0x\?|"')


def error_match(signature: str, line: str) -> str:
    """A regex for one error among several of a compile: the stretches of its normalised message
    that the compiler printed as they are (between numbers, names and quoted printed ops), in
    order, on one line."""
    text = signature.split("error:", 1)[-1]
    pieces = [part.strip() for part in _PLACEHOLDER.split(text) if part.strip() and part.strip() in line]
    return r"[^\n]*?".join(re.escape(p) for p in pieces)


def compile_failure_findings(pipeline: str, process: ProcessResult) -> list[Finding]:
    """One finding per distinct error a failed compile printed: codegen compiles dispatches
    apart, so one dispatch may fail to distribute while another overruns LDS. Each distinct
    error carries a regex that pins it for the reducer when there are several; a reported LDS
    overrun is its own class (the `lds-limit` oracle pins it)."""
    kind, signature = classify_compile_failure(process)
    if kind in (TIMEOUT, CRASH):
        return [Finding(kind, pipeline, signature, first_error(process.stderr) if kind == CRASH else "")]
    distinct: dict[str, str] = {}
    for line in root_error_lines(process.stderr):
        distinct.setdefault(error_signature(line), line)
    if not distinct:
        return [Finding(kind, pipeline, signature, first_error(process.stderr))]
    several = len(distinct) > 1
    return [
        Finding(LDS_OVERRUN if OVERRUN.search(line) else COMPILE_ERROR, pipeline, sig, line, match=error_match(sig, line) if several else "")
        for sig, line in distinct.items()
    ]


class Isolated:
    """Every tool in its own process: nothing the compiler does can take the campaign down."""

    name = "isolated"

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def import_onnx(self, model: onnx.ModelProto, workdir: Path, opset_version: int | None = None) -> tuple[str | None, str]:
        """Imported MLIR, or None and the importer's error (its exception line, not 'Traceback')."""
        text, process = import_model(model.SerializeToString(), workdir, self.limits, opset_version)
        return text, "" if text is not None else (import_error_line(process.stderr) or f"exit {process.returncode}")

    def compile(
        self, mlir: str, flags: tuple[str, ...], workdir: Path, shared: SharedStretch | None = None
    ) -> tuple[Path | None, ProcessResult | None]:
        """`shared` is ignored: every compile here starts from the program, in its own process."""
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
        self._program = ""  # the hash of the program the stretches below were compiled from
        # Its IR after each shared stretch, or the compile that failed there (None: run the tool).
        self._lowered: dict[SharedStretch, Path | ProcessResult | None] = {}

    def compile(
        self, mlir: str, flags: tuple[str, ...], workdir: Path, shared: SharedStretch | None = None
    ) -> tuple[Path | None, ProcessResult | None]:
        """Compiles from the program's `input` phase, lowered once per program, and with `shared`
        from the end of that stretch, compiled once for the case's pipelines that share it.

        The `input` phase is target-independent, so every pipeline starts there (the
        torch-to-linalg conversion once saves about a fifth of a case's compile time); pipelines
        whose flags agree up to a later phase (`fuzz.pipelines.shared_stretches`) also share the
        phases up to it, constant evaluation included. Where a stretch fails, each pipeline that
        shares it fails there alike: its result is that compile's.
        """
        workdir.mkdir(parents=True, exist_ok=True)
        source_path, output_path = workdir / "input.mlir", workdir / "module.vmfb"
        source_path.write_text(mlir)
        program = hashlib.sha256(mlir.encode()).hexdigest()
        if program != self._program:
            self._program, self._lowered = program, {}
        start, resume = source_path, []
        for stretch in [SharedStretch(SHARED_PHASE, ()), *([shared] if shared is not None else [])]:
            lowered = self._lowered_through(stretch, start, [*(stretch.flags or flags), *resume], workdir)
            if isinstance(lowered, ProcessResult):
                return None, lowered
            if lowered is None:
                break
            start, resume = lowered, [f"{COMPILE_FROM}{stretch.phase}"]
        result = compile_capturing(start, [*flags, *resume], output_path)
        if result is None:  # a flag only the command line takes
            return super().compile(mlir, flags, workdir)
        return (output_path if result.returncode == 0 else None), result

    def _lowered_through(self, stretch: SharedStretch, source: Path, flags: list[str], workdir: Path) -> Path | ProcessResult | None:
        """The program's IR at the end of `stretch`, compiled the first time a pipeline asks."""
        known = self._lowered.get(stretch, source)  # `source`: not compiled yet
        if known is source or (isinstance(known, Path) and not known.is_file()):
            path = workdir / f"lowered.{stretch.phase}.mlir"
            result = compile_capturing(source, [*flags, f"{COMPILE_TO}{stretch.phase}"], path)
            self._lowered[stretch] = result if result is None or result.returncode else path
        return self._lowered[stretch]

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



def backend_for(limits: Limits, isolated: bool = False) -> Isolated:
    """The backend a case runs on: warm in this worker, but where `$IREE_REDUCE_TOOLS_DIR` names
    other tools (a local build, a nightly), every tool from there: the warm compiler and runtime
    are the installed wheels', and would test those instead."""
    return Isolated(limits) if isolated or tools_dir() is not None else InProcess(limits)

def _mismatch_signature(spec: GraphSpec) -> str:
    """Ops only, no pipeline: a wrong answer several pipelines share is one bug (one finding).
    Root causes come later, from the reduced case (`fuzz.root_cause`)."""
    ops = sorted({node.op for node in spec.nodes})
    return f"mismatch: {'+'.join(ops)}" + (" [dynamic]" if spec.dynamic is not None else "")


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class _Expected:
    """What a case's runs are judged against: per size (None for a static case), the inputs in
    the module's order and the reference's outputs; and how closely they must match."""

    model: onnx.ModelProto
    symbol: str
    inputs: dict[int | None, list[np.ndarray]]
    outputs: dict[int | None, list[np.ndarray]]
    longest: int  # the longest reduction: it scales float tolerances
    quantized: bool  # 8-bit results may be 1 LSB apart
    tolerance: tuple[float, float] | None  # a half type computed inside: its (atol, rtol)
    first: dict[int | None, tuple[str, list[np.ndarray]]] = field(default_factory=dict)  # per size: the first pipeline's outputs

    @classmethod
    def of(cls, spec: GraphSpec, seed: int) -> _Expected:
        model = build_model(spec)
        sizes: tuple[int | None, ...] = spec.dynamic.sizes if spec.dynamic is not None else (None,)
        inputs, outputs = {}, {}
        for size in sizes:
            named = make_inputs(spec, seed, size)
            inputs[size] = [named[value.name] for value in model.graph.input]
            outputs[size] = reference_outputs(model, named)
        longest = reduction_length(model)
        halves = [NUMPY_DTYPES[n.dtype] for n in spec.nodes if n.dtype in HALF]
        tolerance = max(tolerance_for(np.dtype(t), longest) for t in halves) if halves else None
        return cls(model, spec.dynamic.symbol if spec.dynamic else "", inputs, outputs, longest, is_quantized(model), tolerance)

    def compare(self, expected: list[np.ndarray], actual: list[np.ndarray]):
        atol, rtol = self.tolerance or (None, None)
        return compare_outputs(expected, actual, reduction_length=self.longest, quantized=self.quantized, atol=atol, rtol=rtol)


def run_case(
    seed: int, spec: GraphSpec, pipelines: list[Pipeline], backend: Isolated, gpu_drivers: tuple[str, ...] = ()
) -> CaseResult:
    """Everything one case does; never raises for what IREE does (that is a finding).

    A GPU pipeline runs and is compared only when its driver is in `gpu_drivers` (it has a device).
    A case with a dynamic dimension compiles once per pipeline and runs at each of its sizes.
    """
    start, cpu_start = time.monotonic(), _cpu_seconds()
    result = CaseResult(seed, spec.to_json(), describe(spec), backend=backend.name)
    expected = _Expected.of(spec, seed)
    with tempfile.TemporaryDirectory(prefix="fuzz-case-") as tmp:
        workdir = Path(tmp)
        mlir, why = backend.import_onnx(expected.model, workdir / "import")
        if mlir is None:
            result.findings.append(Finding(IMPORT_FAILURE, "import", "import: " + normalise(why), why))
        stretches = shared_stretches(pipelines)
        for pipeline in pipelines if mlir is not None else []:
            t0 = time.monotonic()
            where = workdir / pipeline.name
            flags = (*pipeline.flags, *dump_flags(where, pipeline.flags))
            vmfb, process = backend.compile(mlir, flags, where, stretches.get(pipeline.name))
            run = PipelineRun(pipeline.name, "ok", 0.0, configs=[list(c) for c in read_configurations(where, pipeline.name)])
            host = host_cpu_description() if uses_host_cpu(pipeline.flags) else ""
            found: list[Finding] = []
            if vmfb is None:
                found = compile_failure_findings(pipeline.name, process) if process else [Finding(COMPILE_ERROR, pipeline.name, "error: ", "")]
                run.status, run.detail = found[0].kind, found[0].detail
            elif pipeline.gpu:
                run.lds = shared_memory(where)
            if vmfb is not None and pipeline.gpu and pipeline.driver not in gpu_drivers:
                run.status = "compiled"
            elif vmfb is not None:
                for size in expected.inputs:
                    finding = _run_and_compare(backend, vmfb, where, pipeline, run, expected, size)
                    found += [finding] if finding is not None else []
                    if run.status != "ok":
                        break
            for finding in found:
                finding.host_cpu = host
                finding.signature = finding.signature or _mismatch_signature(spec)
                _add(result, finding)
            run.seconds = time.monotonic() - t0
            result.runs.append(run)
    result.seconds = time.monotonic() - start
    result.cpu_seconds = _cpu_seconds() - cpu_start
    return result


def _run_and_compare(backend: Isolated, vmfb: Path, where: Path, pipeline: Pipeline, run: PipelineRun, expected: _Expected, size: int | None) -> Finding | None:
    """Runs the module at one size (None: the static case), compares, updates `run`; the finding
    (a mismatch's signature is left for the caller: it names the graph)."""
    at = f"{expected.symbol}={size}" if size is not None else ""
    prefix = f"at {at}: " if at else ""
    outputs = backend.run(vmfb, expected.model.graph.name, expected.inputs[size], where, pipeline.driver)
    if isinstance(outputs, str):
        run.status, run.detail = "run error", prefix + outputs
        if "crash" in outputs:
            return Finding(CRASH, pipeline.name, f"{RUNTIME}{normalise(outputs)}", run.detail, at)
        if at:  # it ran at the other sizes: the size is the bug
            return Finding(RUN_ERROR, pipeline.name, f"{RUNTIME}{normalise(outputs)} [dynamic]", run.detail, at)
        return None
    comparison = expected.compare(expected.outputs[size], outputs)
    run.detail = prefix + comparison.description
    run.max_abs = max(run.max_abs, comparison.max_abs)
    run.mismatch_fraction = max(run.mismatch_fraction, comparison.mismatch_fraction)
    if size not in expected.first:
        expected.first[size] = (pipeline.name, outputs)
    else:
        name, theirs = expected.first[size]
        peer = expected.compare(theirs, outputs)
        run.agreement = f"{'agrees with' if peer.matches else 'differs from'} {name}: {peer.description}"
    if comparison.matches:
        return None
    run.status = MISMATCH
    return Finding(MISMATCH, pipeline.name, "", "; ".join(filter(None, (run.detail, run.agreement))), at)


def _add(result: CaseResult, finding: Finding) -> None:
    """One finding per signature and case: a front-end error every pipeline hits is one bug."""
    for known in result.findings:
        if known.signature == finding.signature:
            known.pipeline += f",{finding.pipeline}"
            return
    result.findings.append(finding)

