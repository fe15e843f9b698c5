"""lds-limit: a dispatch needs more workgroup (shared, LDS) memory than allowed.

Two modes. By default the compiler's own resource check must fire ("uses N bytes of shared
memory; exceeded the limit of M bytes"). With `--lds-bytes N` the use is measured from what
the compiler emits (AMDGPU kernel metadata, PTX `.shared` declarations) and any dispatch above
N is interesting: this finds configurations that fit today's limit but not a smaller part's.

Calibrated, the overrun must stay in a dispatch of the original's kind (matmul_like, conv,
reduction, ... from the name IREE gives it: oracles/compiling/dispatch_kind.py), unless
`--any-dispatch`; the calibration also records the over-limit dispatch's root op.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from oracles.base import Oracle
from oracles.candidate import Candidate
from oracles.compiling.dispatch_kind import UNKNOWN, dispatch_kind, may_form, root_op
from oracles.mlir import ir as irx
from oracles.mlir.locations import SOURCES_DUMP, diagnostic_locations
from oracles.signature import error_signature, excerpt, first_error
from oracles.toolchain.flags import (
    GFX942,
    gpu_backend,
    names_gpu_target,
    with_device,
    without_phase,
)
from oracles.verdict import Verdict

OVERRUN = re.compile(r"uses (\d+) bytes of shared memory; exceeded the limit of (\d+) bytes")
_ROCM_SIZE = re.compile(r"\.group_segment_fixed_size:\s*(\d+)")
_ROCM_SYMBOL = re.compile(r"\.symbol:\s*'?([^'\s]+?)(?:\.kd)?'?\s*$", re.MULTILINE)
_PTX_ENTRY = re.compile(r"\.entry\s+([\w$.]+)")
_PTX_SHARED = re.compile(r"\.shared\s+(?:\.align\s+\d+\s+)?\.b8\s+[\w$.]+\[(\d+)\]")
_DISPATCH = re.compile(r"[\w$]*_dispatch_\d+[\w$]*")
_FUNCTION = re.compile(r"function '([^']+)' $")
DUMP_DIR = "dump"
SOURCES_DIR = "sources"
KIND_KEY = "dispatch_kind"


def rocm_kernel_lds(asm: str) -> dict[str, int]:
    """Kernel name -> `.group_segment_fixed_size` from AMDGPU metadata (one of each per kernel)."""
    metadata = asm.split("amdhsa.kernels:", 1)[1] if "amdhsa.kernels:" in asm else ""
    sizes = [int(m.group(1)) for m in _ROCM_SIZE.finditer(metadata)]
    symbols = [m.group(1) for m in _ROCM_SYMBOL.finditer(metadata)]
    return dict(zip(symbols, sizes))


def ptx_kernel_lds(ptx: str) -> dict[str, int]:
    """Kernel name -> bytes of static `.shared` arrays declared in its body or at module scope."""
    usage: dict[str, int] = {}
    module_level = 0
    entries = list(_PTX_ENTRY.finditer(ptx))
    head = ptx[: entries[0].start()] if entries else ptx
    module_level = sum(int(m.group(1)) for m in _PTX_SHARED.finditer(head))
    for i, entry in enumerate(entries):
        body = ptx[entry.end() : entries[i + 1].start() if i + 1 < len(entries) else len(ptx)]
        usage[entry.group(1)] = module_level + sum(int(m.group(1)) for m in _PTX_SHARED.finditer(body))
    return usage


def measured_lds(dump_dir: Path) -> dict[str, int]:
    usage: dict[str, int] = {}
    for path in sorted(dump_dir.glob("*.rocmasm")):
        usage.update(rocm_kernel_lds(path.read_text(errors="replace")))
    for path in sorted(dump_dir.glob("*.ptx")):
        usage.update(ptx_kernel_lds(path.read_text(errors="replace")))
    return usage


class LdsLimit(Oracle):
    name = "lds-limit"
    output_name = "out.mlir"
    locates = True
    judges_located = True  # the located compile only adds dumps; the root op is read from its own dump
    dispatch_wide = True  # the check sums every buffer the dispatch promotes, fused producers' too
    warm_ok = True

    def __init__(self, options=None) -> None:
        super().__init__(options)
        # The compiler's own check fires while it translates the dispatch (`executable-targets`):
        # a candidate judged only that far skips the target backend, which for a conv with
        # constant weights is 90% of a compile that ends clean. `--lds-bytes` reads the emitted kernels.
        self.stops_early = self.options.lds_bytes is None
        self.stop_phase: str | None = None

    def stopping_at(self, phase: str | None) -> Oracle:
        return self._evolved(stop_phase=phase) if self.stops_early else self

    def call_flags(self, user_flags):
        return with_device(without_phase(user_flags), GFX942, accepts=names_gpu_target)

    def compile_flags(self, user_flags):
        return [*self.call_flags(user_flags), f"--compile-to={self.stop_phase or 'hal'}"]

    def _dump_flags(self, dump: Path, flags) -> list[str]:
        kind = "binaries" if gpu_backend(flags) == "cuda" else "intermediates"
        return [f"--iree-hal-dump-executable-{kind}-to={dump}"]

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        flags = self.compile_flags(candidate.flags)
        dump = self._dump_flags(Path(DUMP_DIR), flags) if self.options.lds_bytes is not None else []
        words = ["iree-compile", *flags, *dump, path, "-o", self.output_name]
        return shlex.join(words)

    def failing_dispatch(self) -> str:
        """The kernel over the limit in the original: an overrun is always a dispatch's."""
        return str(self.reference.metrics.get("dispatch", "")) if self.reference is not None else ""

    def ruled_out(self, candidate: Candidate) -> Verdict | None:
        """Also a candidate with no op that may form a dispatch of the pinned kind: the cut or
        replaced conv of the last rounds (0.5 to 1.5 s a compile, 7 of the README example's)."""
        verdict = super().ruled_out(candidate)
        kind = self._pinned_kind()
        if verdict is not None or kind is None or candidate.binary is not None:
            return verdict
        names = irx.op_names(candidate.text)
        if names is None or may_form(kind, names):
            return None
        return Verdict(False, "", f"has no op that forms a {kind} dispatch like {self.failing_dispatch()} (not compiled)")

    def _pinned_kind(self) -> str | None:
        """The dispatch kind a candidate's overrun must be in (None: any will do)."""
        if self.options.any_dispatch or self.reference is None:
            return None
        kind = self.reference.metrics.get(KIND_KEY)
        return str(kind) if kind and kind != UNKNOWN else None

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        dump = workdir / DUMP_DIR
        flags = self.compile_flags(candidate.flags)
        # The emitted kernels are read only to measure against `--lds-bytes`; by default the
        # compiler's own error decides, and a compile with no dump flag can run warm.
        extra = self._dump_flags(dump, flags) if self.options.lds_bytes is not None else []
        # Uncalibrated (judging the original): the dispatches are dumped too, to name the root op
        # (a located compile dumps them already).
        calibrating = self.reference is None
        sources = _dumped_sources(candidate.flags)
        if calibrating and sources is None:
            sources = workdir / SOURCES_DIR
            extra.append(f"{SOURCES_DUMP}={sources}")
        result = self.compile(candidate, workdir, extra).process
        overrun = OVERRUN.search(result.stderr)
        if overrun:
            return self._reported_overrun(overrun, result.stderr, sources if calibrating else None)
        if result.timed_out:
            return Verdict(False, "timeout", f"timed out after {result.seconds:.0f} s")
        if result.returncode != 0:
            return Verdict(False, error_signature(result.stderr), f"fails without an LDS overrun: {first_error(result.stderr)}")
        return self._measured_overrun(measured_lds(dump), sources if calibrating else None)

    def _reported_overrun(self, overrun: re.Match, stderr: str, sources: Path | None) -> Verdict:
        """The compiler's own resource check fired; `sources` (when calibrating) names the root op."""
        used, limit = int(overrun.group(1)), int(overrun.group(2))
        # The function the check names; a compile that dumps the dispatches names the dumped file
        # first (`module_main$async_dispatch_0.mlir:8:6: error: function '...' uses ...`).
        function = _FUNCTION.search(stderr[: overrun.start()].rsplit("\n", 1)[-1])
        dispatch = _DISPATCH.search(function.group(1) if function else stderr)
        where = dispatch.group(0) if dispatch else first_error(stderr).split(" error:")[0]
        kind = dispatch_kind(where)
        metrics = {"lds_bytes": used, "limit": limit, "dispatch": where, KIND_KEY: kind}
        if sources is not None:
            metrics["root_op"] = root_op(sources, where)
        pinned = self._pinned_kind()
        if pinned is not None and kind != pinned:
            why = f"uses {used} bytes of shared memory > limit {limit} in a {kind} dispatch ({where}); {_pin_note(pinned)}"
            return Verdict(False, error_signature(stderr), why, metrics)
        return Verdict(
            True,
            error_signature(stderr),
            f"uses {used} bytes of shared memory > limit {limit} ({where})",
            metrics,
            excerpt(stderr),
            locations=[str(loc) for loc in diagnostic_locations(stderr)],
        )

    def _measured_overrun(self, usage: dict[str, int], sources: Path | None) -> Verdict:
        """A clean compile: the emitted kernels' LDS use against `--lds-bytes`; `sources` (when
        calibrating) names the root op."""
        if not usage:
            return Verdict(False, "", "compiles fine; no shared-memory overrun reported")
        kernel, used = _largest(usage)
        threshold = self.options.lds_bytes
        if threshold is None:
            return Verdict(False, "", f"compiles fine; largest LDS use {used} bytes is within the limit ({kernel})")
        metrics = {"lds_bytes": used, "limit": threshold, "dispatch": kernel, KIND_KEY: dispatch_kind(kernel)}
        if used <= threshold:
            return Verdict(False, "", f"compiles fine; largest LDS use {used} bytes <= {threshold} ({kernel})", metrics)
        pinned = self._pinned_kind()
        if pinned is not None:
            of_kind = {name: size for name, size in usage.items() if size > threshold and dispatch_kind(name) == pinned}
            if not of_kind:
                why = f"largest LDS use {used} bytes > {threshold} is in a {metrics[KIND_KEY]} dispatch ({kernel}); {_pin_note(pinned)}"
                return Verdict(False, "", why, metrics)
            kernel, used = _largest(of_kind)
            metrics.update(lds_bytes=used, dispatch=kernel, **{KIND_KEY: pinned})
        if sources is not None:
            metrics["root_op"] = root_op(sources, kernel)
        root = f", root op {metrics['root_op']}" if metrics.get("root_op") else ""
        return Verdict(
            True,
            f"lds-limit: workgroup memory above {threshold} bytes",
            f"largest LDS use {used} bytes > {threshold} ({kernel}: {metrics[KIND_KEY]}{root})",
            metrics,
            f"{kernel}: group_segment_fixed_size {used} bytes (threshold {threshold})",
        )

def _dumped_sources(flags) -> Path | None:
    """Where the candidate's own flags dump the dispatches' sources, if they do."""
    prefix = f"{SOURCES_DUMP}="
    return next((Path(flag[len(prefix):]) for flag in flags if flag.startswith(prefix)), None)


def _largest(usage: dict[str, int]) -> tuple[str, int]:
    return max(usage.items(), key=lambda item: (item[1], item[0]))


def _pin_note(kind: str) -> str:
    return f"no {kind} dispatch is over, as in the original (--any-dispatch accepts any)"
