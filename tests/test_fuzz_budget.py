"""`fuzz run --time T` bounds the whole command: the split between drawing cases and reducing."""

from __future__ import annotations

import argparse
import time
import types

from fuzz import budget as budget_module
from fuzz import cli
from fuzz.budget import (
    FINISH_S,
    HAND_OVER_GRACE_S,
    MIN_REDUCTION_S,
    REDUCTION_OVERHEAD,
    WRAP_UP_S,
    CommandBudget,
    learned_overhead,
)
from fuzz.execute import CaseResult, Finding, PipelineRun
from fuzz.pool import run_with_isolated_reruns
from fuzz.triage import Triage


def test_the_campaign_keeps_drawing_until_its_findings_need_the_rest_of_the_time():
    budget = CommandBudget(started=0.0, seconds=600.0, reduce=True, per_reduction_s=300.0)
    assert not budget.stop_drawing(0, now=100.0)  # nothing waits: keep drawing
    assert not budget.stop_drawing(2, now=100.0)  # two reductions of about 78 s fit after 100 s
    assert budget.stop_drawing(10, now=301.0)  # ten wait: the later half of the time goes to them
    assert not budget.stop_drawing(10, now=250.0)  # but the campaign keeps at least half
    assert budget.stop_drawing(0, now=budget.cut_off, pending=1)  # a finding a corpus entry has: one reduction's time
    assert not budget.stop_drawing(0, now=budget.cut_off)  # nothing to reduce: the cases use that time too
    assert budget.stop_drawing(0, now=600.0 - FINISH_S)


def test_each_reduction_gets_a_share_of_what_is_left_and_none_starts_too_late():
    budget = CommandBudget(started=0.0, seconds=600.0, reduce=True, per_reduction_s=300.0)
    share = budget.reduction_budget(4, now=300.0)
    assert share is not None and share * REDUCTION_OVERHEAD * 4 <= 600.0 - FINISH_S - 300.0 + 1e-6
    assert budget.reduction_budget(1, now=100.0) == 300.0 / REDUCTION_OVERHEAD  # capped by --reduce-budget
    assert budget.reduction_budget(1, now=600.0 - FINISH_S - MIN_REDUCTION_S) is None  # too late to start one


def test_without_reductions_the_cases_run_until_the_end_less_the_report():
    budget = CommandBudget(started=10.0, seconds=120.0, reduce=False, per_reduction_s=300.0)
    assert budget.cut_off == 10.0 + 120.0 - FINISH_S
    assert not budget.stop_drawing(50, now=100.0)


def test_a_two_minute_campaign_hands_its_reserve_to_the_reductions_and_drops_slow_cases_soon_after():
    budget = CommandBudget(started=0.0, seconds=120.0, reduce=True, per_reduction_s=300.0)
    assert budget.cases_cut_off(0, pending=1) == budget.cut_off == 120.0 - FINISH_S - MIN_REDUCTION_S * REDUCTION_OVERHEAD - WRAP_UP_S
    assert budget.cases_cut_off(0) == 120.0 - FINISH_S  # no finding at all: the cases run to the report
    handed = budget.hand_over(1)  # a finding waits: the later half of the time is its reduction's
    assert handed == 120.0 - FINISH_S - 60.0 and budget.stop_drawing(1, now=handed) and not budget.stop_drawing(1, now=handed - 1)
    # Cases still running then get a few seconds, not the rest of the campaign's time (they had run
    # to the cut-off, 86 s, and left too little for any reduction).
    assert budget.cases_cut_off(1) == handed + HAND_OVER_GRACE_S < budget.cut_off
    assert budget.reduction_budget(10, now=budget.cases_cut_off(1) + 2.0) == MIN_REDUCTION_S  # at least one starts
    # A first finding made just before the cut-off: the cases stop at once, and one reduction still fits.
    assert budget.cases_cut_off(1) < 85.0 and budget.reduction_budget(1, now=budget.cut_off) is not None


def _sleeps(item: float, isolated: bool = False) -> float:
    time.sleep(item)
    return item


def test_the_pool_asks_the_moving_cut_off_again_and_drops_a_slow_case_at_it():
    done: list[float] = []
    start = time.monotonic()
    cut_off = [start + 600.0]

    def finish(result: float, again: bool) -> None:
        done.append(result)
        cut_off[0] = time.monotonic() + 1.0  # a finding came in: the cases are dropped soon after

    run_with_isolated_reruns(_sleeps, iter([0.1, 120.0]), finish, jobs=1, timeout_s=300, cut_off=lambda: cut_off[0])
    assert done == [0.1] and time.monotonic() - start < 60.0


def test_the_cheapest_findings_go_first_and_the_last_line_says_why_each_other_was_left(monkeypatch, tmp_path):
    def pair(signature: str, seconds: float) -> tuple[Finding, CaseResult]:
        runs = [PipelineRun("cpu", "compile error", seconds)]
        return Finding("compile error", "cpu", signature, ""), CaseResult(1, '{"nodes": []}', "", runs=runs)

    waiting = [pair("in corpus", 0.5), pair("late", 40.0), pair("known", 0.1), pair("cheap", 1.0), pair("middle", 5.0)]
    clock = [0.0]

    class Database:
        def __init__(self, path) -> None: ...
        def unreduced(self): return list(waiting)
        def set_reduction(self, *args) -> None: ...
        def close(self) -> None: ...

    reduced: list[str] = []

    def reduce_finding(finding, case, out, **options):
        reduced.append(finding.signature)
        clock[0] += {"cheap": 5.0, "middle": 50.0}[finding.signature]
        return Triage(tmp_path, "1 node", None if finding.signature == "cheap" else object())

    monkeypatch.setattr(cli, "FindingsDB", Database)
    monkeypatch.setattr(cli, "reduce_finding", reduce_finding)
    monkeypatch.setattr(budget_module, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    budget = CommandBudget(started=-40.0, seconds=120.0, reduce=True, per_reduction_s=300.0)  # 72 s left for reductions
    args = argparse.Namespace(out=tmp_path, reduce_budget=300.0, quiet=True, reduce_jobs=1)
    tally = cli._reduce_findings(args, frozenset({"known"}), budget, in_corpus=frozenset({"in corpus"}))
    assert reduced == ["cheap", "middle"]  # new and cheapest first; 'late' and 'in corpus' found too little time left
    assert tally.signatures == ["middle"]
    assert tally.line() == ("1 finding reduced, 4 left unreduced (2 a corpus entry has it, "
                            "1 the reduction did not reduce it, 1 no time left)")


def test_a_reduction_that_overran_its_budget_makes_the_next_ones_plan_for_it():
    budget = CommandBudget(started=0.0, seconds=600.0, reduce=True, per_reduction_s=300.0)
    overhead = learned_overhead(REDUCTION_OVERHEAD, 22.0, 70.0)  # the failing-pass step on a loaded machine
    assert overhead == 70.0 / 22.0 and learned_overhead(overhead, 60.0, 30.0) == overhead  # never forgets
    assert learned_overhead(REDUCTION_OVERHEAD, 60.0, 30.0) == REDUCTION_OVERHEAD  # never below the default
    assert budget.reduction_budget(1, now=540.0, overhead=overhead) is None  # 52 s left: not 20 s of passes and the rest
    assert budget.reduction_budget(1, now=540.0) is not None
