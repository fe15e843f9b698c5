"""A warm compiler: `iree-compile`'s work through `iree.compiler.api` in long-lived workers.

A fresh `iree-compile` spends a good part of a second starting before it compiles anything; on
the small candidates of a reduction that is most of each call. Workers keep the compiler loaded.
Crash isolation is kept: workers are spawned processes, a compile that kills its worker is run
again as its own `iree-compile` process (which confirms the crash with its real signal and
output), and one past its time limit costs the pool and is a timeout. A flag only the command
line takes (`--mlir-print-debuginfo`, the tool's dump directories) sends the compile isolated.
The fuzzer's in-process backend runs `compile_in_process` in its own workers. A job with
`--pass-pipeline=` does `iree-opt`'s work instead (the failing-pass step's one-pass repro).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from ctypes import c_char_p, c_void_p
from pathlib import Path

from oracles.toolchain.deadlock import POLL_S, DeadlockWatch
from oracles.toolchain.orphans import exit_with_parent
from oracles.toolchain.tools import (
    Limits,
    ProcessResult,
    clip_output,
    record,
    tools_dir,
)

COMPILE_TO = "--compile-to="
COMPILE_FROM = "--compile-from="
PASS_PIPELINE = "--pass-pipeline="  # iree-opt's: the job runs that pipeline on the parsed source
MODULE_ANCHOR = "builtin.module("
_LOG_NAME = ".warm-compile.log"
_PID_NAME = ".warm-compile.pid"


def compile_in_process(source: Path, flags: Sequence[str], output: Path) -> bool | None:
    """Compiles like `iree-compile FLAGS SOURCE -o OUTPUT`, in this process; with iree-opt's
    `--pass-pipeline=P`, runs P on the parsed source as `iree-opt` does and writes the IR.

    True when it compiled, False when it failed (diagnostics go to fd 2, as the tool prints
    them), None when a flag is one only the command line takes or a pipeline is not anchored on
    the module: run the tool instead.
    """
    from iree.compiler import api

    phase = _flag_value(flags, COMPILE_TO) or "end"
    start = _flag_value(flags, COMPILE_FROM)
    pipeline = _flag_value(flags, PASS_PIPELINE)
    if pipeline is not None:
        # The invocation runs a pipeline on its root module: the tool's `builtin.module(...)`
        # anchor comes off (kept, it would nest and run nothing).
        if not (pipeline.startswith(MODULE_ANCHOR) and pipeline.endswith(")")):
            return None
        pipeline = pipeline[len(MODULE_ANCHOR) : -1]
    session_flags = [f for f in flags if not f.startswith((COMPILE_TO, COMPILE_FROM, PASS_PIPELINE))]
    with api.Session() as session:
        try:
            session.set_flags(*session_flags)
        except ValueError:  # a global (not per-session) option
            return None
        with session.invocation() as invocation:
            invocation.enable_console_diagnostics()
            if phase != "end" and not _set_phase(invocation, "To", phase):
                return None
            if start is not None and not _set_phase(invocation, "From", start):
                return None
            if not invocation.parse_source(api.Source.open_file(session, str(source))):
                return False
            if not (invocation.execute() if pipeline is None else invocation.execute_text_pass_pipeline(pipeline)):
                return False
            out = api.Output.open_file(str(output))
            (invocation.output_vm_bytecode if phase == "end" and pipeline is None else invocation.output_ir)(out)
            out.keep()
            out.close()
            return True


def _flag_value(flags: Sequence[str], prefix: str) -> str | None:
    """The value of the first `PREFIX=VALUE` flag, or None."""
    return next((f[len(prefix) :] for f in flags if f.startswith(prefix)), None)


def _set_phase(invocation, which: str, phase: str) -> bool:
    """`--compile-to` / `--compile-from` (`which` "To" / "From"): tool options the Python API
    leaves out; the C API it wraps has them."""
    try:
        from iree.compiler.api import ctypes_dl

        set_phase = getattr(ctypes_dl._dylib, f"ireeCompilerInvocationSetCompile{which}Phase")
        set_phase.argtypes, set_phase.restype = [c_void_p, c_char_p], None
        set_phase(invocation._inv_p, phase.encode())
    except AttributeError:  # another wheel's API: the command line still works
        return False
    return True


def spawn_pool(workers: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> ProcessPoolExecutor:
    """Workers that are spawned, not forked: a fork of a process whose compiler or MLIR context
    already runs threads inherits their locks held, and the child's first compile waits forever."""
    spawn = multiprocessing.get_context("spawn")
    setup = (os.getpid(), initializer, initargs)
    return ProcessPoolExecutor(max_workers=workers, initializer=_start_orphan_proof, initargs=setup, mp_context=spawn)


def _start_orphan_proof(parent_pid: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    """Every worker exits when the process that spawned it dies (oracles/toolchain/orphans.py), then sets up.

    It ignores Ctrl-C, which reaches every process of the terminal's group: the process that spawned
    it stops it, and one idle in its queue printed a KeyboardInterrupt traceback under the partial result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent_pid)
    if initializer is not None:
        initializer(*initargs)


def pool_processes(pool: ProcessPoolExecutor | None) -> list[multiprocessing.process.BaseProcess]:
    """The pool's live worker processes (none before its first job). concurrent.futures keeps them
    private; this is the one place that reads them."""
    return list((getattr(pool, "_processes", None) or {}).values())


def signal_workers(pool: ProcessPoolExecutor, signum: int) -> None:
    """Sends `signum` to every worker (one already gone is skipped)."""
    for process in pool_processes(pool):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signum)


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Kills every worker at once (one may hang in the compiler, where no shutdown reaches it)."""
    signal_workers(pool, signal.SIGKILL)
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:  # it sees the dead workers at once; gone, it leaves nothing for exit to wake
        manager.join(timeout=5)


class RespawningPool:
    """A spawned, orphan-proof pool that is started on first use and replaced when a worker dies
    (a compile or an edit that crashed it): one owner for the pool, its lock and its replacement."""

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: tuple) -> None:
        self._setup = (workers, initializer, initargs)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = spawn_pool(*self._setup)
            return self._pool

    def replace(self, broken: ProcessPoolExecutor) -> None:
        """Kills `broken` if it is still the current pool; the next use spawns a fresh one."""
        with self._lock:
            if self._pool is broken:
                kill_pool(broken)
                self._pool = None

    def shutdown(self) -> None:
        with self._lock:
            if self._pool is not None:
                kill_pool(self._pool)
                self._pool = None

    def worker_pids(self) -> list[int]:
        """The live workers' pids (none before first use)."""
        with self._lock:
            return [process.pid for process in pool_processes(self._pool)]


def _start_worker(memory_cap_mb: int, one_thread: bool = False) -> None:
    cap = memory_cap_mb * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    with _one_cpu_while(one_thread):
        from iree.compiler import api  # noqa: F401  (loads the compiler library before the first job)


@contextlib.contextmanager
def _one_cpu_while(on: bool) -> Iterator[None]:
    """Inside, this process may run on one CPU only. The compiler sizes its thread pool to the CPUs
    it may use, once, as its library loads (a session has no thread flag): loaded inside, each
    worker compiles on one thread, and afterwards the scheduler may still put it on any CPU."""
    cpus = os.sched_getaffinity(0) if on and hasattr(os, "sched_getaffinity") else set()
    if len(cpus) > 1:
        os.sched_setaffinity(0, {min(cpus)})
    try:
        yield
    finally:
        if len(cpus) > 1:
            os.sched_setaffinity(0, cpus)


def usable_cpus() -> int:
    """CPUs this process may run on (the machine's, unless an affinity mask or container narrows it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def compile_capturing(source: Path, flags: Sequence[str], output: Path) -> ProcessResult | None:
    """`compile_in_process` with its diagnostics as a `ProcessResult`, as `run_tool` gives them;
    None: a flag only the command line takes, run the tool instead."""
    start = time.monotonic()
    return _captured(_compile_job(str(source), list(flags), str(output), str(source.parent)), source, start)


def _captured(ok: bool | None, source: Path, start: float) -> ProcessResult | None:
    """A finished `_compile_job` as `run_tool` would report it; None passes "run the tool" on."""
    if ok is None:
        return None
    return ProcessResult(0 if ok else 1, "", _read_log(source), time.monotonic() - start)


def _read_log(source: Path) -> str:
    path = source.parent / _LOG_NAME
    text = path.read_text(errors="replace") if path.is_file() else ""
    path.unlink(missing_ok=True)
    (source.parent / _PID_NAME).unlink(missing_ok=True)
    return clip_output(text)


def _wait_watching(future: Future, workdir: Path, deadline: float) -> tuple[bool | None, str | None]:
    """(the job's result, None) once it ends, or (None, "timeout" / "deadlock") when it hangs: the
    worker running it is watched from the moment it names itself in `workdir`."""
    watch: DeadlockWatch | None = None
    while True:
        try:
            return future.result(timeout=max(0.0, min(POLL_S, deadline - time.monotonic()))), None
        except FutureTimeout:
            if time.monotonic() >= deadline:
                return None, "timeout"
            if watch is None:
                pid = _job_pid(workdir)
                watch = DeadlockWatch(pid) if pid is not None else None
            elif watch.poll():
                return None, "deadlock"


def _job_pid(workdir: Path) -> int | None:
    try:
        return int((workdir / _PID_NAME).read_text())
    except (OSError, ValueError):
        return None


def _compile_job(source: str, flags: list[str], output: str, workdir: str) -> bool | None:
    """One compile in a worker, its diagnostics caught in a file in the candidate's workdir."""
    Path(workdir, _PID_NAME).write_text(str(os.getpid()))  # whom the caller watches for a deadlock
    log = os.open(os.path.join(workdir, _LOG_NAME), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    saved_stderr, saved_cwd = os.dup(2), os.getcwd()
    os.dup2(log, 2)
    try:
        os.chdir(workdir)  # as the tool runs: relative paths in flags resolve there
        try:
            return compile_in_process(Path(source), flags, Path(output))
        except Exception:  # noqa: BLE001  (the API raises what the tool reports: the tool judges it, isolated)
            return None
    finally:
        os.chdir(saved_cwd)
        os.dup2(saved_stderr, 2)
        os.close(saved_stderr)
        os.close(log)


class WarmCompiler:
    """A pool of warm compiler workers, started on first use and replaced when one dies or hangs.

    Pickled (to a remote executor) it arrives switched off: a worker pool belongs to one process.
    """

    def __init__(self, workers: int, memory_cap_mb: int) -> None:
        self.workers = max(1, workers)
        self.memory_cap_mb = memory_cap_mb
        # Workers compile with the installed wheel's library: with other tools chosen, they would
        # judge with another compiler than the one the user named.
        self.enabled = tools_dir() is None
        self.crashes = 0  # compiles that killed a worker (each re-run isolated)
        # As many workers as CPUs: each compiles on one thread (more would only contend for them).
        one_thread = self.workers >= usable_cpus()
        self._pools = RespawningPool(self.workers, _start_worker, (self.memory_cap_mb, one_thread))

    def __repr__(self) -> str:
        return "WarmCompiler()"  # verdicts do not depend on where the compiler ran

    def __getstate__(self) -> dict:
        return {"workers": self.workers, "memory_cap_mb": self.memory_cap_mb}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["workers"], state["memory_cap_mb"])
        self.enabled = False

    def compile(self, flags: Sequence[str], source: Path, output: Path, limits: Limits) -> ProcessResult | None:
        """The compile's outcome as `run_tool` would give it, or None: run it isolated instead."""
        pool = self._current_pool()
        if pool is None:
            return None
        start = time.monotonic()
        try:
            future = pool.submit(_compile_job, str(source), list(flags), str(output), str(source.parent))
        except RuntimeError:  # replaced or shut down meanwhile
            return None
        except (OSError, AssertionError):  # this process may not start workers (a daemon, no fds left)
            self.shutdown()
            return None
        try:
            ok, hang = _wait_watching(future, source.parent, start + limits.timeout_s)
        except BrokenProcessPool:  # a worker died: the isolated re-run says how
            self.crashes += 1
            self._replace(pool)
            return None
        if hang is not None:
            self._replace(pool)
            elapsed = time.monotonic() - start
            return record(ProcessResult(-signal.SIGKILL, "", _read_log(source), elapsed, timed_out=True, deadlocked=hang == "deadlock"))
        captured = _captured(ok, source, start)
        return record(captured) if captured is not None else None

    def start(self) -> None:
        """Spawns the workers now (they load the compiler while the caller does other work)."""
        pool = self._current_pool()
        try:
            for _ in range(self.workers if pool is not None else 0):
                pool.submit(os.getpid)
        except (OSError, AssertionError):  # no workers here: every compile runs the tool
            self.shutdown()

    def shutdown(self) -> None:
        self.enabled = False
        self._pools.shutdown()

    def worker_pids(self) -> list[int]:
        return self._pools.worker_pids()

    def _current_pool(self) -> ProcessPoolExecutor | None:
        return self._pools.current() if self.enabled else None

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        self._pools.replace(broken)

