"""The search strategies on synthetic sets: what they find, and that it is 1-minimal."""

from __future__ import annotations

import itertools

import pytest

from reducer.ddmin import bisect, ddmin


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

    def first_interesting(self, proposals):
        for proposal in proposals:
            self.tests += 1
            if self.interesting(proposal):
                return proposal
        return None

    def judge_all(self, proposals):
        self.tests += len(proposals)
        return [self.interesting(p) for p in proposals]

    def commit(self, proposal):
        self.current = proposal

    def run(self):
        while ddmin(self.count, self.propose, self.first_interesting, self.commit):
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
