"""`fuzz`: run a differential fuzzing campaign, list findings, list pipelines. Thin."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

from fuzz.budget import (
    KNOWN,
    NO_REDUCE,
    NO_TIME,
    NOT_REDUCED,
    REDUCTION_OVERHEAD,
    CommandBudget,
    ReductionTally,
    learned_overhead,
    reduction_cost,
)
from fuzz.campaign import (
    DB_NAME,
    CampaignSettings,
    CampaignStats,
    known_signatures,
    run_campaign,
)
from fuzz.campaign_report import write_report
from fuzz.conformance import (
    cpu_pipeline,
    outcome_table,
    run_node_tests,
    select_node_tests,
)
from fuzz.coverage import DispatchConfig, coverage_table
from fuzz.execute import CaseResult, Finding
from fuzz.expectations import DEFAULT_PATH, Expectations, load
from fuzz.findings import Campaign, FindingsDB, findings_record
from fuzz.nightly import corpus_changes, summary_markdown
from fuzz.pipelines import (
    DEFAULT_PIPELINES,
    DEFAULT_TARGETS,
    GROUPS,
    PIPELINES,
    PRESENT_GPU,
    present_gpu_pipeline,
    resolve,
)
from fuzz.progress import CampaignProgress, ConformanceProgress
from fuzz.releases import since_when_of_causes
from fuzz.root_cause import RootCauses, assign_root_causes, reduction_entries
from fuzz.triage import reduce_finding
from oracles import refusals
from oracles.toolchain.devices import drivers_with_a_device
from reducer.corpus_entries import load_entries
from reducer.docs_site import where_the_docs_are
from reducer.progress import ReductionProgress
from reducer.releases import add_source_options as add_release_sources
from reducer.releases import settings as release_settings
from reducer.releases import wanted as releases_wanted
from reducer.user_error import INTERRUPTED, CommandLineParser

EXAMPLES = f"""examples:
  fuzz run --time 10m --seed 7 --out findings/ -j 2
  fuzz report findings/
  fuzz nightly --time 2h --out nightly/

{where_the_docs_are()}"""

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smh]?)$")


def duration(text: str) -> float:
    match = _DURATION.match(text.strip())
    if not match:
        raise argparse.ArgumentTypeError(refusals.DURATION.say(text=text))
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


# The project's own corpus, wherever the command runs: a campaign run from another directory
# would otherwise call every known bug new.
PROJECT_CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "entries"


_QUIET = "no progress: neither the lines nor the live status line"
_KNOWN_CORPUS = "corpus entries that name known root causes (default: the project's corpus/entries)"
_OUT = "a campaign directory: the --out of a fuzz run or fuzz nightly (it holds findings.db)"


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(prog="fuzz", description="Differential fuzzer for IREE: conv / matmul / quantization graphs.",
                                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign for a time budget")
    nightly = sub.add_parser("nightly", help="a campaign, its findings reduced, the corpus re-checked, summary.md written")
    for command in (run, nightly):
        _add_campaign_options(command, nightly=command is nightly)
    nightly.add_argument("--no-releases", dest="releases", action="store_const", const=None,
                         help="do not judge new root causes under other IREE releases")
    nightly.add_argument("--corpus", type=Path, default=PROJECT_CORPUS, help="corpus entries to re-check (default: the project's corpus/entries)")
    run.add_argument("--corpus", type=Path, default=PROJECT_CORPUS, help=_KNOWN_CORPUS)
    left = sub.add_parser("reduce", help="reduce the findings of a campaign directory that no reduction has finished for")
    left.add_argument("out", metavar="OUT", type=Path, help=_OUT)
    _add_reduction_options(left)
    left.add_argument("--corpus", type=Path, default=PROJECT_CORPUS, help=_KNOWN_CORPUS)
    left.add_argument("-q", "--quiet", action="store_true", help=_QUIET)
    _add_reading_commands(sub)
    _add_conformance_command(sub)
    return parser


def _add_campaign_options(command: argparse.ArgumentParser, nightly: bool) -> None:
    """The options `fuzz run` and `fuzz nightly` share (their defaults differ in --releases only)."""
    command.add_argument("--time", type=duration, default=600.0,
                         help="the whole command's wall-clock time, its reductions and report included: 90s, 10m, 2h (default 10m)")
    command.add_argument("--seed", type=int, default=0, help="campaign seed; case i uses a seed derived from it")
    command.add_argument("--out", type=Path, default=Path("findings"), help="findings database and reduced repros (default findings/)")
    command.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="cases at once (default: all cores)")
    command.add_argument("--pipelines", default=",".join(DEFAULT_PIPELINES), help="CPU pipelines to run and compare (see fuzz pipelines)")
    command.add_argument(
        "--targets",
        default=",".join(DEFAULT_TARGETS),
        help=f"GPU targets to compile for (default {','.join(DEFAULT_TARGETS)}; 'none' for CPU only; '{PRESENT_GPU}' for "
        "the GPU present, by its architecture); compile only without a device",
    )
    command.add_argument(
        "--no-feedback", action="store_true", help="plain swarm testing: feature probabilities fixed, not fed back from coverage"
    )
    command.add_argument(
        "--run-gpu", choices=("auto", "never"), default="auto", help="run and compare GPU targets whose driver sees a device (default auto)"
    )
    command.add_argument("--require", default="", metavar="FEATURE[,FEATURE]",
                         help="generator features on in every case, e.g. dynamic, bf16, qlinear_matmul (every name: the docs' "
                         "Fuzzing page, or the error an unknown one gets)")
    command.add_argument("--max-cases", type=int, help="stop after this many cases")
    command.add_argument("--no-reduce", action="store_true", help="do not reduce new findings")
    _add_reduction_options(command)
    command.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run cases on this Dask scheduler's cluster (default: local pool)")
    command.add_argument("-q", "--quiet", action="store_true", help=_QUIET)
    group = command.add_argument_group("other IREE releases (since when each root cause fails)")
    group.add_argument("--releases", nargs="?", const="", default="" if nightly else None, metavar="FIRST:LAST",
                       help="judge each root cause's reduced case under other IREE releases: since which one it fails; "
                       "an optional FIRST:LAST (or A,B,C) limits the releases "
                       + ("(default on here, for new root causes only)" if nightly else "(default off)"))
    add_release_sources(group)


def _add_reduction_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--reduce-jobs", type=int, default=os.cpu_count() or 1,
                         help="oracle calls at once while reducing a finding: reduce's -j (default: all cores)")
    command.add_argument("--reduce-budget", type=duration, default=300.0, help="time for reducing one finding (default 5m)")


def _add_reading_commands(sub: argparse._SubParsersAction) -> None:
    """The commands that read a campaign directory or the tables: show, report, pipelines."""
    show = sub.add_parser("show", help="list the findings of a campaign directory")
    show.add_argument("out", metavar="OUT", type=Path, help=_OUT)
    show.add_argument("--json", action="store_true", help="print the findings as one JSON object instead of a table")
    show.add_argument("--coverage", action="store_true", help="print the dispatch configurations reached (targets x codegen pipelines x intrinsics)")
    report = sub.add_parser("report", help="write a self-contained report.html for a campaign directory (plots inline)")
    report.add_argument("out", metavar="OUT", type=Path, help=_OUT)
    report.add_argument("-o", "--output", type=Path, help="where to write it (default OUT/report.html)")
    sub.add_parser("pipelines", help="list the pipelines and targets")


def _add_conformance_command(sub: argparse._SubParsersAction) -> None:
    conformance = sub.add_parser("conformance", help="the onnx package's conv, matmul, gemm and quantization node tests, against the expectations")
    conformance.add_argument("--expectations", type=Path, default=DEFAULT_PATH, help="expectations file (default tests/onnx_conformance_expectations.json)")
    conformance.add_argument("--update-expectations", action="store_true", help="rewrite the expectations file from this run")
    conformance.add_argument("--pipeline", help="CPU pipeline to run (default: the expectations file's)")
    conformance.add_argument("-k", dest="name_contains", default="", help="only the node tests whose name contains this")
    conformance.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="tests at once (default: all cores)")
    conformance.add_argument("-q", "--quiet", action="store_true", help="no live status line")


def main(argv: list[str] | None = None, started: float | None = None) -> int:
    """`started`: time.monotonic() when the command began (the `fuzz` command: its process's
    start); None: now, for a caller inside a longer process."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "pipelines":
            for pipeline in PIPELINES.values():
                kind = "GPU target" if pipeline.gpu else "pipeline"
                print(f"{pipeline.name:22} {kind:10} {pipeline.description}: {' '.join(pipeline.flags)}")
            for group, members in GROUPS.items():
                print(f"{group:22} {'group':10} {', '.join(members)}")
            return 0
        if args.command == "show":
            return _show(args.out, args.json, args.coverage)
        if args.command == "reduce":
            return _reduce_left(args)
        if args.command == "report":
            return _report(args.out, args.output)
        if args.command == "conformance":
            return _conformance(args)
        if args.command == "nightly":
            return _nightly(args, started)
        return _run(args, started)
    except ValueError as err:
        print(f"fuzz: error: {err}", file=sys.stderr)
        return refusals.EXIT_REFUSED
    except KeyboardInterrupt:  # the findings database keeps every case that finished
        print(f"fuzz: interrupted; fuzz show {getattr(args, 'out', '')}".rstrip(), file=sys.stderr)
        return INTERRUPTED


def _campaign(args: argparse.Namespace, budget: CommandBudget, known: frozenset[str] = frozenset()) -> tuple[CampaignStats, CampaignSettings, RootCauses]:
    """The campaign, then each new finding reduced (but the `known` signatures), then its root
    causes (deduped on the reduced cases, named by the corpus); shared by `run` and `nightly`."""
    targets = "" if args.targets.strip().lower() == "none" else args.targets
    if PRESENT_GPU in targets.split(","):
        present, note = present_gpu_pipeline(drivers_with_a_device())
        if present is None:
            raise ValueError(refusals.relayed(note))
        print(f"fuzz: --targets {PRESENT_GPU}: {present.name}: {note}", file=sys.stderr)
        targets = ",".join(present.name if name == PRESENT_GPU else name for name in targets.split(","))
    wanted = resolve([n for n in f"{args.pipelines},{targets}".split(",") if n])
    names = [p.name for p in wanted]
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
        feedback=not args.no_feedback,
        known=known_signatures(args.corpus),
        required=tuple(f.strip() for f in args.require.split(",") if f.strip()),
        stop_drawing=budget.stop_drawing,
        cut_off=budget.cases_cut_off,
    )
    with CampaignProgress(settings.pipelines, sys.stderr, quiet=args.quiet) as progress:
        stats = run_campaign(settings, progress.update, progress.case)
    print(
        f"fuzz: {stats.cases} cases in {stats.seconds:.0f} s ({stats.per_minute:.1f}/min; {stats.complete} ran every pipeline to the end), "
        f"{sum(stats.by_kind.values())} findings, {len(stats.new)} new signatures, {stats.isolated_reruns} re-run isolated"
    )
    print(f"fuzz: coverage: {len(stats.configs)} distinct dispatch configurations ({sum(stats.configs.values())} dispatches)")
    print(coverage_table(stats.configs))
    for target, (used, kernel) in sorted(stats.lds.items()):
        print(f"fuzz: {target}: largest workgroup memory {used} bytes ({kernel})")
    split = {"campaign": time.monotonic() - budget.started}
    if args.no_reduce:
        db = FindingsDB(args.out / DB_NAME)
        try:
            stats.reductions.leave(NO_REDUCE, len(db.unreduced()))
        finally:
            db.close()
    else:  # this run's new findings, and any an earlier run left unreduced, in the time left
        stats.reductions = _reduce_findings(args, known, budget, settings.known)
    split["reductions"] = time.monotonic() - budget.started - split["campaign"]
    causes = _root_causes(args, dict(stats.by_signature))
    if releases_wanted(args):  # each root cause's reduced case under other releases (new ones only in the nightly)
        causes.since = since_when_of_causes(args.out, causes, release_settings(args), only_new=args.command == "nightly")
        split["releases"] = time.monotonic() - budget.started - sum(split.values())
    stats.split = split
    return stats, settings, causes


def _waiting(db: FindingsDB, known: frozenset[str], in_corpus: frozenset[str] = frozenset()) -> list[tuple[Finding, CaseResult]]:
    """The findings no reduction has finished for, but the `known` signatures: new failures first,
    those a corpus entry has already (`in_corpus`) last, each group cheapest first."""
    pairs = [pair for pair in db.unreduced() if pair[0].signature not in known]
    return sorted(pairs, key=lambda pair: (pair[0].signature in in_corpus, reduction_cost(pair[1].runs, pair[1].spec_json)))


def _reduce_findings(args: argparse.Namespace, known: frozenset[str] = frozenset(), budget: CommandBudget | None = None,
                     in_corpus: frozenset[str] = frozenset()) -> ReductionTally:
    """Reduces every finding of `args.out` no reduction has finished for, but the `known`
    signatures (counted as left: a corpus entry has them); a reduction a killed run left half done
    continues from its state (reduce --resume). With a `budget`, each gets a share of the command's
    time left, and what is left when it runs out is listed. Returns what was reduced and why the
    others were not."""
    tally = ReductionTally()
    db = FindingsDB(args.out / DB_NAME)
    try:
        tally.leave(KNOWN, sum(1 for finding, _ in db.unreduced() if finding.signature in known))
        waiting = _waiting(db, known, in_corpus)
        overhead = REDUCTION_OVERHEAD
        for position, (finding, case) in enumerate(waiting):
            seconds = args.reduce_budget if budget is None else budget.reduction_budget(len(waiting) - position, overhead=overhead)
            if seconds is None:
                _left_for_time(args.out, waiting[position:], in_corpus, tally)
                break
            print(f"fuzz: reducing {finding.kind} ({finding.pipeline}, {seconds:.0f} s): {finding.signature[:100]}",
                  file=sys.stderr, flush=True)
            started = time.monotonic()
            with ReductionProgress(sys.stderr, quiet=args.quiet) as watching:
                triage = reduce_finding(finding, case, args.out, jobs=args.reduce_jobs, time_budget_s=seconds, observer=watching)
            overhead = learned_overhead(overhead, seconds, time.monotonic() - started)
            db.set_reduction(finding.signature, str(triage.directory), triage.reduced_size, triage.result)
            if triage.result is None:
                tally.leave(NOT_REDUCED)
            else:
                tally.reduced += 1
                tally.signatures.append(finding.signature)
            print(f"  -> {triage.directory}: {triage.reduced_size}")
    finally:
        db.close()
    return tally


def _left_for_time(out: Path, left: list[tuple[Finding, CaseResult]], in_corpus: frozenset[str], tally: ReductionTally) -> None:
    """The findings the time did not reach, listed; those a corpus entry has counted as such (no time
    was kept for them: the campaign hands its time over for new failures only)."""
    print(f"fuzz: --time is up: {len(left)} findings left unreduced; `fuzz reduce {out}` goes on with them", file=sys.stderr)
    for unreduced, _ in left:
        known = " (a corpus entry has it)" if unreduced.signature in in_corpus else ""
        print(f"  unreduced{known}: {unreduced.kind} ({unreduced.pipeline}): {unreduced.signature[:100]}", file=sys.stderr)
    known = sum(1 for finding, _ in left if finding.signature in in_corpus)
    tally.leave(NO_TIME, len(left) - known)
    tally.leave(KNOWN, known)


def _root_causes(args: argparse.Namespace, seen: dict[str, int]) -> RootCauses:
    db = FindingsDB(args.out / DB_NAME)
    try:
        causes = assign_root_causes(db, seen, load_entries(args.corpus) if args.corpus.is_dir() else [], args.out)
    finally:
        db.close()
    for line in causes.lines():
        print(f"fuzz: {line}")
    return causes


def _reduce_left(args: argparse.Namespace) -> int:
    """`fuzz reduce OUT`: only the reductions a killed or --no-reduce campaign left."""
    _database(args.out)  # a directory without a campaign is an error, not an empty success
    tally = _reduce_findings(args)
    print(f"fuzz: {tally.line()}; fuzz show {args.out}")
    if tally.signatures:
        _root_causes(args, dict.fromkeys(tally.signatures, 1))
    return 0


def _budget(args: argparse.Namespace, started: float | None) -> CommandBudget:
    """The command's time, from `started` (the `fuzz` command's process start: the imports count,
    the user waits for them too), else from now."""
    return CommandBudget(time.monotonic() if started is None else started, args.time, not args.no_reduce, args.reduce_budget)


def _split_line(stats: CampaignStats, budget: CommandBudget) -> str:
    parts = {**stats.split, "report": time.monotonic() - budget.started - sum(stats.split.values())}
    return (f"fuzz: done in {time.monotonic() - budget.started:.0f} s of --time {budget.seconds:.0f} s: "
            + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in parts.items()) + f"; {stats.reductions.line()}")


def _run(args: argparse.Namespace, started: float | None = None) -> int:
    budget = _budget(args, started)
    stats, _, _ = _campaign(args, budget)
    print(f"{_split_line(stats, budget)}; fuzz show {args.out}")
    return 0


def _nightly(args: argparse.Namespace, started: float | None = None) -> int:
    budget = _budget(args, started)
    entries = load_entries(args.corpus)
    stats, settings, causes = _campaign(args, budget, frozenset(entry.signature for entry in entries))  # in the corpus: reduced already
    changes = corpus_changes(entries)
    db = FindingsDB(args.out / DB_NAME)
    findings = db.all()
    db.close()
    summary = summary_markdown(stats, findings, entries, changes, {"seed": settings.seed, "pipelines": settings.pipelines}, causes)
    (args.out / "summary.md").write_text(summary)
    report = write_report(_read_campaign(args.out), args.out)
    print(f"fuzz: summary in {args.out / 'summary.md'}, report in {report}; {len(entries)} corpus entries, {len(changes)} changed state")
    print(_split_line(stats, budget))
    for change in changes:
        print(f"fuzz: corpus: {change.problem}", file=sys.stderr)
    return refusals.EXIT_CHANGED if changes else refusals.EXIT_OK


def _database(out: Path) -> Path:
    path = out / DB_NAME
    if not path.is_file():
        raise ValueError(refusals.NO_CAMPAIGN.say(out=out, db=DB_NAME))
    return path


def _read_campaign(out: Path) -> Campaign:
    db = FindingsDB(_database(out))
    try:
        return db.campaign()
    finally:
        db.close()


def _report(out: Path, output: Path | None) -> int:
    campaign = _read_campaign(out)
    if output is not None and not output.parent.is_dir():
        raise ValueError(refusals.NO_DIRECTORY.say(path=output, parent=output.parent))
    path = write_report(campaign, out, output)
    print(f"fuzz: wrote {path} ({len(campaign.cases)} cases, {len(campaign.findings)} root causes)")
    return 0


def _show(out: Path, as_json: bool = False, coverage: bool = False) -> int:
    if coverage:
        db = FindingsDB(_database(out))
        counts = Counter({DispatchConfig(*key): n for key, n in db.dispatch_counts().items()})
        db.close()
        print(coverage_table(counts))
        print(f"{len(counts)} distinct dispatch configurations, {sum(counts.values())} dispatches")
        return 0
    campaign = _read_campaign(out)
    rows = campaign.findings
    if as_json:
        print(json.dumps(findings_record(campaign), indent=2))
        return 0
    print(f"{'#':>3}  {'class':14} {'seen':>4}  {'pipelines':28} {'reduced':22} {'known as':28} signature")
    for i, row in enumerate(rows, 1):
        known = (row.known_as or "-")[:28]
        print(f"{i:>3}  {row.kind:14} {row.count:>4}  {row.pipeline[:28]:28} {(row.reduced_size or '-')[:22]:22} {known:28} {row.signature[:90]}")
    print(f"{len(rows)} distinct findings, {findings_record(campaign)['root_causes']} root causes")
    for entry in reduction_entries(out).values():  # fuzz run --releases: kept in each reduction's entry
        if entry.fails_since:
            print(f"since when: {entry.name}: {entry.fails_since.get('summary', '')}")
    return 0


def _conformance(args: argparse.Namespace) -> int:
    """Runs the node tests; exit 3 when an outcome is not the listed one (unless updating the list)."""
    creating = args.update_expectations and not args.expectations.exists()
    expectations = Expectations() if creating else load(args.expectations)
    expectations.pipeline = cpu_pipeline(args.pipeline or expectations.pipeline).name
    if args.update_expectations and not args.expectations.parent.is_dir():
        raise ValueError(refusals.NO_DIRECTORY.say(path=args.expectations, parent=args.expectations.parent))
    every = select_node_tests()
    tests = [test for test in every if args.name_contains in test.name]
    if not tests:
        raise ValueError(refusals.NO_NODE_TEST.say(text=args.name_contains))
    print(f"fuzz: running {len(tests)} ONNX node tests on {expectations.pipeline}, {max(1, args.jobs)} at once", file=sys.stderr, flush=True)
    start = time.monotonic()
    with ConformanceProgress(len(tests), sys.stderr, quiet=args.quiet) as progress:
        outcomes = run_node_tests(tests, max(1, args.jobs), expectations.pipeline, expectations.opset_version, on_outcome=progress.outcome)
    print(f"fuzz: {len(tests)} ONNX node tests on {expectations.pipeline} in {time.monotonic() - start:.0f} s")
    print(outcome_table(tests, outcomes))
    for outcome in sorted(outcomes.values(), key=lambda o: (o.kind, o.name)):
        if outcome.kind != "pass":
            print(f"  {outcome.kind:12} {outcome.name}: {outcome.detail}")
    if args.update_expectations:
        try:
            args.expectations.write_text(expectations.updated(outcomes, {test.name for test in every}).to_json())
        except OSError as err:
            raise ValueError(refusals.CANNOT_WRITE.say(path=args.expectations, error=err.strerror)) from None
        print(f"fuzz: wrote {args.expectations}")
        return 0
    differences = expectations.differences(outcomes)
    for line in differences:
        print(f"fuzz: not as expected: {line}", file=sys.stderr)
    print(f"fuzz: {len(differences)} of {len(tests)} not as {args.expectations} lists")
    return refusals.EXIT_CHANGED if differences else refusals.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
