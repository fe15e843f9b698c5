"""What the user gets at the end: a terminal summary and an issue-ready markdown report."""

from __future__ import annotations

from dataclasses import dataclass

from oracles import Verdict
from oracles.toolchain import iree_version
from reducer.evaluate import EvaluationStats
from reducer.passes.base import Proposal


@dataclass
class Outcome:
    oracle: str
    input_path: str
    output_path: str
    original: Proposal
    best: Proposal
    verdict: Verdict
    command: str
    stats: EvaluationStats
    seconds: float
    jobs: int
    dropped_flags: list[str]
    complete: bool = True


def summary(outcome: Outcome) -> str:
    o, b = outcome.original, outcome.best
    state = "reduced" if outcome.complete else "partial result (interrupted)"
    lines = [
        f"reduce: {outcome.oracle} on {outcome.input_path}: {state}",
        f"  ops           {o.ops} -> {b.ops}",
        f"  bytes         {o.candidate.size} -> {b.candidate.size}",
        f"  flags         {len(o.candidate.flags)} -> {len(b.candidate.flags)}",
        f"  oracle calls  {outcome.stats.oracle_calls} (cache hits {outcome.stats.cache_hits})",
        f"  wall time     {outcome.seconds:.1f} s with -j {outcome.jobs}",
        f"  failure       {outcome.verdict.detail}",
        f"  IREE          {iree_version()}",
        f"  wrote         {outcome.output_path}",
        f"  reproduce     {outcome.command}",
    ]
    if outcome.dropped_flags:
        lines.insert(4, f"  not flags     {' '.join(outcome.dropped_flags)} (dropped from the pasted command)")
    return "\n".join(lines)


def markdown(outcome: Outcome) -> str:
    b = outcome.best
    excerpt = outcome.verdict.excerpt or outcome.verdict.detail
    return f"""# {outcome.oracle}: {outcome.verdict.detail}

**IREE version:** `{iree_version()}`

## Reproduce

```shell
{outcome.command}
```

## Reduced input (`{outcome.output_path}`, {b.ops} ops, {b.candidate.size} bytes)

```mlir
{b.candidate.text.strip()}
```

## Error

```
{excerpt.strip()}
```

## Reduction

Reduced from {outcome.original.ops} ops / {outcome.original.candidate.size} bytes / {len(outcome.original.candidate.flags)} flags
to {b.ops} ops / {b.candidate.size} bytes / {len(b.candidate.flags)} flags with `reduce --oracle={outcome.oracle}`
({outcome.stats.oracle_calls} oracle calls, {outcome.seconds:.1f} s).
"""
