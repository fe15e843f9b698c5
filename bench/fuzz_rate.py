"""Measures fuzz campaign throughput: cases a minute, and how many were fully compared.

    python bench/fuzz_rate.py [--seconds 120] [--jobs 2] [--pipelines cpu,cpu-data-tiling,vmvx] [--corpus corpus/entries]

A case is one generated graph imported, compiled through every pipeline, run and compared; a
fully compared one had every pipeline compile, run and be compared with the reference and the
others (a wrong answer included); a case that stopped at a compile failure does not count. The
campaign is what `fuzz run --targets none` runs: swarm feedback on, the corpus's signatures
known (`--no-feedback` for plain swarm testing). On a shared machine the wall rate depends on
what else runs, so each row also gives the load average over the run and the CPU seconds the
campaign spent (this process and its workers, their start-up and any isolated re-runs included)
per case and per fully compared case, and from them what the same cases would take on idle
cores (`cores x 60 / CPU seconds per fully compared case`). `--results` also writes the table to
docs/results/fuzz_rate.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from fuzz.campaign import DB_NAME, CampaignSettings, known_signatures, run_campaign
from fuzz.pipelines import DEFAULT_PIPELINES

COLUMNS = ["pipelines", "jobs", "load average", "cases", "cases/min", "fully compared", "fully compared/min", "CPU s per case",
           "CPU s per fully compared case", "fully compared/min on idle cores", "known failures seen again", "distinct findings"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pipelines", action="append", help="comma-separated; repeat to compare sets")
    parser.add_argument("--no-feedback", action="store_true", help="plain swarm testing (no coverage feedback)")
    parser.add_argument("--corpus", type=Path, default=ROOT / "corpus" / "entries", help="corpus entries whose signatures are known")
    results.add_option(parser)
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    known = known_signatures(args.corpus)
    table = results.Table(COLUMNS, title=f"fuzz throughput, {args.seconds:.0f} s per row, seed {args.seed}, {cores} cores, "
                                         f"{len(known)} known signatures{', no feedback' if args.no_feedback else ''}")
    table.print_head()
    for names in args.pipelines or [",".join(DEFAULT_PIPELINES)]:
        with tempfile.TemporaryDirectory() as tmp:
            settings = CampaignSettings(
                seconds=args.seconds,
                seed=args.seed,
                out=Path(tmp),
                jobs=args.jobs,
                pipelines=tuple(names.split(",")),
                feedback=not args.no_feedback,
                known=known,
            )
            complete: list[bool] = []
            load_before, cpu_before = os.getloadavg()[0], _tree_cpu_seconds()
            stats = run_campaign(settings, progress=lambda s: None, on_case=complete_recorder(complete))
            load = (load_before + os.getloadavg()[0]) / 2
            cpu = _tree_cpu_seconds() - cpu_before  # this process and its workers, gone when the campaign ends
            with sqlite3.connect(Path(tmp) / DB_NAME) as db:
                (distinct,) = db.execute("SELECT COUNT(*) FROM findings").fetchone()
        full = sum(complete)
        per_full = cpu / full if full else float("inf")
        idle = cores * 60 / per_full if full else 0.0
        table.add([names, args.jobs, f"{load:.1f}", stats.cases, f"{stats.per_minute:.1f}", full, f"{60 * full / stats.seconds:.1f}",
                   f"{cpu / max(stats.cases, 1):.2f}", f"{per_full:.2f}", f"{idle:.1f}", stats.repeats, distinct])
    if args.results:
        results.write(__file__, [table], argv=argv)


def _tree_cpu_seconds() -> float:
    """User and system time of this process and every child it has waited for (the campaign's
    workers, their start-up included, once the campaign has shut them down)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def complete_recorder(complete: list[bool]):
    """Records, per case, whether every pipeline compiled, ran and was compared."""
    return lambda case: complete.append(_all_ran(case))


def _all_ran(case) -> bool:
    return bool(case.runs) and all(run.status in ("ok", "mismatch") for run in case.runs)


if __name__ == "__main__":
    main()
