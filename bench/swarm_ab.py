"""A/B: swarm testing with coverage feedback against plain swarm testing, for the same time.

    python bench/swarm_ab.py [--seconds 600] [--seed 11] [--targets gfx942,sm_80] [--jobs 1]

Both arms run at once (one process each, `--jobs` cases at a time), so a machine shared with
other work loads them alike, from the same campaign seed through the default CPU pipelines and
the targets. For each: cases, distinct dispatch configurations reached (target x codegen
pipeline x MMA intrinsic x op kind, `fuzz.coverage`), distinct failure signatures, and the
cases that reached something rare or new. Root causes proper need each finding reduced (minutes
each); the signatures here are the campaign's own dedup, before reduction.
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--targets", default=",".join(DEFAULT_TARGETS))
    parser.add_argument("--jobs", type=int, default=1, help="cases at once in each arm")
    parser.add_argument("--arm", choices=("on", "off"), help=argparse.SUPPRESS)  # one arm, JSON on stdout
    args = parser.parse_args()
    if args.arm:
        print(json.dumps(arm(args.seconds, args.seed, args.targets, args.jobs, args.arm == "on")))
        return
    base = [sys.executable, __file__, "--seconds", str(args.seconds), "--seed", str(args.seed), "--targets", args.targets, "--jobs", str(args.jobs)]
    load = os.getloadavg()[0]
    arms = {name: subprocess.Popen([*base, "--arm", name], stdout=subprocess.PIPE, text=True) for name in ("on", "off")}
    results = {name: json.loads(process.communicate()[0].strip().splitlines()[-1]) for name, process in arms.items()}
    load = (load + os.getloadavg()[0]) / 2
    print(f"swarm feedback A/B: {args.seconds:.0f} s each, both at once, seed {args.seed}, targets {args.targets}, load average {load:.1f}")
    print(
        "| feedback | cases | distinct configurations | MMA intrinsics | distinct signatures | cases that reached something rare or new "
        "| cases whose failures were all known | cases every pipeline and target got through |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in ("on", "off"):
        r = results[name]
        print(
            f"| {name} | {r['cases']} | {r['configurations']} | {r['intrinsics']} | {r['signatures']} | {r['rewarded_cases']} "
            f"| {r['known_again']} | {r['complete']} |"
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
