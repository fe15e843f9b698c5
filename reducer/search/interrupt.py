"""Ctrl-C, SIGTERM and SIGHUP as a request: the reduction stops at its next candidate, never inside a native call.

A KeyboardInterrupt raised asynchronously can land inside the MLIR bindings, where C++ turns it
into `terminate`; and compiles killed by it would come back as "not interesting" verdicts that
must not reach the on-disk cache. So a stop signal only records the request and kills the running
tools; the evaluator raises KeyboardInterrupt at its next submission, in plain Python. SIGTERM (a
job scheduler, `kill`) and SIGHUP (a closed terminal) do what Ctrl-C does; the exit status says
which came (128 + its number, as shells report a death by that signal).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from oracles.toolchain.tools import kill_all

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []  # the stop signals this process got, latest last (signals are per process)


def exit_status() -> int:
    """128 + the stop signal received (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP)."""
    return 128 + (_received[-1] if _received else signal.SIGINT)


class Interruption:
    def __init__(self) -> None:
        self._requested = threading.Event()

    @property
    def requested(self) -> bool:
        return self._requested.is_set()

    def request(self, signum: int = signal.SIGINT) -> None:
        _received.append(signum)
        self._requested.set()
        # The calls in flight end now (their verdicts are discarded). From a thread: the handler
        # may run while this thread holds the lock that kill_all takes.
        threading.Thread(target=kill_all, name="interrupt", daemon=True).start()

    def check(self) -> None:
        """Raises KeyboardInterrupt once a stop signal came; call it between native calls."""
        if self._requested.is_set():
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruption]:
        """Stop signals request the interruption while inside; outside the main thread, nothing changes."""
        with _handling(lambda signum, _: self.request(signum)):
            yield self


def _raise_interrupt(signum: int, _frame) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """Outside a reduction (parsing, writing the report), SIGTERM and SIGHUP raise KeyboardInterrupt
    as Ctrl-C does, so the command ends through the same path."""
    with _handling(_raise_interrupt):
        yield


@contextlib.contextmanager
def _handling(handler) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
