"""Runs IREE's command-line tools isolated: own process group, wall-clock timeout, memory cap.

A crash, abort or hang of a tool becomes data (`ProcessResult`), never an exception here.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from oracles import refusals
from oracles.candidate import Candidate
from oracles.toolchain.deadlock import POLL_S, DeadlockWatch, process_tree

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MEMORY_CAP_MB = 16 * 1024
_OUTPUT_HEAD = 48 * 1024  # the first error, which signatures are made of
_OUTPUT_TAIL = 16 * 1024  # how it ended (a crash's stack dump)

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()
_watched = threading.local()


class ToolNotFound(RuntimeError):
    pass


@dataclass
class Limits:
    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_cap_mb: int = DEFAULT_MEMORY_CAP_MB


@dataclass
class ProcessResult:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False  # stopped because it hung: past its time limit, or deadlocked
    deadlocked: bool = False  # stopped early: every thread blocked, no CPU time (oracles/toolchain/deadlock.py)
    memory_capped: bool = False  # stopped when its resident memory passed the cap (a run on a GPU device)

    @property
    def signal_name(self) -> str | None:
        if self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


# A directory searched before the venv for IREE's tools: a local build of `iree-compile`, say.
TOOLS_DIR_ENV = "IREE_REDUCE_TOOLS_DIR"


def tools_dir() -> Path | None:
    value = os.environ.get(TOOLS_DIR_ENV)
    return Path(value) if value else None


# Where IREE's Python packages keep the executables their console scripts wrap, under the `iree`
# namespace package: the compiler's tools, then the runtime's.
_SHIPPED_DIRS = ("compiler/_mlir_libs", "_runtime_libs")


@functools.cache
def find_tool(name: str) -> str:
    """Locates a tool in $IREE_REDUCE_TOOLS_DIR, then among the executables the installed IREE
    packages ship, then next to the running interpreter (the venv), then on PATH.

    The venv's `iree-compile` is a Python script that starts the shipped executable: calling the
    executable directly saves a Python start-up (0.3 s on 2 cores) on every run."""
    chosen = tools_dir()
    if chosen and (chosen / name).exists():
        return str(chosen / name)
    shipped = _shipped_executable(name)
    if shipped is not None:
        return shipped
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    raise ToolNotFound(refusals.TOOL_NOT_FOUND.say(name=name))


def _shipped_executable(name: str) -> str | None:
    """The executable `name` inside the IREE packages this interpreter imports, or None (a Python
    tool such as `iree-import-onnx`, or packages that are not installed)."""
    spec = importlib.util.find_spec("iree")
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    for root in roots:
        for sub in _SHIPPED_DIRS:
            path = Path(root) / sub / name
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    return None


def run_tool(
    argv: list[str], limits: Limits, cwd: str | None = None, stderr_file: Path | None = None, *, resident_cap: bool = False,
    env: dict[str, str] | None = None,
) -> ProcessResult:
    """Runs argv under a memory cap in its own session; kills the whole group on timeout.
    `stderr_file` receives the whole standard error, unclipped (the result's `stderr` is then empty).
    The cap is on address space (`ulimit -v`), or with `resident_cap` on the resident memory of the
    process tree, watched while it runs: GPU drivers reserve address ranges far above any cap
    (a run on a GPU device would fail at the driver's load, the tool's doing, not the module's).
    `env`: the tool's whole environment (default: this process's)."""
    ulimit = "" if resident_cap else f"ulimit -v {limits.memory_cap_mb * 1024} 2>/dev/null; "
    capped = ["/bin/sh", "-c", f'{ulimit}exec "$@"', "sh", *argv]
    start = time.monotonic()
    sink = open(stderr_file, "wb") if stderr_file is not None else None  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        capped,
        stdout=subprocess.PIPE,
        stderr=sink if sink is not None else subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    with _live_lock:
        _live.add(proc)
    try:
        out, err, hang = _wait_watching(proc, start + limits.timeout_s, limits.memory_cap_mb if resident_cap else None)
    finally:
        with _live_lock:
            _live.discard(proc)
        if sink is not None:
            sink.close()
    return record(
        ProcessResult(
            returncode=proc.returncode,
            stdout=clip_output(out.decode(errors="replace")),
            stderr=clip_output((err or b"").decode(errors="replace")),
            seconds=time.monotonic() - start,
            timed_out=hang in ("timeout", "deadlock"),
            deadlocked=hang == "deadlock",
            memory_capped=hang == "memory",
        )
    )


@contextlib.contextmanager
def processes_watched() -> Iterator[list[ProcessResult]]:
    """Every tool run this thread finishes while inside (nested scopes see theirs too): how an
    oracle learns whether its verdict was decided by a limit or by a tool that never started."""
    outer = getattr(_watched, "results", None)
    _watched.results = results = []
    try:
        yield results
    finally:
        _watched.results = outer
        if outer is not None:
            outer.extend(results)


def record(result: ProcessResult) -> ProcessResult:
    """Notes a finished tool run for the `processes_watched` scope of this thread, if any."""
    results = getattr(_watched, "results", None)
    if results is not None:
        results.append(result)
    return result


def _wait_watching(proc: subprocess.Popen, deadline: float, resident_cap_mb: int | None = None) -> tuple[bytes, bytes, str | None]:
    """The process's output once it ends; a hang ("timeout" or "deadlock"), or resident memory past
    `resident_cap_mb` ("memory"), kills its group first."""
    watch = DeadlockWatch(proc.pid)
    while True:
        try:
            out, err = proc.communicate(timeout=max(0.0, min(POLL_S, deadline - time.monotonic())))
            return out, err, None
        except subprocess.TimeoutExpired:
            hang = "timeout" if time.monotonic() >= deadline else "deadlock" if watch.poll() else None
            if hang is None and resident_cap_mb is not None and resident_mb(proc.pid) > resident_cap_mb:
                hang = "memory"
            if hang is not None:
                _kill_group(proc)
                out, err = proc.communicate()
                return out, err, hang


def resident_mb(root: int) -> float:
    """The resident memory of `root` and its descendants, in MiB (Linux; 0 elsewhere)."""
    total_kb = 0
    for pid in process_tree(root):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
                break
    return total_kb / 1024


def clip_output(text: str) -> str:
    """The head and the tail of a tool's output: diagnostics that print whole functions can run
    to megabytes, and the first error (the signature) is at the head."""
    if len(text) <= _OUTPUT_HEAD + _OUTPUT_TAIL:
        return text
    elided = len(text) - _OUTPUT_HEAD - _OUTPUT_TAIL
    return f"{text[:_OUTPUT_HEAD]}\n... {elided} characters elided ...\n{text[-_OUTPUT_TAIL:]}"


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def kill_all() -> None:
    """Kills every tool still running (on Ctrl-C), so no compiler outlives the reducer."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        _kill_group(proc)


@dataclass
class CompileResult:
    process: ProcessResult
    workdir: Path
    output: Path
    argv: list[str]

    @property
    def ok(self) -> bool:
        return self.process.returncode == 0 and not self.process.timed_out


# How this process spells compile flags, when its compiler is another release than the one the
# oracles' own flags are written for: set only by a release's judge (oracles/releases/judge.py),
# a process that judges one case with that release's compiler. None: as they are.
flag_spelling: Callable[[list[str]], list[str]] | None = None

# Compiles (flags, source, output, limits) elsewhere, e.g. in a warm worker; None: run the tool.
CompileElsewhere = Callable[[list[str], Path, Path, Limits], "ProcessResult | None"]


def compile_candidate(
    candidate: Candidate,
    flags: list[str],
    workdir: Path,
    limits: Limits,
    output_name: str = "out.vmfb",
    warm: CompileElsewhere | None = None,
    tool: str = "iree-compile",
) -> CompileResult:
    """Writes the candidate into workdir and runs `tool` (iree-compile, or iree-opt for one pass
    pipeline) on it with the given flags (through `warm` first when given; the tool when that declines)."""
    if flag_spelling is not None:
        flags = flag_spelling(list(flags))
    source = workdir / f"input{candidate.suffix}"
    candidate.write(source)
    output = workdir / output_name
    argv = [find_tool(tool), *flags, str(source), "-o", str(output)]
    process = warm(flags, source, output, limits) if warm is not None else None
    if process is None:
        process = run_tool(argv, limits, cwd=str(workdir))
    return CompileResult(process, workdir, output, argv)


def scratch_dir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="iree-reduce-")


@functools.cache
def iree_version() -> str:
    """The wheel and the compiler's own version line: 'iree-base-compiler 3.13.0 (IREE compiler version ...)'."""
    try:
        wheel = f"iree-base-compiler {importlib.metadata.version('iree-base-compiler')}"
    except importlib.metadata.PackageNotFoundError:
        wheel = "iree-compile"
    try:
        result = run_tool([find_tool("iree-compile"), "--version"], Limits(timeout_s=30))
    except ToolNotFound:
        return f"{wheel} (not found)"
    line = next((x.strip() for x in result.stdout.splitlines() if "IREE compiler version" in x), "")
    return f"{wheel} ({line})" if line else wheel
