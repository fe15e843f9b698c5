"""The search strategies on synthetic sets: what they find, and that it is 1-minimal."""

from __future__ import annotations

import itertools
import random
import threading
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import pytest

from oracles import Candidate, Oracle, Verdict
from reducer.proposal import Proposal
from reducer.search.ddmin import WINDOW, bisect, ddmin, merge
from reducer.search.protocol import ReductionPass, Search, ShrinkPass


class SetReduction:
    """Targets are the elements of a frozenset; a proposal removes the chosen ones."""

    def __init__(self, items, interesting):
        self.current = frozenset(items)
        self.interesting = interesting
        self.tests = 0

    def ordered(self):
        return sorted(self.current)

    def count(self):
        return len(self.current)

    def propose(self, indices):
        items = self.ordered()
        drop = {items[i] for i in indices if i < len(items)}
        return self.current - drop if drop else None

    def judge_all(self, proposals):
        answers = [self.interesting(p) for p in proposals]
        self.tests += len(answers)
        return answers

    def commit(self, proposal):
        self.current = proposal
        self.commits += 1

    commits = 0

    def run(self, window=WINDOW):
        while ddmin(self.count, self.propose, self.judge_all, self.commit, window=window):
            pass
        return self.current


def assert_one_minimal(result, interesting):
    assert interesting(result)
    for item in result:
        assert not interesting(result - {item}), f"removing {item} keeps it interesting: not 1-minimal"


@pytest.mark.parametrize(
    "needed",
    [{7}, {0, 99}, {3, 4, 5}, set(range(10, 20)), {1, 50, 98}],
)
def test_ddmin_finds_exactly_the_needed_elements(needed):
    reduction = SetReduction(range(100), lambda s: needed <= s)
    assert reduction.run() == frozenset(needed)


def test_ddmin_single_failure_costs_logarithmic_tests():
    reduction = SetReduction(range(1024), lambda s: 517 in s)
    assert reduction.run() == {517}
    assert reduction.tests <= 60  # ~2 log2(n); a linear scan would need ~1000


def test_ddmin_result_is_one_minimal_for_non_monotone_predicates():
    # Interesting when the set holds an even count of elements from {2, 3, 5, 7} and at least one: not monotone.
    def interesting(s):
        hits = len(s & {2, 3, 5, 7})
        return hits >= 2 and hits % 2 == 0

    result = SetReduction(range(40), interesting).run()
    assert_one_minimal(result, interesting)
    assert len(result) == 2


def test_ddmin_result_is_one_minimal_for_pairs():
    for a, b in itertools.combinations([0, 13, 31, 63], 2):
        interesting = lambda s, a=a, b=b: a in s and b in s
        result = SetReduction(range(64), interesting).run()
        assert result == {a, b}


def test_bisect_finds_earliest_position_with_few_probes():
    # Positions 0..999; cutting at p is interesting from p = 613 on (monotone).
    probes = []

    def judge_all(props):
        probes.extend(props)
        return [p >= 613 for p in props]

    found = []
    assert bisect(lambda: 1000, lambda idx: idx[0], judge_all, found.append)
    assert found == [613]
    assert len(probes) <= 2 * 8  # arity 3: two probes a round, ~log3(1000) rounds


def test_bisect_reports_nothing_when_no_position_works():
    found = []
    assert not bisect(lambda: 50, lambda idx: idx[0], lambda props: [False] * len(props), found.append)
    assert found == []


def _hits(reduction, indices):
    return [(reduction.propose([i]), range(i, i + 1)) for i in indices]


def test_merge_commits_the_union_of_successes_in_one_call():
    reduction = SetReduction(range(20), lambda s: 7 in s)
    merged, chunks = merge(_hits(reduction, [1, 4, 9, 12]), reduction.propose, reduction.judge_all)
    assert merged == frozenset(range(20)) - {1, 4, 9, 12}
    assert [c.start for c in chunks] == [1, 4, 9, 12]
    assert reduction.tests == 1


def test_merge_falls_back_to_the_earlier_half_when_the_union_fails():
    # Any single removal is fine, but the set must keep at least 18 of 20 elements.
    reduction = SetReduction(range(20), lambda s: len(s) >= 18)
    merged, chunks = merge(_hits(reduction, [1, 4, 9, 12, 15]), reduction.propose, reduction.judge_all)
    assert merged == frozenset(range(20)) - {1, 4}  # {1,4,9,12,15} fails, {1,4,9} fails, {1,4} holds
    assert [c.start for c in chunks] == [1, 4]
    assert reduction.tests == 3  # one oracle call per binary step


def test_merging_needs_fewer_commits_and_keeps_the_result():
    needed = {3, 17, 40, 41, 77}
    merged = SetReduction(range(100), lambda s: needed <= s)
    one_by_one = SetReduction(range(100), lambda s: needed <= s)
    assert merged.run() == one_by_one.run(window=1) == frozenset(needed)
    assert merged.commits < one_by_one.commits


def test_merged_result_is_one_minimal_when_successes_conflict():
    # Each element of 10..29 may go, but at most 5 of them: successes in a window conflict.
    def interesting(s):
        return {0, 50} <= s and len(s & set(range(10, 30))) >= 15

    result = SetReduction(range(60), interesting).run()
    assert_one_minimal(result, interesting)


@pytest.mark.parametrize("workers", [1, 2, 5])
def test_result_and_candidates_tried_do_not_depend_on_how_many_run_at_once(workers):
    # Verdicts arrive in random order from a pool; what is tried and found must not change.
    rng = random.Random(workers)

    def interesting(s):
        time.sleep(rng.random() / 2000)
        return {5, 6, 60} <= s and len(s) % 3 != 1

    def run(pool_size):
        reduction = SetReduction(range(80), interesting)
        tried = []
        with ThreadPoolExecutor(pool_size) as pool:

            def judge_all(proposals):
                proposals = list(proposals)
                tried.extend(sorted(p) for p in proposals)
                return list(pool.map(interesting, proposals))

            while ddmin(reduction.count, reduction.propose, judge_all, reduction.commit):
                pass
        return reduction.current, tried

    assert run(workers) == run(1)


@pytest.mark.parametrize("needed", [{7}, {0, 99}, {3, 4, 5}, {1, 50, 98}])
def test_guesses_of_idle_workers_change_neither_the_result_nor_what_decides_it(needed):
    """-j 2 judges the search's guesses at its next step too: the commits and every candidate the
    search itself asks are those of -j 1."""

    def interesting(s):
        return needed <= s

    def run(guessing: bool):
        reduction = SetReduction(range(100), interesting)
        asked, guessed = [], []

        def judge_all(proposals):
            proposals = list(proposals)
            asked.extend(proposals)
            return reduction.judge_all(proposals)

        def guess(proposals):  # one idle worker: takes the first valid guess
            first = next((p for p in proposals if p is not None), None) if proposals is not None else None
            if first is not None:
                guessed.append(first)

        while ddmin(reduction.count, reduction.propose, judge_all, reduction.commit, guess=guess if guessing else None):
            pass
        return reduction.current, asked, guessed

    plain, plain_asked, _ = run(False)
    result, asked, guessed = run(True)
    assert (result, asked) == (plain, plain_asked)
    assert result == frozenset(needed)
    assert guessed


def test_a_later_round_runs_first_the_passes_that_removed_most_per_candidate():
    """Round 1 keeps the table's order; round 2 ranks by what each pass removed per candidate it
    judged (ops before bytes; none removed: the table's order), and a resumed round keeps its order."""
    from collections import namedtuple

    from reducer.search.engine import PassRecord, Reducer, Reduction
    from reducer.storage.resume_state import Position

    Row = namedtuple("Row", "name search impl")
    rows = [Row(name, "ddmin", None) for name in ("symbols", "ops", "attributes", "shapes")]
    records = {"symbols": PassRecord(candidates=3), "ops": PassRecord(ops_removed=5, bytes_removed=900, candidates=12),
               "attributes": PassRecord(bytes_removed=250, candidates=29), "shapes": PassRecord(bytes_removed=21, candidates=60)}
    result = Reduction(None, None, passes=records)
    reducer = Reducer(None, rows)
    first = Position(round=1)
    assert [row.name for row in reducer._round_order(result, first)] == ["symbols", "ops", "attributes", "shapes"]
    later = Position(round=2)
    assert [row.name for row in reducer._round_order(result, later)] == ["ops", "attributes", "shapes", "symbols"]
    assert later.order == ["ops", "attributes", "shapes", "symbols"]  # saved with --resume's position
    resumed = Position(round=2, pass_index=1, order=["shapes", "symbols", "ops", "attributes"])
    assert [row.name for row in reducer._round_order(result, resumed)] == resumed.order


def _read_sizes(text: str) -> dict[str, int]:
    """`b=64 a=64 d=8` -> {"b": 64, "a": 64, "d": 8}."""
    return {key: int(value) for key, value in (pair.split("=") for pair in text.split())}


class _Sizes(ShrinkPass):
    """Sizes written as `b=64 a=64 d=8`; `d` is a target only once `a` is small (as a kernel's
    width becomes one once its height has shrunk)."""

    def dimensions(self, current, ctx):
        sizes = _read_sizes(current.candidate.text)
        return [(k, v) for k, v in sizes.items() if k != "d" or sizes["a"] <= 4]

    def resize(self, current, key, size, ctx, convert):
        if size >= dict(self.dimensions(current, ctx)).get(key, 0):
            return None
        sizes = {**_read_sizes(current.candidate.text), key: size}
        return Proposal(Candidate(" ".join(f"{k}={v}" for k, v in sizes.items())), 1)


class _Inline(Executor):
    """Runs each call as it is submitted: a search that stops reading at its first hit withdraws
    no call unstarted, so the calls counted do not depend on how fast a worker picks them up."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # noqa: BLE001 (handed to the waiter, as a pool does)
            future.set_exception(error)
        return future


class _NeedsTwiceD(Oracle):
    """Interesting while b >= 2 * d: b can only go lower once d has."""

    name = "needs-twice-d"
    summary = "b >= 2 d"

    def observe(self, candidate, workdir):
        sizes = _read_sizes(candidate.text)
        return Verdict(sizes["b"] >= 2 * sizes["d"], "b >= 2 d", "")


def _shrunk(text: str, oracle: Oracle, shapes: ShrinkPass) -> tuple[str, int]:
    """The sizes one shape pass leaves `text` at, at -j 1, and the oracle calls it took."""
    from collections import namedtuple

    from reducer.search.engine import Reducer
    from reducer.search.problem import ReductionProblem

    Row = namedtuple("Row", "name search impl")
    problem = ReductionProblem(Proposal(Candidate(text), 1), oracle, jobs=1, executor=_Inline())
    Reducer(problem, [Row("shrink", Search.SHRINK, shapes)], shrink_threshold=0.0).run()
    return problem.best.candidate.text, problem.stats.oracle_calls


def test_a_shape_sweep_searches_new_and_moved_dims_before_rechecking_settled_ones(monkeypatch):
    """A dimension that appears mid-search (d) is searched before the rechecks of settled ones,
    so they recheck against the best it leaves: the same sizes, fewer oracle calls than rechecking
    in the table's order first (each of those goes stale once d shrinks, and is judged again)."""
    from reducer.search.engine import Reducer

    ordered, ordered_calls = _shrunk("b=64 a=64 d=8", _NeedsTwiceD(), _Sizes())
    monkeypatch.setattr(Reducer, "_sweep_order", lambda self, name, sizes: [key for key, _ in sizes])
    in_table_order, table_calls = _shrunk("b=64 a=64 d=8", _NeedsTwiceD(), _Sizes())
    assert ordered == in_table_order == "b=2 a=1 d=1"
    assert ordered_calls < table_calls


class _LargestFirst(ShrinkPass):
    """Sizes written as `p=60 r=55 q=50`, listed largest first (as ONNX value classes are)."""

    def dimensions(self, current, ctx):
        return sorted(_read_sizes(current.candidate.text).items(), key=lambda item: -item[1])

    def resize(self, current, key, size, ctx, convert):
        sizes = _read_sizes(current.candidate.text)
        if size >= sizes.get(key, 0):
            return None
        return Proposal(Candidate(" ".join(f"{k}={v}" for k, v in {**sizes, key: size}.items())), 1)


class _RFixedPAtLeastQ(Oracle):
    """Interesting while r >= 55 and p >= q: p can only go below 50 once q has."""

    name = "p-at-least-q"
    summary = "r >= 55, p >= q"

    def observe(self, candidate, workdir):
        sizes = _read_sizes(candidate.text)
        return Verdict(sizes["r"] >= 55 and sizes["p"] >= sizes["q"], "r >= 55, p >= q", "")


def test_a_shape_sweep_rechecks_the_longest_settled_dimension_first(monkeypatch):
    """p settles at 50 (q's size), r cannot move, then q falls to 1. p settled first, so the next
    sweep rechecks it first: it moves, and r's recheck, judged after it, is not stale. Listed
    largest first, r (55) would be rechecked before p (50) and judged again once p moved."""
    from reducer.search.engine import Reducer

    oldest_first, oldest_first_calls = _shrunk("p=60 r=55 q=50", _RFixedPAtLeastQ(), _LargestFirst())

    def as_listed(self, name, sizes):  # the rechecks in the order the pass lists its dimensions
        fresh = self._unsettled(name, sizes)
        return fresh + [key for key, _ in sizes if key not in fresh]

    monkeypatch.setattr(Reducer, "_sweep_order", as_listed)
    largest_first, largest_first_calls = _shrunk("p=60 r=55 q=50", _RFixedPAtLeastQ(), _LargestFirst())
    assert oldest_first == largest_first == "p=1 r=55 q=1"
    assert oldest_first_calls < largest_first_calls


def test_an_idle_worker_ahead_of_a_shape_pass_judges_its_first_probes():
    """The spare work ahead of a shape pass is what its sweep judges first on the best as it is:
    a new dimension's smallest sizes, or every settled one's step down (in a last round, often
    the only compile its shapes cost, judged while the passes before it run)."""
    from collections import namedtuple

    from reducer.search.engine import Reducer
    from reducer.search.problem import ReductionProblem
    from reducer.storage.resume_state import Position

    Row = namedtuple("Row", "name search impl")
    problem = ReductionProblem(Proposal(Candidate("b=64 a=2 d=1"), 1), _NeedsTwiceD(), jobs=2)
    start = Position(settled=[("shrink", "b", 64)])
    reducer = Reducer(problem, [Row("shrink", Search.SHRINK, _Sizes())], start=start, shrink_threshold=0.0)
    # A new dimension first: its search usually moves the best, so nothing after it is judged ahead.
    assert [p.candidate.text for p in reducer.first_candidates()] == ["b=64 a=1 d=1"]
    settled = Position(settled=[("shrink", "b", 64), ("shrink", "a", 2)])
    reducer = Reducer(problem, [Row("shrink", Search.SHRINK, _Sizes())], start=settled, shrink_threshold=0.0)
    assert [p.candidate.text for p in reducer.first_candidates()] == ["b=63 a=2 d=1", "b=64 a=1 d=1"]


class _HoldsAtOneAtOnce(Oracle):
    """Size 1 holds at once; the call on any other size runs until the test releases it."""

    name = "holds-at-one"
    summary = "1 holds"

    def __init__(self) -> None:
        super().__init__()
        self.released, self.slow_call_ended = threading.Event(), threading.Event()
        self.observed: list[str] = []  # the test's record of the calls that ran

    def observe(self, candidate, workdir):
        self.observed.append(candidate.text)
        if candidate.text != "1":
            self.released.wait(60)
            self.slow_call_ended.set()
        return Verdict(True, "holds", "")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_search_taking_the_first_hit_in_order_goes_on_while_the_calls_after_it_run(jobs):
    """A shrink search takes the smallest size that holds of those judged together (1, 2 and the
    step down): once 1 holds, it goes on while the call on 2 still runs; a call no worker started
    yet is withdrawn, and the count of calls says what ran."""
    from reducer.search.evaluate import Evaluator

    oracle = _HoldsAtOneAtOnce()
    evaluator = Evaluator(oracle, jobs=jobs)
    verdicts = evaluator.verdicts([Proposal(Candidate(size), 1) for size in ("1", "2", "3")],
                                  enough=lambda proposal, verdict: verdict.interesting)
    went_on_while_it_ran = not oracle.slow_call_ended.is_set()
    oracle.released.set()
    evaluator.executor.shutdown(wait=True)
    assert went_on_while_it_ran
    assert verdicts[0].interesting and verdicts[1:] == [None, None]
    assert evaluator.stats.oracle_calls == len(oracle.observed)
    assert all(evaluator.known(Candidate(size)) is not None for size in oracle.observed)


class _OneIsSlowTwoHolds(Oracle):
    """The call on 1 runs until the test releases it and loses the failure; 2 holds at once."""

    name = "two-holds"
    summary = "2 holds"

    def __init__(self) -> None:
        super().__init__()
        self.released = threading.Event()
        self.observed: list[str] = []

    def observe(self, candidate, workdir):
        self.observed.append(candidate.text)
        if candidate.text == "1":
            self.released.wait(60)
            return Verdict(False, "", "compiles")
        return Verdict(True, "holds", "")


def test_a_hit_in_before_the_calls_ahead_of_it_withdraws_those_after_it():
    """ResNet-50's spatial dims at -j 2: 1 and 2 ran, 2 held first, and the step down (42) started
    on the worker 2 freed though the search would read 1 or 2, never it. Now it is withdrawn the
    moment 2 holds: no worker runs it, and the search still takes the smallest that holds."""
    from reducer.search.evaluate import Evaluator

    oracle = _OneIsSlowTwoHolds()
    evaluator = Evaluator(oracle, jobs=2)
    found: list = []
    pending = threading.Thread(target=lambda: found.extend(evaluator.verdicts(
        [Proposal(Candidate(size), 1) for size in ("1", "2", "42")], enough=lambda proposal, verdict: verdict.interesting)))
    pending.start()
    deadline = time.monotonic() + 30
    while evaluator.known(Candidate("2")) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    oracle.released.set()
    pending.join(30)
    evaluator.executor.shutdown(wait=True)
    assert [v.interesting if v is not None else None for v in found] == [False, True, None]
    assert sorted(oracle.observed) == ["1", "2"] and evaluator.stats.oracle_calls == 2


class _Words(ReductionPass):
    """Targets are the words of the text; a proposal drops the chosen ones."""

    def count(self, current, ctx):
        return len(current.candidate.text.split())

    def apply(self, current, chosen, ctx):
        words = [word for i, word in enumerate(current.candidate.text.split()) if i not in set(chosen)]
        return Proposal(Candidate(" ".join(words)), len(words))


class _NeedsXNothingRuledOut(Oracle):
    """Interesting while the word x is there; no words at all is known to lose it without a call
    (as a program that computes nothing forms no dispatch to fail in)."""

    name = "needs-x"
    summary = "x"

    def observe(self, candidate, workdir):
        return Verdict("x" in candidate.text.split(), "x", "")

    def ruled_out(self, candidate):
        return None if candidate.text.split() else Verdict(False, "", "nothing (not judged)")


def test_an_idle_worker_ahead_of_a_ddmin_pass_goes_finer_past_what_is_known_to_lose():
    """A ddmin pass first drops all its targets at once; where that is known to lose the failure
    without a call (ruled out), an idle worker goes on with what the pass asks next, each target
    alone: in a 2-op last round, the op replaced by a constant after replacing both."""
    from collections import namedtuple

    from reducer.search.engine import Reducer
    from reducer.search.problem import ReductionProblem

    Row = namedtuple("Row", "name search impl")
    problem = ReductionProblem(Proposal(Candidate("x y"), 2), _NeedsXNothingRuledOut(), jobs=2)
    reducer = Reducer(problem, [Row("words", Search.DDMIN, _Words())])
    ahead = []
    for proposal in reducer.first_candidates():
        ahead.append(proposal.candidate.text)
        problem.judge(proposal.candidate)  # as the idle worker does before asking for the next
    assert ahead == ["", "y", "x"]
    assert problem.stats.ruled_out == 1
    # A first candidate whose call is still to come stops it: what the pass asks next depends on it.
    unjudged = ReductionProblem(Proposal(Candidate("x y"), 2), _NeedsXNothingRuledOut(), jobs=2)
    assert [p.candidate.text for p in Reducer(unjudged, [Row("words", Search.DDMIN, _Words())]).first_candidates()] == [""]


def _pairs(text: str) -> dict[str, int]:
    """The `k=v` words of a text as sizes (`b=64 x` -> {"b": 64})."""
    return {key: int(value) for key, value in (word.split("=") for word in text.split() if "=" in word)}


class _SizesAmongWords(ShrinkPass):
    """The `k=v` words of a text are its dimensions; the other words stay as they are."""

    def dimensions(self, current, ctx):
        return list(_pairs(current.candidate.text).items())

    def resize(self, current, key, size, ctx, convert):
        if size >= _pairs(current.candidate.text).get(key, 0):
            return None
        words = [f"{key}={size}" if word.startswith(f"{key}=") else word for word in current.candidate.text.split()]
        return Proposal(Candidate(" ".join(words)), len(words))


class _StepDownWaitsForTheNextPass(Oracle):
    """Interesting while x is there and b (if any) is at least 64. The call on b's step down (63)
    waits up to `wait_s` for the next pass's first candidate (no words at all) to be judged."""

    name = "x-and-b-at-least-64"
    summary = "x, b >= 64"

    def __init__(self, wait_s: float) -> None:
        super().__init__()
        self.wait_s = wait_s
        self.next_pass_judged, self.judged_beside_the_step_down = threading.Event(), threading.Event()

    def observe(self, candidate, workdir):
        words = candidate.text.split()
        if not words:
            self.next_pass_judged.set()
        if "b=63" in words and self.next_pass_judged.wait(self.wait_s):
            self.judged_beside_the_step_down.set()
        return Verdict("x" in words and _pairs(candidate.text).get("b", 64) >= 64, "x, b >= 64", "")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_idle_worker_beside_the_last_recheck_of_a_shape_pass_judges_the_next_pass_first_candidate(jobs):
    """ResNet-50's last sweep of shapes is one recheck (one step down of a settled dimension), and
    then the pass ends: at -j 2 the idle worker judges the next pass's first candidate meanwhile
    (it was idle for that compile, and the next pass then waited for its own). The result is the
    same at -j 1 and -j 2."""
    from collections import namedtuple

    from reducer.search.engine import Reducer
    from reducer.search.problem import ReductionProblem
    from reducer.storage.resume_state import Position

    Row = namedtuple("Row", "name search impl")
    oracle = _StepDownWaitsForTheNextPass(wait_s=10 if jobs == 2 else 0)  # -j 1 has no worker to wait for
    problem = ReductionProblem(Proposal(Candidate("b=64 x"), 2), oracle, jobs=jobs)
    rows = [Row("shrink", Search.SHRINK, _SizesAmongWords()), Row("words", Search.DDMIN, _Words())]
    Reducer(problem, rows, start=Position(settled=[("shrink", "b", 64)]), shrink_threshold=0.0).run()
    assert problem.best.candidate.text == "x"
    assert oracle.judged_beside_the_step_down.is_set() == (jobs == 2)
    assert problem.stats.failed_calls == 0
