"""Failures that are not the compiler's: how a run of a tool went wrong before it judged anything.

An unknown flag, a device this build lacks, a file the command names that is not there, a
library that does not load, Python that does not start, or a memory cap too small to load the
compiler at all: reducing such a "failure" yields a small file that shows a different problem
than the user's. `setup_problem` names the cause and the fix in one line; `limit_hit` says when a
verdict was decided by this tool's own time limit or memory cap, or by a GPU out of memory, instead
of by the compiler or the module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from oracles.toolchain.tools import Limits, ProcessResult

# (pattern over a failed tool's output, message; {0} is the first group, {cap} the memory cap)
_SETUP_PROBLEMS: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), message)
    for pattern, message in (
        (r"failed to map segment from shared object|cannot allocate memory in static TLS block",
         "the tools cannot even load under --memory-cap-mb {cap} (their libraries do not fit): raise --memory-cap-mb (16384 is the default)"),
        (r"^(?:ImportError|ModuleNotFoundError): .*|^Fatal Python error: .*|^.*error while loading shared libraries: .*",
         "the tools do not start ({0}): reinstall the pinned wheels (pip install iree-base-compiler==3.13.0 iree-base-runtime==3.13.0)"),
        (r"Unknown command line argument '([^']*)'",
         "iree-compile rejects {0} (unknown command-line argument): drop or rename it in the pasted command"),
        (r'unregistered device alias "([^"]*)".*?(\(available = [^)]*\))?$',
         "iree-compile has no device \"{0}\" {1}: fix --iree-hal-target-device"),
        (r"Unknown (\w+) target '([^']*)'",
         "iree-compile does not know the {0} target '{1}': fix the target flag in the pasted command"),
        (r"missing GPU target in #hal.executable.target",
         "the target flags name a GPU this compiler has no target for (e.g. --iree-cuda-target=sm_90a): fix the target flag"),
        (r"INVALID_ARGUMENT; (input\d+ [^;\n]*|input list and function mismatch[^;\n]*)",
         "the run rejects its inputs ({0}): give --inputs that match the entry function's arguments"),
        (r"UNAVAILABLE; ((?:CUDA|HIP)[^;\n]*library[^;\n]*not available)|NOT_FOUND; (Vulkan loader library not found)",
         "the GPU driver does not load ({0}{1}): run on a machine with that GPU and its driver, or compile for the CPU"),
        (r"'([^'\n]+)': No such file or directory",
         "a file the command names does not exist ({0}): fix its path in the pasted command"),
    )
)
# A GPU out of memory: another process holds it, or the case is too big for it; not the module's bug.
_DEVICE_OUT_OF_MEMORY = re.compile(r"CUDA_ERROR_OUT_OF_MEMORY|hipErrorOutOfMemory|VK_ERROR_OUT_OF_DEVICE_MEMORY|"
                                   r"RESOURCE_EXHAUSTED;[^\n]*(?:device|GPU)[^\n]*memory", re.IGNORECASE)
_OUT_OF_MEMORY = re.compile(r"LLVM ERROR: out of memory|Allocation failed|std::bad_alloc|^MemoryError|Cannot allocate memory", re.MULTILINE)


def setup_problem(results: Iterable[ProcessResult], limits: Limits) -> str:
    """One line with the cause and the fix when a run failed for a reason other than the compiler's
    work on the input; "" when every failure is the compiler's own."""
    for result in results:
        if result.returncode == 0 or result.timed_out:
            continue
        output = f"{result.stderr}\n{result.stdout}"
        for pattern, message in _SETUP_PROBLEMS:
            match = pattern.search(output)
            if match is not None:
                groups = [g or "" for g in match.groups()] or [match.group(0).strip()]
                return " ".join(message.format(*groups, cap=limits.memory_cap_mb).split())
    return ""


def limit_hit(result: ProcessResult) -> str:
    """'timeout' or 'memory-cap' when this tool's own limit stopped the process, 'device-memory'
    when a GPU ran out of memory, else ''.

    Each depends on the machine's load and the cap chosen, not only on the input: such a verdict
    is judged again before it counts and never kept across runs. A deadlock is not one: every
    thread blocked with no CPU time is the compiler's own state.
    """
    if result.timed_out and not result.deadlocked:
        return "timeout"
    if result.memory_capped:
        return "memory-cap"
    if result.returncode != 0 and _DEVICE_OUT_OF_MEMORY.search(f"{result.stderr}\n{result.stdout}"):
        return "device-memory"
    if result.returncode != 0 and not result.timed_out and _OUT_OF_MEMORY.search(f"{result.stderr}\n{result.stdout}"):
        return "memory-cap"
    return ""
