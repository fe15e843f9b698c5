"""The answer an oracle gives about one candidate."""

from __future__ import annotations

from dataclasses import dataclass, field

from oracles.mlir.locations import FailureSite


@dataclass
class Verdict:
    """Interesting or not, with what the oracle saw.

    `signature` is a normalised failure identity (stable across reductions of one bug);
    `detail` is a human sentence of what was observed, used in summaries and in the exit-2
    message when the original input is not interesting; `excerpt` is raw compiler output for
    reports. `locations` are where the compiler's output points (diagnostics, offending ops),
    spelled `file:line:col` so a verdict stays plain data; `site` is filled only by
    `Oracle.locate`, whose verdicts are never cached.
    """

    interesting: bool
    signature: str = ""
    detail: str = ""
    metrics: dict[str, float | int | str] = field(default_factory=dict)
    excerpt: str = ""
    seconds: float = 0.0
    locations: list[str] = field(default_factory=list)
    site: FailureSite | None = None
