"""Before reducing: the failure must be the compiler's, and the limits must make sense.

A reduction of a failure the tool itself caused (a memory cap too small to load the compiler, a
hang limit shorter than any compile, a flag the compiler rejects) ends in a tiny file that shows
nothing of the user's bug, with exit 0. These checks refuse such a run with one line that says
the cause and the fix (`OracleSetupError`, exit 1) before any candidate is judged.
"""

from __future__ import annotations

import math
from pathlib import Path

from oracles import (
    Candidate,
    Oracle,
    OracleOptions,
    OracleSetupError,
    Verdict,
    refusals,
)
from oracles.toolchain.tools import Limits, scratch_dir

# The smallest program worth compiling: what any compile with the user's flags costs at least.
TRIVIAL_PROGRAM = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
HANG_ORACLE = "timeout"


def check_limits(options: OracleOptions, jobs: int, time_budget_s: float | None) -> None:
    """Refuses limits that cannot be meant: zero or negative times, sizes and counts."""
    values = {
        "--timeout": options.limits.timeout_s,
        "--memory-cap-mb": options.limits.memory_cap_mb,
        "--hang-seconds": options.hang_seconds,
        "-j/--jobs": jobs,
        "--time-budget": time_budget_s,
        "--lds-bytes": options.lds_bytes,
        "--threshold": options.threshold,
    }
    for name, value in values.items():
        if value is not None and not value > 0:
            raise OracleSetupError(refusals.LIMIT_NOT_POSITIVE.say(name=name, value=value))


def check_candidate_timeout(seconds: float | None) -> None:
    """Refuses a negative `--candidate-timeout` (0 is none below --timeout)."""
    if seconds is not None and seconds < 0:
        raise OracleSetupError(refusals.CANDIDATE_TIMEOUT_NEGATIVE.say(value=seconds))


def check_shrink_threshold(share: float) -> None:
    """Refuses a `--shrink-threshold` outside [0, 0.5): at a half or more a search would skip halvings."""
    if not 0 <= share < 0.5:
        raise OracleSetupError(refusals.SHRINK_THRESHOLD_RANGE.say(value=share))


def trivial_compile_seconds(oracle: Oracle, flags: list[str] | tuple[str, ...]) -> float | None:
    """How long the oracle's compile of a trivial program takes with these flags (None: it failed)."""
    with scratch_dir() as tmp:
        limits = Limits(timeout_s=60.0, memory_cap_mb=oracle.options.limits.memory_cap_mb)
        result = oracle.compile(Candidate(TRIVIAL_PROGRAM, tuple(flags)), Path(tmp), limits=limits).process
    return result.seconds if result.returncode == 0 and not result.timed_out else None


def check_hang_limit(oracle: Oracle, flags: list[str] | tuple[str, ...]) -> None:
    """Refuses a `--hang-seconds` that any compile with these flags would exceed: every candidate,
    the empty one included, would "hang"."""
    if oracle.name != HANG_ORACLE:
        return
    seconds = trivial_compile_seconds(oracle, flags)
    hang = oracle.options.hang_seconds
    if seconds is not None and hang <= seconds:
        suggestion = max(10, math.ceil(5 * seconds))
        raise OracleSetupError(refusals.HANG_BELOW_TRIVIAL.say(hang=hang, seconds=seconds, suggestion=suggestion))


def check_original(verdict: Verdict, oracle: Oracle) -> None:
    """Refuses an original whose verdict is not the compiler's: a tool that did not run it (an
    unknown flag, a missing file, a tool that does not start) or this tool's own limit (for every
    oracle but `timeout`, whose failure is running past its limit)."""
    if verdict.tool_error:
        raise OracleSetupError(refusals.TOOL_PROBLEM.say(problem=verdict.tool_error))
    limits = oracle.options.limits
    if verdict.limit == "memory-cap":
        raise OracleSetupError(refusals.MEMORY_CAP_ORIGINAL.say(cap=limits.memory_cap_mb))
    if verdict.limit == "device-memory":
        raise OracleSetupError(refusals.GPU_OOM_ORIGINAL.say())
    if verdict.limit == "timeout" and oracle.name != HANG_ORACLE:
        raise OracleSetupError(refusals.TIMEOUT_ORIGINAL.say(timeout=limits.timeout_s))
