"""`iree-compile` with a fault on request: the real compiler, unless the input asks for trouble.

Installed by tests/test_faults.py as `iree-compile` in a directory named by IREE_REDUCE_TOOLS_DIR.
Environment:
  FAULT_SHIM_MODE    segv | abort | hang | deadlock | alloc | garbage
  FAULT_SHIM_WHEN    the fault fires only when the input file contains this text (default: always)
  FAULT_SHIM_UNLESS  ... and only when it does not contain this text
  FAULT_SHIM_TIMES   at most this many times per distinct input (counted in FAULT_SHIM_STATE)
  FAULT_SHIM_REAL    the real iree-compile (default: the one beside this interpreter)
Every other run execs the real compiler with the same arguments.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import random
import sys
import threading
from pathlib import Path


def _input_text(args: list[str]) -> str:
    for arg in args:
        if not arg.startswith("-") and arg.endswith((".mlir", ".mlirbc")) and Path(arg).is_file():
            return Path(arg).read_text(errors="replace")
    return ""


def _fires(text: str) -> bool:
    when, unless = os.environ.get("FAULT_SHIM_WHEN"), os.environ.get("FAULT_SHIM_UNLESS")
    if (when and when not in text) or (unless and unless in text) or not text:
        return False
    times = os.environ.get("FAULT_SHIM_TIMES")
    if times is None:
        return True
    state = Path(os.environ["FAULT_SHIM_STATE"])
    state.mkdir(parents=True, exist_ok=True)
    counter = state / hashlib.sha256(text.encode()).hexdigest()
    seen = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(seen + 1))
    return seen < int(times)


def _fault(mode: str) -> None:
    if mode == "segv":
        sys.stderr.write("Please report issues to https://github.com/iree-org/iree/issues and include the crash backtrace.\n")
        sys.stderr.flush()
        ctypes.string_at(0)  # a real SIGSEGV
    elif mode == "abort":
        sys.stderr.write("iree-compile: FaultShim.cpp:42: void inject(): Assertion `candidate && \"fault shim\"' failed.\n")
        sys.stderr.flush()
        os.abort()
    elif mode == "hang":
        while True:  # runnable forever: a slow compile, not a deadlock
            pass
    elif mode == "deadlock":
        lock = threading.Lock()
        lock.acquire()
        threading.Thread(target=lock.acquire).start()
        lock.acquire()  # every thread now waits on a futex
    elif mode == "alloc":
        malloc = ctypes.CDLL(None).malloc
        malloc.restype, malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        while malloc(256 << 20):  # address space only, never touched: the cap stops it, not the RAM
            pass
        sys.stderr.write("LLVM ERROR: out of memory\nAllocation failed\n")
        sys.stderr.flush()
        os.abort()
    elif mode == "garbage":
        noise = random.Random(7).randbytes(1 << 20)
        os.write(1, noise)
        os.write(2, b"\x1b[31m\xff\xfe error: \x00\x00 " + noise)
        sys.exit(1)
    raise SystemExit(f"fault shim: unknown FAULT_SHIM_MODE {mode!r}")


def main() -> None:
    args = sys.argv[1:]
    mode = os.environ.get("FAULT_SHIM_MODE")
    if mode and _fires(_input_text(args)):
        _fault(mode)
    real = os.environ.get("FAULT_SHIM_REAL") or str(Path(sys.executable).parent / "iree-compile")
    os.execv(real, [real, *args])


if __name__ == "__main__":
    main()
