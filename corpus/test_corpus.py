"""Every corpus entry is a test: `reproduces` entries must still fail the same way, `fixed` ones must not.

When an IREE upgrade fixes a bug its entry fails here with the message to mark it fixed, the
way a strict xfail does; when a fixed bug comes back, its entry fails as a regression.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reducer.corpus_entries import (
    REPRODUCES,
    absent_device,
    check_entry,
    check_lit_test,
    check_pass_repro,
    entry_problem,
    load_entries,
)

ENTRIES = load_entries(Path(__file__).parent / "entries")
# Entries with a failing pass carry its lit test: while the bug is there, it passes (a crash's XFAIL holds).
LIT_TESTED = [e for e in ENTRIES if e.culprit and e.state == REPRODUCES]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_corpus_entry(entry):
    absent = absent_device(entry)
    if absent:  # a GPU's wrong answer is checked where that GPU is
        pytest.skip(f"{entry.name}: {absent}")
    problem = entry_problem(entry, check_entry(entry))
    assert problem is None, problem


@pytest.mark.parametrize("entry", LIT_TESTED, ids=[e.name for e in LIT_TESTED])
def test_corpus_pass_repro_and_lit_test(entry):
    alone = check_pass_repro(entry)
    assert alone is not None and alone.interesting, f"{entry.name}: the one-pass repro of {entry.culprit['pass']}: {alone.detail if alone else 'missing'}"
    check = check_lit_test(entry)
    assert check is not None and check.passed, f"{entry.directory / entry.culprit['lit_test']}: {check.detail if check else 'missing'}"
