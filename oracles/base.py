"""The oracle protocol: judge a candidate, calibrate against the original, say how to reproduce."""

from __future__ import annotations

import copy
import shlex
import time
from abc import ABC, ABCMeta, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np

from oracles.candidate import Candidate
from oracles.data.intermediates import Position, values_at
from oracles.mlir import ir as irx
from oracles.mlir.locations import (
    DEBUGINFO,
    ELIDE_RESOURCES,
    PHASES_DUMP,
    SOURCES_DUMP,
    FailureSite,
    SourceLoc,
    failing_dispatch,
    first_failing_phase,
)
from oracles.toolchain.devices import missing_device, runtime_device
from oracles.toolchain.flags import PHASES
from oracles.toolchain.tool_errors import limit_hit, setup_problem
from oracles.toolchain.tools import (
    CompileResult,
    Limits,
    compile_candidate,
    find_tool,
    processes_watched,
    scratch_dir,
)
from oracles.toolchain.warm import WarmCompiler
from oracles.verdict import Verdict

# IREE names the executables it adds itself (an i64 splat's fill) `__builtin_...`.
BUILTIN_EXECUTABLE = "__builtin_"


def renamed(verdict: Verdict, old: str, new: str) -> Verdict:
    """The verdict with every mention of the path `old` in its messages spelled `new`."""
    verdict.detail = verdict.detail.replace(old, new)
    verdict.excerpt = verdict.excerpt.replace(old, new)
    return verdict


class OracleSetupError(ValueError):
    """Bad oracle options; the message is one actionable line for the user."""


# The share of the original's wrong fraction and error a candidate of a wrong-answer oracle must keep
# (`--wrong-share`), unless the user says otherwise.
DEFAULT_WRONG_SHARE = 0.5


@dataclass
class OracleOptions:
    """Every knob any oracle takes; each oracle reads the ones it documents."""

    lds_bytes: int | None = None  # lds-limit: threshold mode
    match: str | None = None  # compile-error / crash: regex over stderr instead of the signature
    hang_seconds: float = 60.0  # timeout
    threshold: int | None = None  # transient-copy / dispatch-count / ir-match: minimum count
    keep: str | None = None  # transient-copy / readwrite-constant: the one symptom (number or kind) to keep
    phase: str | None = None  # ir-match / dispatch-count: --compile-to phase
    pattern: str | None = None  # ir-match: regex over the IR at `phase`
    cmd: str | None = None  # script: shell command, `{}` is the candidate path
    pipeline_a: list[str] = field(default_factory=list)  # miscompile: flag sets compared
    pipeline_b: list[str] = field(default_factory=list)
    seed: int = 0  # miscompile: input data seed
    wrong_share: float = DEFAULT_WRONG_SHARE  # miscompile / reference-mismatch / eager-mismatch
    any_dispatch: bool = False  # lds-limit: any dispatch over the limit, not only one of the original's kind
    opset_version: int | None = None  # ONNX input: iree-import-onnx --opset-version
    torch_import: str = "turbine"  # .pt2 input: how the program is brought to the FX importer (oracles/torch/__init__.py)
    device: str | None = None  # numeric oracles: the runtime device modules run on (None: the one the compile targets)
    device_a: str | None = None  # miscompile: the device of each pipeline's module (None: --device, else its target's)
    device_b: str | None = None
    limits: Limits = field(default_factory=Limits)


class _ConfiguredOnce(ABCMeta):
    """Freezes an oracle when its constructor returns: it is configured once, never mutated."""

    def __call__(cls, *args, **kwargs):
        oracle = super().__call__(*args, **kwargs)
        object.__setattr__(oracle, "_configured", True)
        return oracle


class Oracle(ABC, metaclass=_ConfiguredOnce):
    """Decides whether a candidate still shows the failure.

    An oracle is configured once and never changes: `calibrated`, `stopping_at` and
    `with_compiler` return a new oracle. Uncalibrated, `judge` uses the oracle's loose criterion
    (any compile error, any LDS overrun); `calibrated(original_verdict)` also requires what pins
    the failure to the original bug (same signature, same copy count). Verdicts of one oracle
    can be cached: nothing it judges by changes after it is made.
    """

    name: ClassVar[str]
    # Whether crash isolation allows a warm compiler: a failure is judged by its text, a crash
    # (which costs the worker) is re-run isolated. Not for oracles whose failure is a crash or hang.
    warm_ok: ClassVar[bool] = False
    # Whether it judges a serialised ONNX model itself (it runs the model, e.g. against
    # onnx.reference) instead of the imported MLIR; such an oracle needs ONNX input.
    judges_onnx: ClassVar[bool] = False
    # Whether it judges a `.pt2` archive itself (it runs the program eagerly) instead of the MLIR
    # the archive imports to; such an oracle needs `.pt2` input.
    judges_torch: ClassVar[bool] = False

    def __init__(self, options: OracleOptions | None = None) -> None:
        self.options = options or OracleOptions()
        self.reference: Verdict | None = None  # the original's verdict, once calibrated
        self.warm: WarmCompiler | None = None  # the warm compiler service compiles run on, if any

    def __setattr__(self, name: str, value: object) -> None:
        if self.__dict__.get("_configured"):
            raise AttributeError(f"{type(self).__name__} is configured once; {name!r} cannot change "
                                 "(calibrated / stopping_at / with_compiler return a new oracle)")
        super().__setattr__(name, value)

    def _evolved(self, **changes: object) -> Oracle:
        """A copy with `changes` applied: the one way a configured oracle gets a new setting."""
        new = copy.copy(self)
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new

    def judge(self, candidate: Candidate) -> Verdict:
        with scratch_dir() as tmp:
            return self._accounted(lambda: self.observe(candidate, Path(tmp)), tmp)

    def failing_dispatch(self) -> str:
        """The program's own dispatch whose compile produces the calibrated failure ('' when the
        failure is not known to be produced there, or could be seen elsewhere)."""
        return ""

    def ruled_out(self, candidate: Candidate) -> Verdict | None:
        """The verdict on a candidate that cannot show the failure, known without compiling it
        (None: judge it). A failure that compiling one of the program's own dispatches produces
        needs such a dispatch, and a program that computes nothing forms none: in a 2-op round,
        the candidates that replace the failing op by a constant or an argument (0.5 s each)."""
        dispatch = self.failing_dispatch()
        if not dispatch or BUILTIN_EXECUTABLE in dispatch or candidate.binary is not None or irx.computes(candidate.text):
            return None
        return Verdict(False, "", f"computes nothing, so no dispatch like {dispatch} to fail in (not compiled)")

    def _accounted(self, observe: Callable[[], Verdict], tmp: str) -> Verdict:
        """`observe()`'s verdict with its time, whether a limit of this tool decided it and any
        tool error; messages name the candidate `input.mlir`, not by its throw-away scratch path."""
        with processes_watched() as ran:
            start = time.monotonic()
            verdict = observe()
            verdict.seconds = time.monotonic() - start
            verdict.limit = next((hit for hit in map(limit_hit, ran) if hit), "")
            verdict.tool_error = setup_problem(ran, self.options.limits)
        return renamed(verdict, f"{tmp}/", "")

    def calibrated(self, original: Verdict) -> Oracle:
        """This oracle pinned to the original's failure."""
        return self._evolved(reference=original)

    def with_compiler(self, warm: WarmCompiler | None) -> Oracle:
        """This oracle compiling on `warm` (None: every compile as its own process)."""
        return self._evolved(warm=warm)

    # Where a reduction stops one candidate's compile, below --timeout (`with_compile_limit`).
    compile_limit_s: float | None = None

    def with_compile_limit(self, seconds: float | None) -> Oracle:
        """This oracle stopping each compile after `seconds` (None: --timeout's), as a time limit:
        the verdict is marked `limit` (judged again, never stored), so no cached verdict depends on it."""
        return self if seconds == self.compile_limit_s else self._evolved(compile_limit_s=seconds)

    def _compile_limits(self) -> Limits:
        limits, cap = self.options.limits, self.compile_limit_s
        return limits if cap is None or cap >= limits.timeout_s else replace(limits, timeout_s=cap)

    # Flags every compile adds that the user's does not run with (flags.judging_shortcuts); never
    # in a printed command.
    shortcuts: tuple[str, ...] = ()

    def with_shortcuts(self, flags: tuple[str, ...]) -> Oracle:
        """This oracle compiling with `flags` added (() : as the user's compile)."""
        return self if flags == self.shortcuts else self._evolved(shortcuts=flags)

    # Whether `locate` can say where the failure is (compiling oracles), and whether `stop_at`
    # can cut this oracle's compiles short (compile-error, crash).
    locates: ClassVar[bool] = False
    stops_early: ClassVar[bool] = False
    # Whether a located compile judges as the plain one does (what `locate` adds only dumps files
    # and names them in diagnostics, whose paths signatures strip): then the original's first
    # compile can be its located one, and no question about the original costs another compile.
    judges_located: ClassVar[bool] = False
    # Whether the failure is a whole dispatch's (its workgroup memory), not one op's: the root op
    # alone would make another dispatch, so localisation starts from every op fused into it.
    dispatch_wide: ClassVar[bool] = False

    def call_flags(self, user_flags: tuple[str, ...] | list[str]) -> list[str]:
        """The flags each compile of a candidate carries, whatever phase it stops at. An oracle
        whose verdict depends on the flags only through these overrides it (`call_key`); by
        default they are the user's as given."""
        return list(user_flags)

    def call_key(self, candidate: Candidate) -> str:
        """What a verdict on `candidate` is cached under: its content with `call_flags`. A device
        flag that a target flag implies compiles alike without it (`with_device` puts it back),
        so dropping it asks nothing new."""
        flags = tuple(self.call_flags(candidate.flags))
        return candidate.key if flags == candidate.flags else candidate.with_flags(flags).key

    def stopping_at(self, phase: str | None) -> Oracle:
        """This oracle compiling candidates only up to `phase` (None: as far as it always did)."""
        return self

    def locate(self, candidate: Candidate, debuginfo: bool = True) -> Verdict:
        """Judges once more with every dispatch's source dumped, and says where the failure is.

        `debuginfo` keeps source locations in the dumps (which ops a dispatch fused); without
        it the dumped dispatch is clean for a report. Oracles that stop early also dump the
        phases, so the first failing phase is known. One extra compile; never cached.
        """
        with scratch_dir() as tmp:
            work = Path(tmp)
            sources, phases = work / "dispatches", work / "phases"
            extra = [f"{SOURCES_DUMP}={sources}"]
            if debuginfo:
                extra.append(DEBUGINFO)
            if self.stops_early:
                extra += [f"{PHASES_DUMP}={phases}", ELIDE_RESOURCES]
            (work / "run").mkdir()
            located_flags = candidate.with_flags((*candidate.flags, *extra))
            verdict = self._accounted(lambda: self.observe(located_flags, work / "run"), f"{tmp}/run")
            located = [loc for loc in map(SourceLoc.parse, verdict.locations) if loc is not None]
            dispatch = failing_dispatch(sources, located, str(verdict.metrics.get("dispatch", "")))
            if dispatch is not None:
                verdict.site = FailureSite(dispatch.root, dispatch.fused, dispatch.name, dispatch.text)
            else:
                verdict.site = FailureSite(located)
            if self.stops_early and verdict.signature and verdict.signature != "timeout":
                verdict.site.phase = first_failing_phase(phases, PHASES)
            return renamed(verdict, f"{tmp}/", "")

    def cannot_judge(self, candidate: Candidate) -> str | None:
        """Why this oracle cannot judge this kind of input at all (one line, checked once on the
        original before anything runs); None when it can. By default: a device it would run the
        modules on that this machine lacks."""
        return self.absent_device(candidate.flags)

    def absent_device(self, flags: tuple[str, ...] | list[str]) -> str | None:
        """A device this oracle would run a candidate's modules on that this machine lacks (one line), or None."""
        return next(filter(None, map(missing_device, self.run_devices(flags))), None)

    # Whether the oracle runs the modules it compiles (miscompile, reference-mismatch, run-error).
    runs_modules: ClassVar[bool] = False

    def run_pipelines(self, flags: tuple[str, ...] | list[str]) -> list[tuple[str, list[str], str]]:
        """(name, final compile flags, runtime device) of each module this oracle compiles and runs
        for a candidate with `flags` ([]: it runs none)."""
        return [("", self.compile_flags(flags), self.run_device(flags))] if self.runs_modules else []

    def run_devices(self, flags: tuple[str, ...] | list[str]) -> list[str]:
        """The runtime devices this oracle runs a candidate's modules on ([]: it runs none)."""
        return [device for _, _, device in self.run_pipelines(flags)]

    def run_device(self, flags: tuple[str, ...] | list[str]) -> str:
        """The device that runs a module compiled with `flags`: --device, else the one they target."""
        return self.options.device or runtime_device(self.compile_flags(flags))

    def values_at(self, candidate: Candidate) -> dict[Position, np.ndarray] | str:
        """What the program computes at each entry-block value on the candidate's data, by the
        reference this oracle judges with: the values a cut argument carries
        (reducer/search/cut_values.py). By default the reference pipeline computes them; or why
        not, one line."""
        return values_at(candidate, self.options.limits, self.options.seed)

    @abstractmethod
    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        """Runs the check in a private scratch directory."""

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """The shell command an engineer runs to see the failure on the file at `path`."""
        return shlex.join(["iree-compile", *self.compile_flags(candidate.flags), path, "-o", self.output_name])

    # Compiling oracles override these; the others ignore them.
    output_name: ClassVar[str] = "out.vmfb"
    compile_tool: ClassVar[str] = "iree-compile"  # the tool a compile runs (where no warm worker takes it)

    def compile_flags(self, user_flags: tuple[str, ...] | list[str]) -> list[str]:
        return list(user_flags)

    def compile(
        self, candidate: Candidate, workdir: Path, extra: list[str] | None = None, limits: Limits | None = None
    ) -> CompileResult:
        find_tool(self.compile_tool)
        flags = self.compile_flags(candidate.flags) + list(self.shortcuts) + (extra or [])
        warm = self.warm.compile if self.warm is not None and self.warm_ok else None
        return compile_candidate(candidate, flags, workdir, limits or self._compile_limits(), self.output_name, warm, self.compile_tool)


class ImportingOracle(Oracle):
    """An input format's oracle (an ONNX model, a PyTorch program): it turns each candidate into
    MLIR and asks `inner`, the oracle the user named, about that. It is `inner` to the user (its
    name, output, flags, the modules it runs), and carries `inner` through every new configuration."""

    def __init__(self, inner: Oracle) -> None:
        super().__init__(inner.options)
        self.inner = inner
        self.name = inner.name
        self.output_name = inner.output_name

    def compile_flags(self, user_flags):
        return self.inner.compile_flags(user_flags)

    def run_pipelines(self, flags):
        return self.inner.run_pipelines(flags)

    def with_compiler(self, warm: WarmCompiler | None) -> Oracle:
        return self._evolved(warm=warm, inner=self.inner.with_compiler(warm))

    def stopping_at(self, phase: str | None) -> Oracle:
        stopping = self.inner.stopping_at(phase)
        return self if stopping is self.inner else self._evolved(inner=stopping)

    def with_shortcuts(self, flags: tuple[str, ...]) -> Oracle:
        inner = self.inner.with_shortcuts(flags)
        return self if inner is self.inner else self._evolved(inner=inner, shortcuts=flags)

    def with_compile_limit(self, seconds: float | None) -> Oracle:
        inner = self.inner.with_compile_limit(seconds)
        return self if inner is self.inner else self._evolved(inner=inner, compile_limit_s=seconds)


def mlir_path_for(path: str) -> str:
    """Where an importing oracle writes the MLIR of the input at `path`: `model.reduced.onnx` ->
    `model.reduced.mlir`."""
    p = Path(path)
    return str(p.with_suffix(".mlir")) if p.suffix else f"{path}.mlir"
