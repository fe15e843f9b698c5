"""Ctrl-C as a request: the reduction stops at its next candidate, never inside a native call.

A KeyboardInterrupt raised asynchronously can land inside the MLIR bindings, where C++ turns it
into `terminate`; and compiles killed by it would come back as "not interesting" verdicts that
must not reach the on-disk cache. So SIGINT only records the request and kills the running
tools; the evaluator raises KeyboardInterrupt at its next submission, in plain Python.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from oracles.toolchain.tools import kill_all


class Interruption:
    def __init__(self) -> None:
        self._requested = threading.Event()

    @property
    def requested(self) -> bool:
        return self._requested.is_set()

    def request(self) -> None:
        self._requested.set()
        # The calls in flight end now (their verdicts are discarded). From a thread: the handler
        # may run while this thread holds the lock that kill_all takes.
        threading.Thread(target=kill_all, name="interrupt", daemon=True).start()

    def check(self) -> None:
        """Raises KeyboardInterrupt once Ctrl-C was pressed; call it between native calls."""
        if self._requested.is_set():
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruption]:
        """SIGINT requests the interruption while inside; outside the main thread, nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = signal.signal(signal.SIGINT, lambda *_: self.request())
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)
