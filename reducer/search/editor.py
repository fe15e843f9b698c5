"""Where candidate edits run: the MLIR bindings parse, walk and rewrite IR in native code, and a
crash there (a segfault in an LLVM thread) must be a verdict on one edit, not the end of a run.

`IsolatedEditor` runs each edit in a spawned worker process (`edit-worker`) that holds its own
MLIR context; when the worker dies the edit counts as invalid, a fresh worker takes the next one,
and the process that holds the search, its best result and its workers never sees the crash.
`LocalEditor` runs edits in the calling process: for places that are already a child of their own
(the culprit step) and for tests of a single pass.

An edit is a module-level function `fn(session, *args)`: a worker receives it by reference, so
nothing but its arguments and result crosses the process boundary.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from iree.compiler import ir

from oracles.mlir import ir as irx
from oracles.onnx.importer import import_in_process, import_model
from oracles.toolchain.tools import Limits, scratch_dir
from oracles.toolchain.warm import RespawningPool, pool_processes
from reducer.proposal import Proposal

R = TypeVar("R")


class EditCrashed(Exception):
    """The edit killed the process it ran in (a signal inside the bindings)."""


class EditSession:
    """What an edit may use: an MLIR context and ONNX imports under the oracle's limits (cached by
    content: a representation change is a pure function).

    `in_process`: imports run the importer's code here instead of starting `iree-import-onnx`
    (a Python start-up each): only where a crash is a verdict on one edit (the edit worker);
    one that runs past the time limit ends the worker, as a crash does.
    """

    def __init__(self, limits: Limits, opset_version: int | None, in_process: bool = False) -> None:
        self.ctx: ir.Context = irx.new_context()
        self._shared = self.ctx
        self.limits = limits
        self.opset_version = opset_version
        self.in_process = in_process
        self.imports = 0  # imports run (not served from the cache): the summary's "conversions"
        self._imported: dict[str, str | None] = {}

    def begin(self, args: tuple) -> None:
        """Picks the context the next edit runs in: the session's own, or a fresh one for IR that
        holds resource blobs, which a shared context would rename by its history (`w` parsed again
        prints `w_1`): an edit's output must depend on its input alone, or a verdict is missed and
        -j N (which makes speculative edits) would not write -j 1's bytes."""
        resources = any(irx.holds_resources(arg.candidate.text) for arg in args if isinstance(arg, Proposal))
        self.ctx = irx.new_context(lazy=True) if resources else self._shared

    def import_onnx(self, model: bytes) -> str | None:
        """A lifted graph imported back to MLIR (None: it does not import)."""
        key = hashlib.sha256(model).hexdigest()
        if key not in self._imported:
            self.imports += 1
            with scratch_dir() as tmp:
                if self.in_process:
                    with _ends_process_after(self.limits.timeout_s):
                        self._imported[key] = import_in_process(model, Path(tmp), self.opset_version)
                else:
                    self._imported[key], _ = import_model(model, Path(tmp), self.limits, self.opset_version)
        return self._imported[key]


# The exit status of an edit worker that ended itself: an in-process import ran past the time limit.
IMPORT_TIMED_OUT = 124


@contextlib.contextmanager
def _ends_process_after(seconds: float) -> Iterator[None]:
    """Ends this process if the block runs longer than `seconds` (nothing can stop native code in
    a thread); the editor sees a dead worker, and the edit counts as invalid."""
    timer = threading.Timer(seconds, os._exit, (IMPORT_TIMED_OUT,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


class LocalEditor:
    """Edits in this process."""

    def __init__(self, limits: Limits | None = None, opset_version: int | None = None) -> None:
        self.session = EditSession(limits or Limits(), opset_version)

    def call(self, fn: Callable[..., R], *args: Any) -> tuple[R, int]:
        """`fn(session, *args)` and how many ONNX imports it ran."""
        before = self.session.imports
        self.session.begin(args)
        return fn(self.session, *args), self.session.imports - before

    def shutdown(self) -> None:
        pass


class IsolatedEditor:
    """Edits in one spawned worker, replaced when an edit kills it."""

    def __init__(self, limits: Limits, opset_version: int | None = None, preload: tuple[str, ...] = ()) -> None:
        """`preload`: modules the worker imports as it starts (the edits' own, with every pass),
        while the original compiles, not on the first edit, where the search waits for them."""
        self._pools = RespawningPool(1, _start_worker, (limits, opset_version, preload))

    def call(self, fn: Callable[..., R], *args: Any) -> tuple[R, int]:
        """`fn(session, *args)` in the worker and how many ONNX imports it ran; raises EditCrashed
        when the worker died on it (the next call starts a fresh one)."""
        pool = self._pools.current()
        try:
            return pool.submit(_in_worker, fn, args).result()
        except BrokenProcessPool:
            death = _death_of(pool)
            self._pools.replace(pool)
            raise EditCrashed(death) from None

    def start(self) -> None:
        """Spawns the worker now: it loads the bindings while the caller does other work."""
        self._pools.current().submit(int)

    def shutdown(self) -> None:
        self._pools.shutdown()


Editor = LocalEditor | IsolatedEditor

_session: EditSession | None = None  # the worker's own


def _start_worker(limits: Limits, opset_version: int | None, preload: tuple[str, ...]) -> None:
    """Builds the worker's context once (like every spawned worker it ignores Ctrl-C: the search stops it)."""
    global _session
    import multiprocessing

    multiprocessing.current_process().name = "edit-worker"
    _session = EditSession(limits, opset_version, in_process=True)  # a crash here ends only this worker
    for module in preload:
        importlib.import_module(module)


def _in_worker(fn: Callable[..., R], args: tuple) -> tuple[R, int]:
    assert _session is not None
    before = _session.imports
    _session.begin(args)
    return fn(_session, *args), _session.imports - before


def _death_of(pool: ProcessPoolExecutor) -> str:
    """'signal 11 (SIGSEGV)' or 'exit 1': what the dead worker died of, as far as it is known."""
    for process in pool_processes(pool):
        with contextlib.suppress(ValueError):
            process.join(timeout=1)
        code = process.exitcode
        if code is not None and code < 0:
            with contextlib.suppress(ValueError):
                return f"signal {-code} ({signal.Signals(-code).name})"
            return f"signal {-code}"
        if code is not None:
            return f"exit {code}"
    return "the edit worker died"
