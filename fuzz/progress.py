"""What `fuzz run` and `fuzz conformance` show while they work (see `reducer.progress.Display`).

On a terminal: each new root cause printed as a line, and a live status line with the cases,
their rate, findings by class, new root causes, and the coverage reached (pipelines and targets
that compiled a case; the graph ops drawn so far that got through each of them). Otherwise: a
plain progress line every ten seconds, as CI logs had it before.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from fuzz.campaign import CampaignStats
from fuzz.conformance import Outcome
from fuzz.execute import CaseResult
from fuzz.findings import COMPILED
from reducer.progress import Display, ShowsProgress, elapsed_text

PLAIN_EVERY_S = 10.0


def _by_kind(counts: Counter) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) or "none"


class CampaignProgress(ShowsProgress):
    """Hand `case` and `update` to `run_campaign` (its `on_case` and `progress`); use as a context manager."""

    def __init__(self, pipelines: tuple[str, ...], stream: TextIO | None = None, quiet: bool = False) -> None:
        self.display = Display(self.status, stream, quiet)
        self.pipelines = pipelines
        self.stats = CampaignStats()
        self.reached: set[str] = set()  # pipelines and targets that compiled at least one case
        self.ops: set[str] = set()  # ONNX ops drawn so far
        self.pairs: set[tuple[str, str]] = set()  # (op, pipeline): a graph with the op compiled through it
        self._announced = 0
        self._last_plain = -PLAIN_EVERY_S

    def case(self, case: CaseResult) -> None:
        compiled = {run.pipeline for run in case.runs if run.status in COMPILED}
        self.reached |= compiled
        ops = {node[0] for node in json.loads(case.spec_json).get("nodes", [])}
        self.ops |= ops
        self.pairs.update((op, p) for op in ops for p in compiled)

    def update(self, stats: CampaignStats) -> None:
        self.stats = stats
        if self.display.live:
            for signature, case in stats.new[self._announced :]:
                finding = next((f for f in case.findings if f.signature == signature), None)
                where = f"{finding.kind} ({finding.pipeline})" if finding else "finding"
                self.display.line(f"new root cause: {where}: {signature[:110]}")
            self._announced = len(stats.new)
        elif stats.seconds - self._last_plain >= PLAIN_EVERY_S or stats.cases <= 1:
            self._last_plain = stats.seconds
            self.display.line(
                f"cases {stats.cases} ({stats.per_minute:.1f}/min), findings: {_by_kind(stats.by_kind)}; new {len(stats.new)}; "
                f"configurations {len(stats.configs)}"
            )

    def status(self) -> str:
        s = self.stats
        return (
            f"cases {s.cases} ({s.per_minute:.1f}/min) | findings: {_by_kind(s.by_kind)} | new root causes {len(s.new)} | "
            f"coverage: {len(self.reached)}/{len(self.pipelines)} pipelines compiled a case, "
            f"{len(self.pairs)}/{len(self.ops) * len(self.pipelines)} op x pipeline pairs, {len(s.configs)} dispatch configurations | "
            f"{elapsed_text(self.display.elapsed)}"
        )


class ConformanceProgress(ShowsProgress):
    """The conformance run's status: tests done of all, outcomes so far."""

    def __init__(self, total: int, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.display = Display(self.status, stream, quiet)
        self.total = total
        self.outcomes: Counter = Counter()

    def outcome(self, outcome: Outcome) -> None:
        self.outcomes[outcome.kind] += 1

    def status(self) -> str:
        done = sum(self.outcomes.values())
        return f"node tests {done}/{self.total} | {_by_kind(self.outcomes)} | {elapsed_text(self.display.elapsed)}"
