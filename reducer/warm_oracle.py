"""Switch an oracle to a warm compiler once it judges the current best exactly as `iree-compile` did."""

from __future__ import annotations

from collections.abc import Callable

from oracles import Oracle
from oracles.warm import WarmCompiler
from reducer.evaluate import Evaluator
from reducer.passes.base import Proposal


def attach_warm_compiler(oracle: Oracle, compiler: WarmCompiler, check: Proposal, evaluator: Evaluator, log: Callable[[str], None]) -> bool:
    """One warm compile of `check` against its cached isolated verdict; on any difference the
    oracle stays isolated (diagnostics printed differently would change every signature)."""
    if not oracle.warm_ok:
        compiler.shutdown()
        return False
    expected = evaluator.judge(check.candidate)
    oracle.warm = compiler
    seen = oracle.judge(check.candidate)
    evaluator.stats.oracle_calls += 1
    if (seen.interesting, seen.signature) == (expected.interesting, expected.signature):
        log(f"warm compiler on ({compiler.workers} workers)")
        return True
    oracle.warm = None
    compiler.shutdown()
    log(f"warm compiler off: it saw {seen.detail!r} where iree-compile saw {expected.detail!r}")
    return False
