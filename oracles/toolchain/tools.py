"""Runs IREE's command-line tools isolated: own process group, wall-clock timeout, memory cap.

A crash, abort or hang of a tool becomes data (`ProcessResult`), never an exception here.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from oracles.candidate import Candidate

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MEMORY_CAP_MB = 16 * 1024
_OUTPUT_HEAD = 48 * 1024  # the first error, which signatures are made of
_OUTPUT_TAIL = 16 * 1024  # how it ended (a crash's stack dump)

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


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
    timed_out: bool = False

    @property
    def signal_name(self) -> str | None:
        if self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


@functools.cache
def find_tool(name: str) -> str:
    """Locates a tool next to the running interpreter first (the venv), then on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    raise ToolNotFound(
        f"{name} not found: install the pinned IREE wheels "
        f"(pip install iree-base-compiler==3.13.0 iree-base-runtime==3.13.0)"
    )


def run_tool(argv: list[str], limits: Limits, cwd: str | None = None) -> ProcessResult:
    """Runs argv under a memory cap in its own session; kills the whole group on timeout."""
    capped = ["/bin/sh", "-c", f'ulimit -v {limits.memory_cap_mb * 1024} 2>/dev/null; exec "$@"', "sh", *argv]
    start = time.monotonic()
    proc = subprocess.Popen(
        capped,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        start_new_session=True,
    )
    with _live_lock:
        _live.add(proc)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, err = proc.communicate()
    finally:
        with _live_lock:
            _live.discard(proc)
    return ProcessResult(
        returncode=proc.returncode,
        stdout=clip_output(out.decode(errors="replace")),
        stderr=clip_output(err.decode(errors="replace")),
        seconds=time.monotonic() - start,
        timed_out=timed_out,
    )


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


# Compiles (flags, source, output, limits) elsewhere, e.g. in a warm worker; None: run the tool.
CompileElsewhere = Callable[[list[str], Path, Path, Limits], "ProcessResult | None"]


def compile_candidate(
    candidate: Candidate,
    flags: list[str],
    workdir: Path,
    limits: Limits,
    output_name: str = "out.vmfb",
    warm: CompileElsewhere | None = None,
) -> CompileResult:
    """Writes the candidate into workdir and runs iree-compile on it with the given flags
    (through `warm` first when given; the tool when that declines)."""
    source = workdir / f"input{candidate.suffix}"
    candidate.write(source)
    output = workdir / output_name
    argv = [find_tool("iree-compile"), *flags, str(source), "-o", str(output)]
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
