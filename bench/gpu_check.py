"""One command that checks GPU-only wrong answers end to end on a machine with a GPU.

    python bench/gpu_check.py                 # the GPU present: campaign, reductions, tests, table
    python bench/gpu_check.py --dry-run       # no GPU needed: the same steps on the CPU (CI runs it)

A short fuzz campaign compiles every case for the CPU and for the GPU present (`fuzz run --targets
gpu`: its architecture, or the newest IREE knows that it runs) and runs both; each wrong answer
that only the GPU computes (the CPU pipeline agreed with onnx.reference) is reduced on the GPU
with the oracle the fuzzer's triage picks (`miscompile`, the GPU pipeline against the CPU one),
and its test of the reduced case runs on the GPU. Last, each result is judged once more: still
wrong on the GPU (the final check), and right on the CPU (`reference-mismatch` on the CPU finds
no wrong answer). One table is printed, written as JSON with --json-out and, with --results, to
docs/results/gpu_check.md (bench/results.py).

--dry-run plays the GPU's part with a CPU pipeline on `local-sync`, so every step runs on a
machine without a GPU (a campaign rarely finds a CPU-only wrong answer in seconds: the table may
be empty); its test asserts the steps and the table, not findings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import results
from fuzz.campaign import DB_NAME, CampaignSettings, run_campaign
from fuzz.cli import duration
from fuzz.execute import MISMATCH
from fuzz.findings import FindingsDB
from fuzz.pipelines import PIPELINES, present_gpu_pipeline
from fuzz.triage import reduce_finding
from oracles import Candidate, OracleOptions, make_oracle
from oracles.toolchain.devices import drivers_with_a_device
from oracles.toolchain.tools import Limits

CPU = "cpu"
DRY_RUN_TARGET = "cpu-data-tiling"  # the GPU's part in a dry run


@dataclass
class Row:
    finding: str  # the finding's graph, shortened
    oracle: str = ""
    before: int = 0
    after: int = 0
    calls: int = 0
    seconds: float = 0.0
    wrong_on_device: bool = False  # the reduced case, final check: still wrong there the original's way
    right_on_cpu: bool | None = None  # the reduced model on the CPU matches onnx.reference (None: not judged)
    test_reproduces: bool | None = None  # its test fails alone on the device
    device: str = ""
    note: str = ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="no GPU: a CPU pipeline on local-sync plays its part")
    parser.add_argument("--target", help="a GPU target of fuzz/pipelines.py instead of the GPU present's (e.g. sm_80)")
    parser.add_argument("--time", type=duration, default=150.0, help="campaign length: 150, 90s, 10m (default 150 s)")
    parser.add_argument("--max-cases", type=int, help="stop the campaign after this many cases")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-findings", type=int, default=4, help="GPU-only wrong answers to reduce (default 4)")
    parser.add_argument("--budget", type=duration, default=80.0, help="time for one reduction (default 80 s)")
    parser.add_argument("--deadline", type=duration, default=540.0, help="no reduction starts after this long (default 540 s)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="cases and candidates at once (default: all cores)")
    parser.add_argument("--out", type=Path, help="campaign directory (default: a fresh temporary one)")
    parser.add_argument("--json-out", type=Path, help="also write the table here as JSON")
    results.add_option(parser)
    args = parser.parse_args(argv)
    start = time.monotonic()
    jobs = args.jobs or os.cpu_count() or 1
    if args.dry_run:
        target, driver, note = PIPELINES[DRY_RUN_TARGET], "local-sync", "dry run: cpu-data-tiling on local-sync plays the GPU"
    elif args.target:
        target = PIPELINES[args.target]
        driver, note = target.driver, "named by --target"
    else:
        drivers = drivers_with_a_device()
        found, note = present_gpu_pipeline(drivers)
        if found is None:
            print(f"gpu_check: {note} (drivers with a device: {', '.join(drivers) or 'none'}); --dry-run runs without one",
                  file=sys.stderr)
            return 1
        target, driver = found, found.driver
    print(f"gpu_check: {target.name} on {driver}: {note}", file=sys.stderr, flush=True)
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-check-"))
    settings = CampaignSettings(seconds=args.time, seed=args.seed, out=out, jobs=jobs, pipelines=(CPU, target.name),
                                max_cases=args.max_cases, gpu_drivers=(driver,) if target.gpu else ())
    stats = run_campaign(settings)
    print(f"gpu_check: campaign {stats.cases} cases in {stats.seconds:.0f} s, {sum(stats.by_kind.values())} findings",
          file=sys.stderr, flush=True)
    chosen = _device_only_wrong_answers(out, target.name)
    print(f"gpu_check: {len(chosen)} wrong answers only {target.name} computes", file=sys.stderr, flush=True)
    rows = []
    for finding, case in chosen[: args.max_findings]:
        if time.monotonic() - start > args.deadline:
            rows.append(Row(case.description[:60], note="not reduced: past --deadline"))
            continue
        rows.append(_reduce_one(finding, case, out, jobs, args.budget, driver if args.dry_run else None))
        _write(rows, stats, args, target.name, driver, start)
    _write(rows, stats, args, target.name, driver, start)
    found = table(rows, stats.cases, len(chosen), target.name, driver)
    print(found.markdown())
    if args.results:
        results.write(__file__, [found], [f"{target.name} on {driver}: {note}",
                                          f"campaign {stats.cases} cases in {stats.seconds:.0f} s, seed {args.seed}, -j {jobs}"], argv)
    return 0


def _device_only_wrong_answers(out: Path, target: str) -> list:
    """(finding, case) of every mismatch on `target` whose case the CPU pipeline got right."""
    db = FindingsDB(out / DB_NAME)
    try:
        pending = db.unreduced()
    finally:
        db.close()
    chosen = []
    for finding, case in pending:
        cpu_ok = any(run.pipeline == CPU and run.status == "ok" for run in case.runs)
        if finding.kind == MISMATCH and finding.pipeline.split(",") == [target] and cpu_ok:
            chosen.append((finding, case))
    return chosen


def _reduce_one(finding, case, out: Path, jobs: int, budget: float, device: str | None) -> Row:
    """Reduces one finding with the fuzzer's triage (on `device` instead of the pipeline's own in a
    dry run); then the reduced model's answer on the CPU."""
    row = Row(case.description[:60])
    triage = reduce_finding(finding, case, out, jobs=jobs, time_budget_s=budget, device=device)
    if triage.outcome is None:
        row.note = triage.reduced_size[:120]
        return row
    outcome, request = triage.outcome, triage.request
    row.oracle, row.before, row.after = outcome.oracle, outcome.original.ops, outcome.best.ops
    row.calls, row.seconds = outcome.stats.oracle_calls, round(outcome.seconds, 1)
    row.wrong_on_device = outcome.complete and outcome.verdict.interesting
    row.test_reproduces = outcome.test_reproduces
    row.device = ",".join(outcome.devices)
    row.right_on_cpu = _right_on_cpu(outcome.best.candidate, request.oracle.options)
    return row


def _right_on_cpu(candidate: Candidate, options: OracleOptions) -> bool | None:
    """Whether the CPU pipeline computes the reduced model right (onnx.reference agrees)."""
    if candidate.binary is None:
        return None
    oracle = make_oracle("reference-mismatch", OracleOptions(seed=options.seed, device="local-task", limits=Limits(timeout_s=120)))
    cpu = Candidate(candidate.text, tuple(PIPELINES[CPU].flags), candidate.suffix, candidate.binary, candidate.data)
    verdict = oracle.judge(cpu)
    return not verdict.interesting and "matches onnx.reference" in verdict.detail


def table(rows: list[Row], cases: int, found: int, target: str, driver: str) -> results.Table:
    columns = ["finding", "oracle", "nodes before", "after", "calls", "seconds", f"wrong on {driver}", "right on CPU",
               f"test alone on {driver}", "note"]
    cells = [[r.finding, r.oracle, r.before, r.after, r.calls, f"{r.seconds:.1f}", _yes(r.wrong_on_device),
              _yes(r.right_on_cpu), _yes(r.test_reproduces), r.note] for r in rows]
    return results.Table(columns, cells, f"{cases} cases, {found} wrong answers only {target} computes on {driver}; "
                                         f"{len(rows)} reduced:")


def _yes(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "NO"


def _write(rows: list[Row], stats, args, target: str, driver: str, start: float) -> None:
    if args.json_out is None:
        return
    record = {"target": target, "driver": driver, "cases": stats.cases, "campaign_seconds": round(stats.seconds, 1),
              "seconds": round(time.monotonic() - start, 1), "rows": [asdict(r) for r in rows]}
    args.json_out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
