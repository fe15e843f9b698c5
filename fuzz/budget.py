"""The wall-clock budget of one `fuzz run` / `fuzz nightly` command (`--time`): the whole command's.

A campaign followed by its reductions, each with its own time, made `--time 120s` take 431 s.
Here the command has one deadline, from its process's start: the campaign stops drawing cases
while the findings it has made can still be reduced in time (it keeps at least half of the time),
cases still running at the cut-off are dropped, each reduction gets a share of what is left (at
most --reduce-budget), and a few seconds stay for the root causes, the summary and the report.
What could not be reduced in time is listed with `fuzz reduce OUT`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

FINISH_S = 8.0  # root causes, summary, report: kept at the end of every command
MIN_REDUCTION_S = 20.0  # a reduction given less than this is not started: it would only load
REDUCTION_OVERHEAD = 1.3  # a reduction's final check, files and failing-pass step beyond its budget


@dataclass(frozen=True)
class CommandBudget:
    started: float  # time.monotonic() at the command's start
    seconds: float  # --time
    reduce: bool  # whether findings are reduced in this command
    per_reduction_s: float  # --reduce-budget: the most one reduction gets

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    @property
    def cut_off(self) -> float:
        """When cases still running are dropped: the end, less what comes after the campaign
        (everything, with --no-reduce; else the time for at least one reduction)."""
        after = FINISH_S + (MIN_REDUCTION_S * REDUCTION_OVERHEAD if self.reduce else 0.0)
        return max(self.started, self.deadline - after)

    def stop_drawing(self, waiting: int, now: float | None = None) -> bool:
        """Whether the campaign draws no more cases: `waiting` new findings wait for a reduction,
        and each gets about a reduction's time out of the later half of the budget at most."""
        now = time.monotonic() if now is None else now
        if now >= self.cut_off:
            return True
        if not self.reduce:
            return False
        if waiting == 0:
            return False
        each = min(self.per_reduction_s, 60.0) * REDUCTION_OVERHEAD
        reserve = max(MIN_REDUCTION_S * REDUCTION_OVERHEAD, min(self.seconds / 2, waiting * each))
        return now + reserve + FINISH_S >= self.deadline

    def reduction_budget(self, waiting: int, now: float | None = None) -> float | None:
        """The time budget of the next reduction, `waiting` of them left (this one included);
        None when too little is left to start one."""
        now = time.monotonic() if now is None else now
        left = self.deadline - FINISH_S - now
        share = min(self.per_reduction_s, left / max(1, waiting)) / REDUCTION_OVERHEAD
        if left / REDUCTION_OVERHEAD < MIN_REDUCTION_S:
            return None
        return max(MIN_REDUCTION_S, share)
