"""Every corpus entry is a test: `reproduces` entries must still fail the same way, `fixed` ones must not.

When an IREE upgrade fixes a bug its entry fails here with the message to mark it fixed, the
way a strict xfail does; when a fixed bug comes back, its entry fails as a regression.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reducer.storage.corpus import check_entry, entry_problem, load_entries

ENTRIES = load_entries(Path(__file__).parent / "entries")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_corpus_entry(entry):
    problem = entry_problem(entry, check_entry(entry))
    assert problem is None, problem
