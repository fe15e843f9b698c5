"""Since when each corpus entry fails: its repro judged under the IREE releases, by bisection.

    python bench/corpus_releases.py [--only NAME ...] [--again] [--releases FIRST:LAST]
                                    [--releases-cache DIR] [--twice] [--results]

For each `reproduces` entry that fails with the installed IREE here (an entry whose modules run on
a device this machine lacks is skipped and says so), the bisection of `reduce --releases` runs on
its repro and the result goes into its `entry.json` as `fails_since` at once: a killed run goes on
where it stopped, since entries that have one are skipped (`--again` judges them again). Each row
says the result, how many releases were judged and installed, and the seconds. `--twice` measures
the cache: the whole run with an empty cache (a new directory unless `--releases-cache` is given),
then again with the cache it left (`--again` implied); `--results` writes the tables to
docs/results/corpus_releases.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from oracles.releases.environments import ReleaseEnvironments
from oracles.releases.index import IndexOptions
from oracles.releases.since import (
    ReleaseSettings,
    ReleaseSetupError,
    ReleasesUnavailable,
    since_when,
)
from oracles.releases.versions import parse_range
from reducer.corpus_entries import (
    REPRODUCES,
    CorpusEntry,
    absent_device,
    check_entry,
    entry_case,
    load_entries,
    write_entry,
)
from reducer.storage.verdict_store import default_cache_dir

ENTRIES = ROOT / "corpus" / "entries"


def judge_entry(entry: CorpusEntry, settings: ReleaseSettings) -> tuple[dict, str]:
    """(the row, the skip reason or ''); `fails_since` written into the entry when there is a result."""
    row = {"entry": entry.name, "input": entry.input_file.rsplit(".", 1)[-1], "oracle": entry.oracle}
    absent = absent_device(entry)
    if absent:
        return {**row, "since when": f"skipped: {absent}"}, absent
    start = time.monotonic()
    reference = check_entry(entry)
    if not reference.interesting:
        return {**row, "since when": f"skipped: does not fail with the installed IREE ({reference.detail[:80]})"}, "not failing"
    oracle, candidate = entry_case(entry)
    history = since_when(candidate, oracle, reference, settings, log=lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    write_entry(dataclasses.replace(entry, fails_since=history.record()))
    cannot = sum(v.verdict == "cannot judge" for v in history.verdicts.values())
    return {**row, "since when": history.headline(), "judged": len(history.verdicts), "cannot judge": cannot,
            "installed": history.installed, "seconds": round(time.monotonic() - start, 1)}, ""


def run(entries: list[CorpusEntry], settings: ReleaseSettings, again: bool, title: str) -> results.Table:
    table = results.Table(["entry", "input", "oracle", "since when", "judged", "cannot judge", "installed", "seconds"], title=title)
    table.print_head()
    start, installed, done = time.monotonic(), 0, 0
    for entry in entries:
        if entry.state != REPRODUCES or (entry.fails_since and not again):
            continue
        row, skipped = judge_entry(entry, settings)
        table.add([row.get(c, "") for c in table.columns])
        installed += row.get("installed", 0)
        done += not skipped
    table.title += f": {done} entries bisected, {installed} releases installed, {time.monotonic() - start:.0f} s in all"
    print(f"{table.title} (cache {settings.cache})", flush=True)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=[], help="these entries only")
    parser.add_argument("--again", action="store_true", help="also the entries that have fails_since")
    parser.add_argument("--releases", default="", help="FIRST:LAST (default: every release the index has)")
    parser.add_argument("--releases-cache", type=Path, help=f"the environments' directory (default {default_cache_dir() / 'releases'}; "
                        "with --twice a new one)")
    parser.add_argument("--twice", action="store_true", help="once with an empty cache, then again with the warm one")
    results.add_option(parser)
    args = parser.parse_args(argv)
    entries = [e for e in load_entries(ENTRIES) if not args.only or e.name in args.only]
    scratch = tempfile.TemporaryDirectory(prefix="releases-") if args.twice and args.releases_cache is None else None
    cache = Path(scratch.name) if scratch else args.releases_cache or default_cache_dir() / "releases"
    settings = ReleaseSettings(cache, parse_range(args.releases), IndexOptions())
    state = "empty" if not ReleaseEnvironments(cache).releases() else "warm"
    try:
        tables = [run(entries, settings, args.again, f"Cache {state} at the start")]
        if args.twice:
            tables.append(run(entries, settings, True, "Cache warm at the start"))
    except (ReleasesUnavailable, ReleaseSetupError) as err:
        print(f"corpus_releases: {err}", file=sys.stderr)
        return 1
    finally:
        if scratch:
            scratch.cleanup()
    if args.results:
        results.write(__file__, tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
