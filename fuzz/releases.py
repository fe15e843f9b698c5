"""`fuzz run --releases`: since which IREE release each root cause fails, judged on its reduced case.

One reduced finding per root cause (the first whose reduction saved a corpus entry in
`OUT/corpus/`) is bisected over the releases as `reduce --releases` does; the result goes into that
entry's `fails_since`, so a later run or `fuzz show` reads it instead of judging again. The nightly
does it for new root causes only: a known one's corpus entry has it already.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from fuzz.campaign import DB_NAME
from fuzz.findings import FindingsDB
from fuzz.root_cause import RootCauses, reduction_entries
from oracles.releases.since import ReleaseSettings
from reducer.corpus_entries import check_entry, entry_case, write_entry
from reducer.releases import judge_releases


def since_when_of_causes(out: Path, causes: RootCauses, settings: ReleaseSettings, only_new: bool) -> dict[str, dict]:
    """root-cause key -> its `fails_since` record, for each root cause with a saved reduction (new ones only with `only_new`)."""
    wanted = causes.new if only_new else causes.distinct
    entries = reduction_entries(out)
    db = FindingsDB(out / DB_NAME)
    try:
        findings = db.all()
    finally:
        db.close()
    found: dict[str, dict] = {}
    for finding in findings:
        key = causes.key.get(finding.signature)
        entry = entries.get(Path(finding.directory).name) if finding.directory else None
        if key not in wanted or key in found or entry is None:
            continue
        if entry.fails_since is None:
            reference = check_entry(entry)
            if not reference.interesting:
                continue
            oracle, candidate = entry_case(entry)
            since = judge_releases(candidate, oracle, reference, settings, lambda line: print(f"  {line}", file=sys.stderr, flush=True))
            if since.history is None:  # offline, or interrupted: said in one line already
                break
            entry = dataclasses.replace(entry, fails_since=since.record())
            write_entry(entry)
        found[key] = entry.fails_since
        print(f"fuzz: since when: {key[:90]}: {entry.fails_since['summary']}")
    return found
