"""`fuzz run --time T` bounds the whole command: the split between drawing cases and reducing."""

from __future__ import annotations

from fuzz.budget import FINISH_S, MIN_REDUCTION_S, REDUCTION_OVERHEAD, CommandBudget


def test_the_campaign_keeps_drawing_until_its_findings_need_the_rest_of_the_time():
    budget = CommandBudget(started=0.0, seconds=600.0, reduce=True, per_reduction_s=300.0)
    assert not budget.stop_drawing(0, now=100.0)  # nothing waits: keep drawing
    assert not budget.stop_drawing(2, now=100.0)  # two reductions of about 78 s fit after 100 s
    assert budget.stop_drawing(10, now=301.0)  # ten wait: the later half of the time goes to them
    assert not budget.stop_drawing(10, now=250.0)  # but the campaign keeps at least half
    assert budget.stop_drawing(0, now=budget.cut_off)


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
