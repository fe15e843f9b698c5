"""Measures fuzz campaign throughput: cases per minute, and how many ran all pipelines to the end.

    python bench/fuzz_rate.py [--seconds 120] [--jobs 2] [--pipelines cpu,cpu-data-tiling,vmvx]

A case is one generated graph imported, compiled through every pipeline, run and compared.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.campaign import DB_NAME, CampaignSettings, run_campaign
from fuzz.pipelines import DEFAULT_PIPELINES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pipelines", action="append", help="comma-separated; repeat to compare sets")
    args = parser.parse_args()
    print(f"fuzz throughput, {args.seconds:.0f} s per row, {os.cpu_count()} cores")
    print("| pipelines | jobs | cases | cases/min | all pipelines ran | distinct findings |")
    print("|---|---|---|---|---|---|")
    for names in args.pipelines or [",".join(DEFAULT_PIPELINES)]:
        with tempfile.TemporaryDirectory() as tmp:
            settings = CampaignSettings(seconds=args.seconds, seed=args.seed, out=Path(tmp), jobs=args.jobs, pipelines=tuple(names.split(",")))
            complete: list[bool] = []
            stats = run_campaign(settings, progress=lambda s: None, on_case=complete_recorder(complete))
            with sqlite3.connect(Path(tmp) / DB_NAME) as db:
                (distinct,) = db.execute("SELECT COUNT(*) FROM findings").fetchone()
        print(
            f"| {names} | {args.jobs} | {stats.cases} | {stats.per_minute:.1f} | "
            f"{sum(complete)} ({60 * sum(complete) / stats.seconds:.1f}/min) | {distinct} |",
            flush=True,
        )


def complete_recorder(complete: list[bool]):
    """Records, per case, whether every pipeline compiled, ran and was compared."""
    return lambda case: complete.append(_all_ran(case))


def _all_ran(case) -> bool:
    return bool(case.runs) and all(run.status in ("ok", "mismatch") for run in case.runs)


if __name__ == "__main__":
    main()
