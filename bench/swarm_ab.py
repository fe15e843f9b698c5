"""A/B: swarm testing with coverage feedback against plain swarm testing, for the same time.

    python bench/swarm_ab.py [--seconds 600] [--seed 11] [--targets gfx942,sm_80] [--jobs 1]

Both arms run at once (one process each, `--jobs` cases at a time), so a machine shared with
other work loads them alike, from the same campaign seed through the default CPU pipelines and
the targets. For each: cases, distinct dispatch configurations reached (target x codegen
pipeline x MMA intrinsic x op kind, `fuzz.coverage`), distinct failure signatures, and the
cases that reached something rare or new. Root causes proper need each finding reduced (minutes
each); the signatures here are the campaign's own dedup, before reduction. `--results` also
writes the table to docs/results/swarm_ab.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import results
from fuzz.campaign import CampaignSettings, known_signatures, run_campaign
from fuzz.pipelines import DEFAULT_PIPELINES, DEFAULT_TARGETS


def arm(seconds: float, seed: int, targets: str, jobs: int, feedback: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        names = (*DEFAULT_PIPELINES, *[t for t in targets.split(",") if t])
        known = known_signatures(Path(__file__).resolve().parents[1] / "corpus" / "entries")  # as `fuzz run` knows them
        settings = CampaignSettings(seconds=seconds, seed=seed, out=Path(tmp), jobs=jobs, pipelines=names, feedback=feedback, known=known)
        stats = run_campaign(settings, progress=lambda s: None)
    kinds = {}
    for signature in stats.by_signature:
        kinds[signature.split(":", 1)[0]] = kinds.get(signature.split(":", 1)[0], 0) + 1
    return {
        "feedback": feedback,
        "cases": stats.cases,
        "seconds": round(stats.seconds),
        "configurations": len(stats.configs),
        "intrinsics": len({c.intrinsic for c in stats.configs} - {"-"}),
        "signatures": len(stats.by_signature),
        "signatures_by_prefix": kinds,
        "rewarded_cases": stats.rewarded,
        "known_again": stats.repeats,
        "complete": stats.complete,
        "cpu_seconds": round(stats.cpu_seconds),
    }


COLUMNS = ["feedback", "cases", "distinct configurations", "MMA intrinsics", "distinct signatures",
           "cases that reached something rare or new", "cases whose failures were all known",
           "cases every pipeline and target got through"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--targets", default=",".join(DEFAULT_TARGETS))
    parser.add_argument("--jobs", type=int, default=1, help="cases at once in each arm")
    parser.add_argument("--arm", choices=("on", "off"), help=argparse.SUPPRESS)  # one arm, JSON on stdout
    results.add_option(parser)
    args = parser.parse_args(argv)
    if args.arm:
        print(json.dumps(arm(args.seconds, args.seed, args.targets, args.jobs, args.arm == "on")))
        return
    base = [sys.executable, __file__, "--seconds", str(args.seconds), "--seed", str(args.seed), "--targets", args.targets, "--jobs", str(args.jobs)]
    load = os.getloadavg()[0]
    arms = {name: subprocess.Popen([*base, "--arm", name], stdout=subprocess.PIPE, text=True) for name in ("on", "off")}
    measured = {name: json.loads(process.communicate()[0].strip().splitlines()[-1]) for name, process in arms.items()}
    load = (load + os.getloadavg()[0]) / 2
    title = (f"swarm feedback A/B: {args.seconds:.0f} s each, both at once, seed {args.seed}, targets {args.targets}, "
             f"load average {load:.1f}")
    rows = [[name, r["cases"], r["configurations"], r["intrinsics"], r["signatures"], r["rewarded_cases"], r["known_again"],
             r["complete"]] for name, r in ((name, measured[name]) for name in ("on", "off"))]
    table = results.Table(COLUMNS, rows, title)
    print(table.markdown())
    print(json.dumps(measured))
    if args.results:
        results.write(__file__, [table], argv=argv)


if __name__ == "__main__":
    main()
