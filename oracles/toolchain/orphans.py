"""Worker processes that do not outlive the process that started them, however it died.

A `reduce` killed by SIGKILL (or a segfault) runs no cleanup: its warm compiler workers would
idle on, holding a compiler's memory each, for as long as the machine stays up. A worker asks the
kernel for SIGKILL when its parent goes (`prctl(PR_SET_PDEATHSIG)`, Linux) and, where that is
missing or the parent died before it was set, a daemon thread notices its parent pid change.
The kernel's signal follows the *thread* that spawned the worker, so pools spawn from threads that
live as long as the pool (the main thread, or an executor's worker threads).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_S = 1.0


def exit_with_parent(parent_pid: int) -> None:
    """Makes this process exit when `parent_pid` (its parent now) is gone."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # it died before the kernel could be told
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_S)
    os._exit(1)  # reparented: the parent is gone
