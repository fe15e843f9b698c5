"""`reduce`: shrink a failing input to a minimal repro. Thin: argument parsing and exit codes."""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys
from pathlib import Path

from oracles import OracleOptions, OracleSetupError, make_oracle, refusals
from oracles.base import DEFAULT_WRONG_SHARE
from oracles.data import reference_pipeline
from oracles.data.binding import UserData, UserDataError
from oracles.inputs.dims import parse_dims
from oracles.inputs.readers import read_sources
from oracles.registry import table as oracle_table
from oracles.toolchain.devices import with_present_gpu
from oracles.toolchain.flags import PasteError, parse_pasted
from oracles.toolchain.tools import Limits
from oracles.torch import IMPORTS, TURBINE
from reducer.corpus_entries import save_entry
from reducer.culprit_only import culprit_only
from reducer.docs_site import where_the_docs_are
from reducer.formats.registry import format_for
from reducer.passes.registry import for_oracle, pass_by_name
from reducer.passes.registry import table as pass_table
from reducer.progress import ReductionProgress
from reducer.releases import (
    INTERRUPTED_NOTE,
    ReleaseSettings,
    wanted,
)
from reducer.releases import add_options as add_release_options
from reducer.releases import clean as clean_releases
from reducer.releases import settings as release_settings
from reducer.releases_only import ReleasesOnly, releases_only
from reducer.report import (
    Outcome,
    culprit_only_markdown,
    culprit_only_summary,
    markdown,
    releases_only_markdown,
    releases_only_summary,
    summary,
)
from reducer.search.ddmin import DEFAULT_SHRINK_THRESHOLD
from reducer.search.interrupt import exit_status, signals_interrupt
from reducer.session import Request, default_output, reduce_file
from reducer.storage.atomic import write_atomically
from reducer.storage.verdict_store import default_cache_dir
from reducer.summary_json import (
    error_record,
    releases_only_record,
    summary_record,
    to_json,
)
from reducer.trust import check_candidate_timeout, check_limits, check_shrink_threshold
from reducer.user_error import INTERRUPTED, CommandLineParser, UserError

EXAMPLES = f"""Everything after `--` is the iree-compile command line from the bug report, pasted as it is.
An .onnx input is reduced as an ONNX graph: each candidate goes through iree-import-onnx first.
A .pt2 input (torch.export.save) is reduced as its FX graph, decomposed as iree-turbine does (not with
--torch-import=functional), each candidate imported with IREE's FX importer; bug.reduced.py beside the
result shows the failure with torch and IREE alone.
exit status: 0 reduced, 1 refused (a bad command line or input), 2 the original does not show the failure,
3 flaky, 130 / 143 / 129 stopped by Ctrl-C / SIGTERM / SIGHUP (the best result so far is kept)

examples:
  reduce bug.mlir --oracle=lds-limit
  reduce model.mlir --oracle=compile-error -- iree-compile --iree-hal-target-device=hip --iree-rocm-target=gfx942 model.mlir -o x.vmfb
  reduce model.onnx --oracle=reference-mismatch --inputs test_data_set_0

{where_the_docs_are()}"""


DATA_ORACLES = ("miscompile", "reference-mismatch", "eager-mismatch", "run-error")  # the oracles that run a candidate on data
ANSWER_ORACLES = ("miscompile", "reference-mismatch")  # those that judge its answer against expected outputs


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(
        prog="reduce",
        description="Shrink a failing IREE input to a minimal repro that still shows the same failure.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", nargs="?", type=Path, help="the failing .mlir, .onnx or .pt2 file (never modified)")
    parser.add_argument("--oracle", help="what makes a candidate interesting (see --list-oracles)")
    parser.add_argument("-o", "--output", type=Path, help="where to write the result (default: INPUT.reduced.mlir / .onnx / .pt2)")
    parser.add_argument("--report", type=Path, help="also write an issue-ready markdown report here")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="candidates tested at once (default: all cores)")
    parser.add_argument("--passes", help="comma-separated subset of reduction passes (default: all, see --list-passes)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before one compile is killed (default 120)")
    parser.add_argument("--time-budget", type=float, help="seconds after which the best result so far is final")
    parser.add_argument("--memory-cap-mb", type=int, default=16384, help="address-space cap of one compile (default 16384)")
    parser.add_argument("--opset-version", type=int, help="ONNX input: passed to iree-import-onnx (upgrade the model's opset first)")
    parser.add_argument("--torch-import", choices=IMPORTS, default=TURBINE,
                        help=".pt2 input: how the program is brought to IREE's FX importer: turbine (default: decomposed as "
                             "iree-turbine's aot.export does, as IREE's PyTorch users import), functional (nothing decomposed)")
    parser.add_argument("--save-to-corpus", metavar="NAME", help="also save the result as a corpus entry NAME")
    parser.add_argument("--corpus-dir", type=Path, default=Path("corpus/entries"), help="where corpus entries live (default corpus/entries)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run oracle calls on this Dask scheduler's cluster (default: local)")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(), help="verdicts kept across runs (default %(default)s)")
    parser.add_argument("--no-cache", action="store_true", help="judge every candidate afresh; keep no verdicts on disk")
    parser.add_argument("--no-localize", action="store_true", help="skip failure localisation: the passes start from the whole input")
    parser.add_argument("--resume", action="store_true",
                        help="continue a killed run of the same command from the state it left beside the output (OUTPUT.resume)")
    parser.add_argument("--no-warm", action="store_true", help="run every compile as its own iree-compile process")
    parser.add_argument("--candidate-timeout", type=_seconds_or_auto, default=0.0, metavar="SECONDS|auto",
                        help="a candidate's compile stopped after this long counts as not interesting, for a faster result "
                        "that may stop short of 1-minimal (auto: 10 times the original's, at least 10 s; default 0: --timeout)")
    parser.add_argument("--shrink-threshold", type=float, default=DEFAULT_SHRINK_THRESHOLD, metavar="SHARE",
                        help="shape searches take no step that shrinks a dim by less than this share of it "
                        "(default %(default)s; 0: every dim down to one less than loses the failure)")
    parser.add_argument("--culprit", action=argparse.BooleanOptionalAction, default=True,
                        help="compile-error/crash: name the failing pass, write its reduced one-pass repro and lit test; "
                        "lds-limit: the dispatch's configuration (default on)")
    parser.add_argument("--culprit-only", action="store_true", help="INPUT is reduced already: only the --culprit step")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress: neither improvement lines nor the live status line")
    parser.add_argument("-v", "--verbose", action="store_true", help="also log every oracle call's answer and why (e.g. why a candidate was rejected)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object (errors too) instead of text")
    parser.add_argument("--list-oracles", action="store_true", help="print the oracles and exit")
    parser.add_argument("--list-passes", action="store_true", help="print the reduction passes in order and exit")
    _add_oracle_options(parser.add_argument_group("oracle options"))
    add_release_options(parser)
    return parser


def _add_oracle_options(group: argparse._ArgumentGroup) -> None:
    """What an oracle is configured with, once, before the reduction (the options each oracle reads)."""
    group.add_argument("--lds-bytes", type=int, help="lds-limit: interesting when any dispatch uses more than N bytes")
    group.add_argument("--match", help="compile-error/crash: regex over the compiler output instead of the signature")
    group.add_argument("--hang-seconds", type=float, default=60.0, help="timeout: compile time that counts as a hang")
    group.add_argument("--threshold", type=int, help="transient-copy/dispatch-count/ir-match: minimum count")
    group.add_argument("--keep", metavar="KIND-or-N", help="transient-copy/readwrite-constant: keep only this one of the "
                       "original's symptoms (its number in the list the calibration prints, or a kind such as slow_memcpy) "
                       "instead of every kind")
    group.add_argument("--phase", help="ir-match/dispatch-count: --compile-to phase to inspect")
    group.add_argument("--pattern", help="ir-match: regex over the IR at --phase")
    group.add_argument("--cmd", help="script: command, `{}` is the candidate path; exit 0 = interesting")
    group.add_argument("--pipeline-a", default="", help="miscompile: flags of the first pipeline (they override the "
                       "same options after --)")
    group.add_argument("--pipeline-b", default="", help="miscompile: flags of the second pipeline (likewise)")
    group.add_argument("--device", help="miscompile / reference-mismatch / eager-mismatch / run-error: the runtime device the modules run "
                       "on (cuda, hip, vulkan, local-task, local-sync; default: the one the flags target)")
    group.add_argument("--device-a", help="miscompile: the device of pipeline A's module (default --device, else its target's)")
    group.add_argument("--device-b", help="miscompile: the device of pipeline B's module (likewise)")
    group.add_argument("--seed", type=int, default=0, help="miscompile / reference-mismatch / eager-mismatch / run-error: input data seed")
    group.add_argument("--inputs", action="append", default=[], metavar="SOURCE",
                       help="miscompile / reference-mismatch / eager-mismatch / run-error: run on this data instead of seeded inputs (repeatable): "
                       "an iree-run-module value (2x3xf32=@x.bin, @x.npy, 2x2xi32=1,2,3,4), a flagfile of --input= / "
                       "--expected_output= lines, .npy, .npz (by argument name or order), or ONNX test data "
                       "(test_data_set_0/ or input_0.pb)")
    group.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE",
                       help="miscompile / reference-mismatch / eager-mismatch / run-error: run a program with dynamic dims at this size, on "
                       "seeded data (repeatable): M=1 for an ONNX dim_param, arg0.1=1 for dim 1 of MLIR argument 0")
    group.add_argument("--expected-outputs", action="append", default=[], metavar="SOURCE",
                       help="miscompile / reference-mismatch: the right answer, in the same formats; the original must "
                       "differ from it and the reference must match it")
    group.add_argument("--wrong-share", type=float, default=DEFAULT_WRONG_SHARE, help="miscompile / reference-mismatch / eager-mismatch: a candidate must be wrong "
                       f"the original's way (kind, output) on at least this share of its wrong fraction and error (default {DEFAULT_WRONG_SHARE})")
    group.add_argument("--any-dispatch", action="store_true", help="lds-limit: any dispatch over the limit will do, not only one "
                       "of the original's kind (matmul_like, conv, reduction, ...)")


# Options whose value is itself a command line: `--pipeline-a --iree-opt-data-tiling=true` (one
# flag, no space) must work as `--pipeline-a=...` does, where argparse takes the value for an option.
_FLAG_VALUED = ("--pipeline-a", "--pipeline-b")


def _split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    ours, pasted = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    joined: list[str] = []
    for word in ours:
        if joined and joined[-1] in _FLAG_VALUED and word.startswith("-"):
            joined[-1] = f"{joined[-1]}={word}"
        else:
            joined.append(word)
    return joined, pasted


def request_for(argv: list[str]) -> Request:
    """The request a `reduce` command line makes (its oracle, flags, data and dims), nothing run:
    how bench/ judges a case exactly as that command judges it."""
    ours, pasted = _split_argv(list(argv))
    return _request(build_parser().parse_args(ours), pasted, None, None)[0]


def main(argv: list[str] | None = None, started: float | None = None) -> int:
    ours, pasted = _split_argv(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    args = parser.parse_args(ours)
    if args.list_oracles:
        print(oracle_table())
        return 0
    if args.list_passes:
        print(pass_table())
        return 0
    try:
        if args.releases_clean:
            print(clean_releases(args))
            return 0
        with signals_interrupt():
            return _reduce_command(args, pasted, started)
    except (UserError, OracleSetupError) as err:
        print(f"reduce: error: {err}", file=sys.stderr)
        code = getattr(err, "exit_code", 1)
        code = exit_status() if code == INTERRUPTED else code
        if args.json:
            print(to_json(error_record(str(err), code)))
        return code
    except KeyboardInterrupt:  # before the reduction started or after it ended: nothing half-written
        print("reduce: interrupted", file=sys.stderr)
        return exit_status()


def oracle_options(args: argparse.Namespace) -> OracleOptions:
    """The oracle options of a parsed `reduce` command line (also how bench/ spells a case's oracle)."""
    return OracleOptions(
        lds_bytes=args.lds_bytes,
        match=args.match,
        hang_seconds=args.hang_seconds,
        threshold=args.threshold,
        keep=args.keep,
        phase=args.phase,
        pattern=args.pattern,
        cmd=args.cmd,
        pipeline_a=shlex.split(args.pipeline_a),
        pipeline_b=shlex.split(args.pipeline_b),
        seed=args.seed,
        wrong_share=args.wrong_share,
        any_dispatch=args.any_dispatch,
        opset_version=args.opset_version,
        torch_import=args.torch_import,
        device=args.device,
        device_a=args.device_a,
        device_b=args.device_b,
        limits=Limits(timeout_s=args.timeout, memory_cap_mb=args.memory_cap_mb),
    )


def _seconds_or_auto(value: str) -> float | None:
    """--candidate-timeout: seconds, or None for `auto`."""
    if value == "auto":
        return None
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(refusals.CANDIDATE_TIMEOUT_MALFORMED.say(text=value)) from None


def _reduce_command(args: argparse.Namespace, pasted: list[str], started: float | None = None) -> int:
    """`reduce INPUT --oracle=NAME -- FLAGS`: the request, the reduction (or one of the steps alone), what it writes."""
    if args.input is None or args.oracle is None:
        raise UserError(refusals.USAGE.say())
    releases = release_settings(args) if wanted(args) else None
    if args.releases_only and args.culprit_only:
        raise UserError(refusals.RELEASES_WITH_CULPRIT_ONLY.say())
    request, options, progress = _request(args, pasted, started, releases)
    if args.culprit_only:
        return _culprit_only(args, request)
    if args.releases_only:
        return _releases_only(args, request, releases)
    with progress:
        outcome = reduce_file(request)
    return _publish(args, outcome, request.oracle.name, options)


def _request(args: argparse.Namespace, pasted: list[str], started: float | None,
             releases: ReleaseSettings | None) -> tuple[Request, OracleOptions, ReductionProgress]:
    """The reduction the command line asks for: the pasted command read, the oracle made once, the passes chosen."""
    try:
        command = parse_pasted(pasted)
    except PasteError as err:
        raise UserError(str(err)) from None
    if command.unknown:
        raise UserError(refusals.relayed(command.rejection()))
    user_data = _user_data(args, args.oracle)
    progress = ReductionProgress(sys.stderr, quiet=args.quiet)
    flags, options = _targeting_present_gpu(command.flags, oracle_options(args), progress.log)
    options = with_reference_pipeline(options, args.oracle, user_data)
    check_limits(options, args.jobs, args.time_budget)
    check_shrink_threshold(args.shrink_threshold)
    check_candidate_timeout(args.candidate_timeout)
    oracle = make_oracle(args.oracle, options)
    available = format_for(args.input).pass_rows()
    try:  # a pass named runs as named; by default, those that serve the oracle
        passes = [pass_by_name(n.strip(), available) for n in args.passes.split(",")] if args.passes else for_oracle(available, oracle)
    except KeyError as err:
        raise UserError(str(err.args[0])) from None
    for old, new in command.renamed:
        progress.log(f"renamed flag {old} -> {new} (the old name is rejected by this IREE)")
    request = Request(
        input_path=args.input, oracle=oracle, flags=flags, output_path=args.output or default_output(args.input),
        passes=passes, jobs=args.jobs, dropped_flags=command.dropped, time_budget_s=args.time_budget,
        log=progress.log, observer=progress, scheduler=args.scheduler,
        cache_dir=None if args.no_cache else args.cache_dir, localize=not args.no_localize, resume=args.resume,
        warm=not args.no_warm, culprit=args.culprit, verbose=args.verbose, user_data=user_data, dims=_dims(args),
        started=started, releases=None if args.releases_only else releases, shrink_threshold=args.shrink_threshold,
        candidate_timeout_s=args.candidate_timeout,
    )
    return request, options, progress


def _publish(args: argparse.Namespace, outcome: Outcome, oracle: str, options: OracleOptions) -> int:
    """The summary, and the corpus entry, report and JSON record the command line asks for."""
    show = (lambda _: None) if args.json else print
    show(summary(outcome))
    written: dict[str, str] = {}
    if args.save_to_corpus and outcome.complete:
        try:
            where = save_entry(
                args.corpus_dir, args.save_to_corpus, outcome.best.candidate, oracle, options, outcome.verdict,
                outcome.verdict.detail, f"reduce {args.input.name} --oracle={oracle}", args.opset_version,
                culprit=outcome.culprit, dispatch_config=outcome.dispatch_config,
                fails_since=outcome.releases.history.record() if outcome.releases and outcome.releases.history else None,
            )
        except ValueError as err:
            raise UserError(str(err)) from None
        written["corpus"] = str(where)
        show(f"  corpus        {where}")
    if args.report:
        write_atomically(args.report, markdown(outcome))
        written["report"] = str(args.report)
        show(f"  report        {args.report}")
    if args.json:
        print(to_json(summary_record(outcome, written)))
    return 0 if outcome.complete else exit_status()


def _targeting_present_gpu(flags: list[str], options: OracleOptions, log) -> tuple[list[str], OracleOptions]:
    """The flags and pipelines that name a GPU device but no architecture, given the GPU present's
    (oracles/toolchain/devices.py); each choice said in one line."""
    flags, note = with_present_gpu(flags)
    notes = [note]
    pipelines = {}
    for name in ("pipeline_a", "pipeline_b"):
        pipelines[name], note = with_present_gpu(getattr(options, name)) if getattr(options, name) else ([], "")
        notes.append(note)
    for note in dict.fromkeys(filter(None, notes)):
        log(note)
    return flags, dataclasses.replace(options, **pipelines)


def with_reference_pipeline(options: OracleOptions, oracle: str, user_data: UserData | None) -> OracleOptions:
    """`miscompile` with expected outputs and no second pipeline: B is the reference pipeline
    (oracles/data/reference_pipeline.py), which must get the expected outputs right."""
    if oracle != "miscompile" or options.pipeline_b or user_data is None or not user_data.expected:
        return options
    return dataclasses.replace(options, pipeline_b=list(reference_pipeline.FLAGS))


def _dims(args: argparse.Namespace) -> dict[str, int]:
    """The sizes of --dim, read now (a malformed one is a one-line error)."""
    if args.dim and args.oracle not in DATA_ORACLES:
        raise UserError(refusals.DIM_WRONG_ORACLE.say(oracles=" or ".join(DATA_ORACLES), oracle=args.oracle))
    try:
        return parse_dims(args.dim)
    except UserDataError as err:
        raise UserError(str(err)) from None


def _user_data(args: argparse.Namespace, oracle: str) -> UserData | None:
    """The data of --inputs / --expected-outputs, read now (a bad file is a one-line error)."""
    if not args.inputs and not args.expected_outputs:
        return None
    if oracle not in DATA_ORACLES:
        raise UserError(refusals.DATA_ORACLE_ONLY.say(oracles=" or ".join(DATA_ORACLES), oracle=oracle))
    if args.expected_outputs and oracle not in ANSWER_ORACLES:
        raise UserError(refusals.EXPECTED_NEEDS_ANSWER.say(oracles=" or ".join(ANSWER_ORACLES), oracle=oracle))
    try:
        return read_sources(args.inputs, args.expected_outputs)
    except UserDataError as err:
        raise UserError(str(err)) from None


def _releases_only(args: argparse.Namespace, request: Request, releases) -> int:
    if args.save_to_corpus:
        raise UserError(refusals.CORPUS_WITH_RELEASES_ONLY.say())
    found: ReleasesOnly = releases_only(request, releases)
    if found.since.history is None and found.since.note != INTERRUPTED_NOTE:  # offline, an index that refuses
        raise UserError(refusals.relayed(found.since.note))
    if args.json:
        print(to_json(releases_only_record(found)))
    else:
        print(releases_only_summary(found))
    if args.report:
        write_atomically(args.report, releases_only_markdown(found))
        if not args.json:
            print(f"  report        {args.report}")
    return exit_status() if found.since.note == INTERRUPTED_NOTE else 0


def _culprit_only(args: argparse.Namespace, request: Request) -> int:
    if args.save_to_corpus:
        raise UserError(refusals.CORPUS_WITH_CULPRIT_ONLY.say())
    found = culprit_only(request, args.output or args.input)
    print(culprit_only_summary(found.oracle, found.input_path, found.verdict, found.culprit, found.dispatch_config, found.seconds))
    if args.report:
        write_atomically(args.report, culprit_only_markdown(found.oracle, found.verdict, found.culprit, found.dispatch_config))
        print(f"  report        {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
