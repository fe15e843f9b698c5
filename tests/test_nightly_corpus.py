"""`fuzz nightly` re-checks the corpus: an entry this machine cannot check (a GPU it lacks) is left
out, as `pytest corpus/` skips it, not reported fixed (which failed the nightly job on every CPU runner)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.nightly import corpus_changes
from reducer.corpus_entries import absent_device, load_entries

ENTRIES = Path(__file__).resolve().parent.parent / "corpus" / "entries"


def test_an_entry_that_needs_an_absent_gpu_is_not_reported_fixed():
    gpu_only = [entry for entry in load_entries(ENTRIES) if entry.name.startswith("gpu-")]
    if not gpu_only or any(absent_device(entry) is None for entry in gpu_only):
        pytest.skip("no GPU-only corpus entry, or this machine has the GPU: the entries are checked here")
    assert corpus_changes(gpu_only) == []
