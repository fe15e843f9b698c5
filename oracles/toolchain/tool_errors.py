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

from oracles import refusals
from oracles.toolchain.tools import Limits, ProcessResult

# (pattern over a failed tool's output, the refusal it means, the names of the pattern's groups in
# the refusal's message; the memory cap is the field `cap`)
_SETUP_PROBLEMS: tuple[tuple[re.Pattern, refusals.Refusal, tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.MULTILINE), refusal, groups)
    for pattern, refusal, groups in (
        (r"failed to map segment from shared object|cannot allocate memory in static TLS block",
         refusals.TOOLS_DO_NOT_LOAD_UNDER_CAP, ()),
        (r"^(?:ImportError|ModuleNotFoundError): .*|^Fatal Python error: .*|^.*error while loading shared libraries: .*",
         refusals.TOOLS_DO_NOT_START, ("error",)),
        (r"Unknown command line argument '([^']*)'", refusals.COMPILER_REJECTS_FLAG, ("flag",)),
        (r'unregistered device alias "([^"]*)".*?(\(available = [^)]*\))?$', refusals.NO_SUCH_COMPILE_DEVICE,
         ("device", "available")),
        (r"Unknown (\w+) target '([^']*)'", refusals.UNKNOWN_TARGET, ("backend", "target")),
        (r"missing GPU target in #hal.executable.target", refusals.GPU_TARGET_MISSING, ()),
        (r"INVALID_ARGUMENT; (input\d+ [^;\n]*|input list and function mismatch[^;\n]*)", refusals.RUN_REJECTS_INPUTS,
         ("reason",)),
        (r"UNAVAILABLE; ((?:CUDA|HIP)[^;\n]*library[^;\n]*not available)", refusals.GPU_DRIVER_DOES_NOT_LOAD, ("reason",)),
        (r"NOT_FOUND; (Vulkan loader library not found)", refusals.GPU_DRIVER_DOES_NOT_LOAD, ("reason",)),
        (r"'([^'\n]+)': No such file or directory", refusals.FILE_MISSING, ("path",)),
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
        for pattern, refusal, names in _SETUP_PROBLEMS:
            match = pattern.search(output)
            if match is not None:
                groups = [g or "" for g in match.groups()] or [match.group(0).strip()]
                return " ".join(refusal.say(**dict(zip(names, groups)), cap=limits.memory_cap_mb).split())
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
