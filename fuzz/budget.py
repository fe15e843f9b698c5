"""The wall-clock budget of one `fuzz run` / `fuzz nightly` command (`--time`): the whole command's.

A campaign followed by its reductions, each with its own time, made `--time 120s` take 431 s.
Here the command has one deadline, from its process's start: the campaign stops drawing cases
while the findings it has made can still be reduced in time (it keeps at least half of the time),
each reduction gets a share of what is left (at most --reduce-budget), and a few seconds stay for
the root causes, the summary and the report.

The time the campaign hands over is the reductions' own: cases still running when drawing stops
for them get a few seconds more (`HAND_OVER_GRACE_S`), not the rest of the campaign's time, which
had let slow cases run to the last cut-off and a 2-minute campaign end with none of its 10
findings reduced. A campaign with no finding to reduce keeps drawing until the report's few
seconds are left. The cheapest findings are reduced first (the case's compile and run time), so
the time left reduces as many as it can; the command's last line counts those left unreduced by
why (`ReductionTally`). What could not be reduced in time is listed with `fuzz reduce OUT`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

FINISH_S = 8.0  # root causes, summary, report: kept at the end of every command
MIN_REDUCTION_S = 20.0  # a reduction given less than this is not started: it would only load
# A reduction's final check, files and failing-pass step beyond its budget: the failing-pass step
# gets up to the reduction's budget again (reducer/culprit.py), so a reduction takes about twice it.
REDUCTION_OVERHEAD = 2.0
HAND_OVER_GRACE_S = 5.0  # cases still running when drawing stops for the reductions: this much more
WRAP_UP_S = 3.0  # from the cut-off to the first reduction: workers killed, the campaign's tables printed


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
        """When cases still running are dropped with no new finding waiting: the end, less what
        comes after the campaign (everything, with --no-reduce; else the time for one reduction)."""
        after = FINISH_S + (MIN_REDUCTION_S * REDUCTION_OVERHEAD + WRAP_UP_S if self.reduce else 0.0)
        return max(self.started, self.deadline - after)

    def end_of_cases(self, pending: int) -> float:
        """The cut-off while `pending` findings of this run (a corpus entry's too) would be reduced
        after the campaign; with none, the end less the report: no reduction needs the time."""
        return self.cut_off if self.reduce and pending else max(self.started, self.deadline - FINISH_S)

    def reserve(self, waiting: int) -> float:
        """The time kept for `waiting` reductions: about a reduction's time each, out of the later
        half of the budget at most, and never less than one reduction's."""
        each = min(self.per_reduction_s, 60.0) * REDUCTION_OVERHEAD
        return max(MIN_REDUCTION_S * REDUCTION_OVERHEAD, min(self.seconds / 2, waiting * each))

    def hand_over(self, waiting: int) -> float:
        """When the campaign hands the rest of the time to `waiting` reductions (a time.monotonic())."""
        return self.deadline - FINISH_S - self.reserve(waiting)

    def stop_drawing(self, waiting: int, now: float | None = None, pending: int | None = None) -> bool:
        """Whether the campaign draws no more cases: the cut-off (`end_of_cases`, `pending` findings
        of this run; `waiting` by default), or `waiting` new findings wait for reductions that need
        the rest of the time."""
        now = time.monotonic() if now is None else now
        if now >= self.end_of_cases(waiting if pending is None else pending):
            return True
        return self.reduce and waiting > 0 and now >= self.hand_over(waiting)

    def cases_cut_off(self, waiting: int, pending: int | None = None) -> float:
        """When cases still running are dropped, `waiting` new findings waiting: a few seconds after
        the hand-over to their reductions, else at the cut-off (`end_of_cases`)."""
        if not self.reduce or waiting == 0:
            return self.end_of_cases(waiting if pending is None else pending)
        return min(self.cut_off, self.hand_over(waiting) + HAND_OVER_GRACE_S)

    def reduction_budget(self, waiting: int, now: float | None = None, overhead: float = REDUCTION_OVERHEAD) -> float | None:
        """The time budget of the next reduction, `waiting` of them left (this one included), each
        taking `overhead` times its budget in all; None when too little is left to start one."""
        now = time.monotonic() if now is None else now
        left = self.deadline - FINISH_S - now
        share = min(self.per_reduction_s, left / max(1, waiting)) / overhead
        if left / overhead < MIN_REDUCTION_S - 1e-9:
            return None
        return max(MIN_REDUCTION_S, share)


def learned_overhead(overhead: float, budget_s: float, took_s: float) -> float:
    """What a reduction takes beyond its budget, learned from the last one: its final check, files
    and failing-pass step are a few compiles of the case, which a loaded machine or a slow pipeline
    makes more than REDUCTION_OVERHEAD of a short budget (the failing-pass step took 37 s of a
    22-s reduction's 70 s at a load of 15 on 2 cores). Never below the default."""
    return max(REDUCTION_OVERHEAD, overhead, took_s / budget_s if budget_s > 0 else overhead)


def reduction_cost(runs: Iterable, spec_json: str) -> tuple[float, int]:
    """How dear a finding's reduction is likely to be: its case's pipeline seconds (one judgement),
    then its node count; the cheapest go first, so the time left reduces as many as it can."""
    seconds = sum(getattr(run, "seconds", 0.0) or 0.0 for run in runs)
    try:
        nodes = len(json.loads(spec_json).get("nodes", []))
    except (ValueError, AttributeError):
        nodes = 0
    return seconds, nodes


# Why a finding was left unreduced, as the command's last line says it.
NO_TIME = "no time left"
KNOWN = "a corpus entry has it"
NOT_REDUCED = "the reduction did not reduce it"
NO_REDUCE = "--no-reduce"


@dataclass
class ReductionTally:
    """The command's findings that waited for a reduction: how many were reduced, and why each of
    the others was not (reason -> count)."""

    reduced: int = 0
    left: dict[str, int] = field(default_factory=dict)
    signatures: list[str] = field(default_factory=list)  # of the findings reduced

    def leave(self, reason: str, count: int = 1) -> None:
        if count:
            self.left[reason] = self.left.get(reason, 0) + count

    def line(self) -> str:
        """'2 findings reduced, 8 left unreduced (7 no time left, 1 a corpus entry has it)'."""
        reduced = f"{self.reduced} finding{'' if self.reduced == 1 else 's'} reduced"
        unreduced = sum(self.left.values())
        if not unreduced:
            return f"{reduced}, none left unreduced"
        why = ", ".join(f"{count} {reason}" for reason, count in self.left.items())
        return f"{reduced}, {unreduced} left unreduced ({why})"
