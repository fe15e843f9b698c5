"""`fuzz`: run a differential fuzzing campaign, list findings, list pipelines. Thin."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from fuzz.campaign import DB_NAME, CampaignSettings, CampaignStats, run_campaign
from fuzz.devices import drivers_with_a_device
from fuzz.findings import FindingsDB
from fuzz.nightly import corpus_changes, summary_markdown
from fuzz.pipelines import DEFAULT_PIPELINES, PIPELINES, resolve
from fuzz.triage import reduce_finding

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smh]?)$")


def duration(text: str) -> float:
    match = _DURATION.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 90s, 10m or 2h")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fuzz", description="Differential fuzzer for IREE: conv / matmul / quantization graphs.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign for a time budget")
    nightly = sub.add_parser("nightly", help="a campaign, its findings reduced, the corpus re-checked, summary.md written")
    for command in (run, nightly):
        command.add_argument("--time", type=duration, default=600.0, help="campaign length: 90s, 10m, 2h (default 10m)")
        command.add_argument("--seed", type=int, default=0, help="campaign seed; case i uses a seed derived from it")
        command.add_argument("--out", type=Path, default=Path("findings"), help="findings database and reduced repros (default findings/)")
        command.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="cases at once (default: all cores)")
        command.add_argument("--pipelines", default=",".join(DEFAULT_PIPELINES), help="CPU pipelines to run and compare (see fuzz pipelines)")
        command.add_argument("--targets", default="", help="GPU targets to compile for, e.g. gfx942,sm_80 (compile only without a device)")
        command.add_argument(
            "--run-gpu", choices=("auto", "never"), default="auto", help="run and compare GPU targets whose driver sees a device (default auto)"
        )
        command.add_argument("--max-cases", type=int, help="stop after this many cases")
        command.add_argument("--no-reduce", action="store_true", help="do not reduce new findings")
        command.add_argument("--reduce-jobs", type=int, default=os.cpu_count() or 1)
        command.add_argument("--reduce-budget", type=duration, default=300.0, help="time for reducing one finding (default 5m)")
        command.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run cases on this Dask scheduler's cluster (default: local pool)")
    nightly.add_argument("--corpus", type=Path, default=Path("corpus/entries"), help="corpus entries to re-check (default corpus/entries)")
    show = sub.add_parser("show", help="list the findings of a campaign directory")
    show.add_argument("out", type=Path)
    sub.add_parser("pipelines", help="list the pipelines and targets")
    return parser


def _progress(stats: CampaignStats, every: float = 10.0, state: dict = {"last": 0.0}) -> None:  # noqa: B006
    if stats.seconds - state["last"] < every and stats.cases > 1:
        return
    state["last"] = stats.seconds
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(stats.by_kind.items())) or "none"
    print(
        f"[{stats.seconds:6.0f}s] cases {stats.cases} ({stats.per_minute:.1f}/min), findings: {kinds}; new {len(stats.new)}",
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "pipelines":
            for pipeline in PIPELINES.values():
                kind = "GPU target" if pipeline.gpu else "pipeline"
                print(f"{pipeline.name:22} {kind:10} {pipeline.description}: {' '.join(pipeline.flags)}")
            return 0
        if args.command == "show":
            return _show(args.out)
        if args.command == "nightly":
            return _nightly(args)
        return _run(args)
    except ValueError as err:
        print(f"fuzz: error: {err}", file=sys.stderr)
        return 1


def _campaign(args: argparse.Namespace) -> tuple[CampaignStats, CampaignSettings]:
    """The campaign, then each new finding reduced; shared by `run` and `nightly`."""
    names = [n for n in f"{args.pipelines},{args.targets}".split(",") if n]
    wanted = resolve(names)
    drivers = tuple(sorted({p.driver for p in wanted if p.gpu}))
    gpu_drivers = drivers_with_a_device(drivers) if args.run_gpu == "auto" else ()
    if drivers:
        ran = ", ".join(gpu_drivers) or "none"
        print(f"fuzz: GPU drivers with a device: {ran}; other GPU targets compile only", file=sys.stderr)
    settings = CampaignSettings(
        seconds=args.time,
        seed=args.seed,
        out=args.out,
        jobs=max(1, args.jobs),
        pipelines=tuple(names),
        max_cases=args.max_cases,
        gpu_drivers=gpu_drivers,
        scheduler=args.scheduler,
    )
    stats = run_campaign(settings, _progress)
    print(
        f"fuzz: {stats.cases} cases in {stats.seconds:.0f} s ({stats.per_minute:.1f}/min), "
        f"{sum(stats.by_kind.values())} findings, {len(stats.new)} new, {stats.isolated_reruns} re-run isolated"
    )
    if not args.no_reduce and stats.new:
        db = FindingsDB(args.out / DB_NAME)
        for signature, case in stats.new:
            finding = next(f for f in case.findings if f.signature == signature)
            print(f"fuzz: reducing {finding.kind} ({finding.pipeline}): {signature[:100]}", file=sys.stderr, flush=True)
            triage = reduce_finding(finding, case, args.out, jobs=args.reduce_jobs, time_budget_s=args.reduce_budget)
            db.set_reduction(signature, str(triage.directory), triage.reduced_size)
            print(f"  -> {triage.directory}: {triage.reduced_size}")
        db.close()
    return stats, settings


def _run(args: argparse.Namespace) -> int:
    start = time.monotonic()
    _campaign(args)
    print(f"fuzz: done in {time.monotonic() - start:.0f} s; fuzz show {args.out}")
    return 0


def _nightly(args: argparse.Namespace) -> int:
    stats, settings = _campaign(args)
    checked, changes = corpus_changes(args.corpus)
    db = FindingsDB(args.out / DB_NAME)
    findings = db.all()
    db.close()
    summary = summary_markdown(stats, findings, checked, changes, {"seed": settings.seed, "pipelines": settings.pipelines})
    (args.out / "summary.md").write_text(summary)
    print(f"fuzz: summary in {args.out / 'summary.md'}; {checked} corpus entries, {len(changes)} changed state")
    for change in changes:
        print(f"fuzz: corpus: {change.problem}", file=sys.stderr)
    return 3 if changes else 0


def _show(out: Path) -> int:
    path = out / DB_NAME
    if not path.is_file():
        raise ValueError(f"{out} holds no {DB_NAME}: run `fuzz run --out {out}` first")
    db = FindingsDB(path)
    rows = db.all()
    db.close()
    print(f"{'#':>3}  {'class':14} {'seen':>4}  {'pipelines':28} {'reduced':22} signature")
    for i, row in enumerate(rows, 1):
        print(f"{i:>3}  {row.kind:14} {row.count:>4}  {row.pipeline[:28]:28} {(row.reduced_size or '-')[:22]:22} {row.signature[:90]}")
    print(f"{len(rows)} distinct findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
