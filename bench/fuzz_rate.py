"""Measures fuzz campaign throughput: cases per minute, and how many ran all pipelines to the end.

    python bench/fuzz_rate.py [--seconds 120] [--jobs 2] [--pipelines cpu,cpu-data-tiling,vmvx]

A case is one generated graph imported, compiled through every pipeline, run and compared; a
fully compared one had every pipeline compile, run and be compared with the reference and the
others, a wrong answer included; a case that stopped at a compile failure does not count). On a shared machine the wall
rate depends on what else runs, so each row also gives the load average over the run and the
CPU seconds the workers spent per case, and from them what the same cases would take on idle
cores (`cores x 60 / CPU seconds per fully compared case`).
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
    parser.add_argument("--no-feedback", action="store_true", help="plain swarm testing (no coverage feedback)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"fuzz throughput, {args.seconds:.0f} s per row, {cores} cores")
    print("| pipelines | jobs | load average | cases | cases/min | fully compared | CPU s per case | fully compared/min on idle cores | distinct findings |")
    print("|---|---|---|---|---|---|---|---|---|")
    for names in args.pipelines or [",".join(DEFAULT_PIPELINES)]:
        with tempfile.TemporaryDirectory() as tmp:
            settings = CampaignSettings(
                seconds=args.seconds, seed=args.seed, out=Path(tmp), jobs=args.jobs, pipelines=tuple(names.split(",")), feedback=not args.no_feedback
            )
            complete: list[bool] = []
            load_before = os.getloadavg()[0]
            stats = run_campaign(settings, progress=lambda s: None, on_case=complete_recorder(complete))
            load = (load_before + os.getloadavg()[0]) / 2
            with sqlite3.connect(Path(tmp) / DB_NAME) as db:
                (distinct,) = db.execute("SELECT COUNT(*) FROM findings").fetchone()
        full = sum(complete)
        per_case = stats.cpu_seconds / max(stats.cases, 1)
        idle = cores * 60 * full / stats.cpu_seconds if stats.cpu_seconds else 0.0
        print(
            f"| {names} | {args.jobs} | {load:.1f} | {stats.cases} | {stats.per_minute:.1f} | "
            f"{full} ({60 * full / stats.seconds:.1f}/min) | {per_case:.2f} | {idle:.1f} | {distinct} |",
            flush=True,
        )


def complete_recorder(complete: list[bool]):
    """Records, per case, whether every pipeline compiled, ran and was compared."""
    return lambda case: complete.append(_all_ran(case))


def _all_ran(case) -> bool:
    return bool(case.runs) and all(run.status in ("ok", "mismatch") for run in case.runs)


if __name__ == "__main__":
    main()
