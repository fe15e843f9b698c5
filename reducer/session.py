"""One reduction from input file to written result, as a list of named stages: load, judge the
original, localise, the passes, the final check, the files, the failing pass.

The session never branches on the input's format: it asks the format (reducer/formats/).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from oracles import Candidate, Oracle, OracleSetupError, Verdict, refusals
from oracles.data.binding import UserData, UserDataError
from oracles.inputs.attach import attach
from oracles.inputs.dims import argument_types, sized_inputs, sizes_run_at
from oracles.mlir import ir as irx
from oracles.numeric.dispatch_test import DispatchTest
from oracles.toolchain.tools import kill_all
from oracles.toolchain.warm import WarmCompiler
from reducer.clock import StepClock
from reducer.culprit import StepProcess, step_process_ahead, where_it_breaks
from reducer.formats.adaptor import Beside, InputFormat
from reducer.formats.registry import format_for
from reducer.localize.failure_site import IsolatedDispatch, dispatch_path, isolate_dispatch
from reducer.localize.function_slice import Localization
from reducer.localize.wrong_value import ORACLES as WRONG_VALUE_ORACLES
from reducer.localize.wrong_value import localize_wrong_value, wrong_dispatch_path
from reducer.localize.wrong_value import write_test as write_wrong_value_test
from reducer.passes.kinds import InputKind
from reducer.passes.onnx.pin_dims import PIN_PASS, DynamicNeed
from reducer.passes.registry import PassRow
from reducer.progress import ReductionObserver
from reducer.proposal import Proposal
from reducer.releases import ReleaseSettings, judge_releases
from reducer.report import Outcome
from reducer.search.cluster import ClusterError, ClusterExecutor
from reducer.search.ddmin import DEFAULT_SHRINK_THRESHOLD
from reducer.search.editor import IsolatedEditor
from reducer.search.engine import Reducer
from reducer.search.interrupt import Interruption
from reducer.search.problem import ReductionProblem
from reducer.storage.atomic import write_atomically
from reducer.storage.resume_state import (
    FINISHED,
    LOCALISING,
    PASSES,
    Checkpoints,
    ResumeRefused,
    ResumeState,
    state_path,
)
from reducer.storage.verdict_store import StoreError, VerdictStore, oracle_fingerprint
from reducer.trust import check_hang_limit, check_original
from reducer.user_error import INTERRUPTED, UserError

R = TypeVar("R")


@dataclass
class Request:
    input_path: Path
    oracle: Oracle
    flags: list[str]
    output_path: Path
    passes: list[PassRow]  # the input runs those whose inputs hold its kind
    jobs: int = 1
    dropped_flags: list[str] = field(default_factory=list)
    time_budget_s: float | None = None  # after it, the best so far is the result
    log: Callable[[str], None] = lambda _: None
    localize: bool = True  # cut down to the ops the failure points at before the passes
    resume: bool = False  # continue from the state a killed run of the same command left
    warm: bool = True  # compile in warm worker processes where the oracle allows it
    scheduler: str | None = None  # a Dask scheduler address: oracle calls run on its cluster
    cache_dir: Path | None = None  # verdicts kept across runs here (None: this run only)
    culprit: bool = True  # after the reduction: the failing pass (or an LDS dispatch's configuration)
    verbose: bool = False  # log every oracle call's answer and why
    observer: ReductionObserver = field(default_factory=ReductionObserver)  # told the step, the counts, the best
    user_data: UserData | None = None  # --inputs / --expected-outputs: carried by the original candidate
    dims: dict[str, int] = field(default_factory=dict)  # --dim: the sizes a program's dynamic dims run at, without data
    started: float | None = None  # time.monotonic() when the command began (its process's start); None: now
    releases: ReleaseSettings | None = None  # --releases: the result judged under other IREE releases
    shrink_threshold: float = DEFAULT_SHRINK_THRESHOLD  # --shrink-threshold: no shrink step gaining less of a size
    candidate_timeout_s: float | None = 0.0  # --candidate-timeout (0: --timeout alone; None: auto, from the original's compile)


def default_output(input_path: Path) -> Path:
    """Where the result goes without -o: the input's format names it (`bug.reduced.mlir`)."""
    return format_for(input_path).default_output(input_path)


def data_to_run_on(request: Request, candidate: Candidate) -> UserData | None:
    """The data the original runs on: the user's, or seeded at the sizes `--dim` names; a program
    with dynamic dims and neither, for an oracle that runs it, is refused naming both options."""
    if request.dims and request.user_data is not None and request.user_data.inputs:
        raise UserError(refusals.DIM_AND_INPUTS.say())
    if request.dims:
        return _seeded(request, candidate, request.dims)
    if request.user_data is None and request.oracle.run_devices(candidate.flags):
        try:
            _, dims = argument_types(candidate)
        except ValueError:
            dims = []
        if dims:
            raise UserError(refusals.DYNAMIC_WITHOUT_SIZES.say(path=request.input_path, dims=", ".join(d.key for d in dims),
                                                               oracle=request.oracle.name, first=dims[0].key))
        if format_for(request.input_path).seeds_every_input:
            return _seeded(request, candidate, {})
    return request.user_data


def _seeded(request: Request, candidate: Candidate, dims: dict[str, int]) -> UserData:
    try:
        return sized_inputs(candidate, dims, request.oracle.options.seed)
    except UserDataError as err:
        raise UserError(str(err)) from None


def load(request: Request, fmt: InputFormat) -> tuple[Proposal, InputKind]:
    """The user's file as the original; UserError (one line) for a file no format can read."""
    path = request.input_path
    if path.is_dir():
        raise UserError(refusals.INPUT_IS_DIRECTORY.say(path=path))
    if not path.is_file():
        raise UserError(refusals.NO_SUCH_INPUT.say(path=path))
    if request.output_path.resolve() == path.resolve():
        raise UserError(refusals.OUTPUT_IS_INPUT.say(output=request.output_path))
    raw = path.read_bytes()
    if not raw.strip():
        raise UserError(refusals.EMPTY_INPUT.say(path=path))
    fmt.check_output(path, request.output_path)
    loaded = fmt.load(path, raw, tuple(request.flags), irx.new_context(), request.oracle.options)
    return loaded.proposal, loaded.kind


def load_reduced(request: Request) -> Candidate:
    """A case that is reduced already (`--culprit-only`, `--releases-only`): the tools it needs are
    there, and it loads; else UserError (one line)."""
    fmt = format_for(request.input_path)
    fmt.check_tools()
    return load(request, fmt)[0].candidate


def load_with_data(request: Request) -> Candidate:
    """`load_reduced`, carrying the data the request runs it on (`data_to_run_on`): a case judged
    on its own as a reduction would judge it; UserError (one line) for data it cannot take."""
    case = load_reduced(request)
    data = data_to_run_on(request, case)
    if data is None:
        return case
    try:
        return attach(case, data)
    except UserDataError as err:
        raise UserError(str(err)) from None


def reduce_file(request: Request) -> Outcome:
    """Runs the whole reduction; on Ctrl-C returns the partial outcome with complete=False."""
    with Interruption().installed() as interruption:
        outcome = Reduction(request, interruption).run()
    judge_other_releases(request, outcome)
    return outcome


def judge_other_releases(request: Request, outcome: Outcome) -> None:
    """The last stage, `--releases`: since which release the result fails. Outside the reduction's
    Ctrl-C handling and its clock: a Ctrl-C stops the releases alone, and the result stands."""
    if request.releases is None or not outcome.complete:
        return
    request.observer.phase("judging other releases")
    outcome.releases = judge_releases(outcome.best.candidate, request.oracle, outcome.verdict, request.releases, request.log)


class Reduction:
    """One reduction's stages and what they hand each other; the problem owns the search's state."""

    def __init__(self, request: Request, interruption: Interruption) -> None:
        self.request, self.interruption = request, interruption
        self.format = format_for(request.input_path)
        self.clock = StepClock(request.started)
        self.observer = request.observer
        self.warm: WarmCompiler | None = None
        self.need: DynamicNeed | None = None
        self.located, self.wrong_value = Localization(None), None
        self.dispatch: IsolatedDispatch | None = None
        self.failing: _Step | None = None  # the failing-pass step, when it runs beside the passes or the final check
        self.checking: _Step | None = None  # the final check, when it runs beside a round that may confirm the best
        self.step_process: StepProcess | None = None  # the failing-pass step's process, started ahead at -j 2 or more
        self.shape_stops: list[tuple[str, int, int]] = []  # dims a shrink search left within the threshold
        self.complete = True

    def run(self) -> Outcome:
        try:
            return self._reduce()
        finally:
            if self.step_process is not None:
                self.step_process.shutdown()  # no step took it: a refusal, Ctrl-C, a check that failed

    def _reduce(self) -> Outcome:
        self.clock.step("loading")
        self.format.check_tools()
        self.original, kind = load(self.request, self.format)
        self.oracle = self.judge_with()
        self.start(kind)
        verdict = self.judge_original()
        try:
            self.localise()
            self.run_passes()
            verdict = self.final_check()
        except KeyboardInterrupt:
            kill_all()
            if self.failing is not None:
                self.failing.cancel.set()  # a failing-pass step run ahead ends with the reduction
            self.complete = False
            self.request.log(f"the state to continue from is in {self.checkpoints.path.name}: run the same command with --resume")
        finally:
            self.problem.full_compiles()
            self.stop()
        if self.complete:
            self.checkpoints.path.unlink(missing_ok=True)  # nothing left to resume
        return self.outcome(verdict)

    # --- load: the original, its data and the oracle that judges it ------------------------------

    def judge_with(self) -> Oracle:
        """The format's judging oracle, once the original can be judged and carries its data."""
        request = self.request
        refusal = self.format.cannot_judge(request.oracle, self.original.candidate)
        if refusal:
            raise UserError(refusals.CANNOT_JUDGE.say(path=request.input_path, why=refusal))
        user_data = data_to_run_on(request, self.original.candidate)
        if user_data is not None:
            try:  # checked against the arguments now; ONNX: also what the original computes on it
                self.original = Proposal(attach(self.original.candidate, user_data), self.original.ops)
            except UserDataError as err:
                raise UserError(str(err)) from None
        return self.format.judging_oracle(request.oracle)

    def start(self, kind: InputKind) -> None:
        """The passes of the original's kind, the resume state, the warm compiler and the problem."""
        request = self.request
        check_hang_limit(request.oracle, request.flags)
        self.passes = [row for row in request.passes if kind in row.inputs]
        self.checkpoints = Checkpoints(state_path(request.output_path), self.original, _configuration(request, self.passes),
                                       keeps_data=self.format.resume_keeps_data)
        try:
            self.saved = self.checkpoints.saved(request.log) if request.resume else None
        except ResumeRefused as err:
            raise UserError(str(err)) from None
        # Not with --scheduler: the calls run on the cluster, where a pickled warm compiler is switched off.
        if request.warm and self.oracle.warm_ok and request.scheduler is None:
            self.warm = WarmCompiler(request.jobs, self.oracle.options.limits.memory_cap_mb)
        self.problem = _problem(request, self.format, self.original, self.oracle, self.interruption, self.checkpoints)

    def stop(self) -> None:
        if self.warm is not None:
            self.warm.shutdown()
        self.problem.shutdown()

    def phase(self, what: str, part: str) -> None:
        """What the live line says, and the part of the wall time it counts to."""
        self.observer.phase(what)
        self.clock.step(part)

    # --- judge the original -----------------------------------------------------------------------

    def judge_original(self) -> Verdict:
        """One compile of the original gives the verdict and, for localisation, where and in which phase it fails."""
        request, problem, oracle = self.request, self.problem, self.oracle
        self.observer.started(problem.stats, self.format.unit)
        self.phase("judging the original", "original")
        # the failing-pass step's process imports the step beside the original's first phases
        self.step_process = step_process_ahead(request.oracle, request.jobs, request.culprit, request.warm)
        try:
            verdict = problem.calibrate(locate=request.localize and self.saved is None)
            self.interruption.check()
        except KeyboardInterrupt:
            self.stop()
            raise UserError(refusals.INTERRUPTED_JUDGING.say(), INTERRUPTED) from None
        except OracleSetupError:  # --keep names none of the original's symptoms
            self.stop()
            raise
        try:
            check_original(verdict, oracle)  # the failure must be the compiler's, not this tool's or the command line's
        except OracleSetupError:
            self.stop()
            raise
        if request.time_budget_s is not None:
            problem.set_deadline(self.clock.started + request.time_budget_s)  # counted from the command's start
        if not verdict.interesting:
            self.stop()
            raise UserError(refusals.NOT_INTERESTING.say(oracle=oracle.name, detail=verdict.detail), refusals.NOT_INTERESTING.exit_code)
        original = self.original
        request.log(f"original: {original.ops} {self.format.unit}, {original.candidate.size} bytes: {verdict.detail}")
        if request.verbose:  # what each module is compiled with, the pipelines' own flags last (they win)
            for name, flags, device in request.oracle.run_pipelines(original.candidate.flags):
                request.log(f"pipeline {name or 'flags'}: {' '.join(flags)} (runs on {device})")
        if self.warm is not None:
            self.warm.start()  # localisation (whole iree-compile runs) goes on while they load
            problem.offer_compiler(self.warm)  # and its first candidate checks them (at -j 2 or more)
        if self.step_process is not None:
            self.step_process.load_workers()
        return verdict

    # --- localise ---------------------------------------------------------------------------------

    def localise(self) -> None:
        """Resumes, or cuts the original down to what its failure points at."""
        request, problem, saved = self.request, self.problem, self.saved
        self.need = self.format.dynamic_need(problem, self.original) if saved is None else None
        if self.need is not None:
            request.log(f"dynamic dims: {self.need.line}")
            if self.need.needed:  # the result keeps the dims the failure needs dynamic
                self.passes = [row for row in self.passes if row.name != PIN_PASS]
        if saved is not None:
            _resume(problem, saved, self.original, request.log)
            self.located.stop_phase = saved.stop_phase
        else:
            problem.incorporate(self.original)
        if saved is None and request.localize:
            self.phase("localising the failure", "localisation")
            self.located = self.format.localise(problem, request.input_path.name)
            if self.located.site is None and self.oracle.name in WRONG_VALUE_ORACLES:
                self.located, self.wrong_value = localize_wrong_value(problem, request.input_path.name)
                self.write_wrong_value_test()
        if self.located.start is not None:
            problem.incorporate(self.located.start)
        if self.checkpoints.stage == LOCALISING:
            self.checkpoints.stage, self.checkpoints.stop_phase = PASSES, self.located.stop_phase

    def write_wrong_value_test(self) -> None:
        wrong, start = self.wrong_value, self.located.start
        if wrong is None or start is None:
            return
        self.phase("writing the dispatch-level test", "localisation")
        test = write_wrong_value_test(self.problem.oracle, wrong, start, wrong_dispatch_path(self.request.output_path))
        self.request.log(f"localisation: dispatch-level test in {test.directory}: "
                         f"{'reproduces alone' if test.reproduces else 'does NOT reproduce alone'} ({test.detail})")

    # --- the passes -------------------------------------------------------------------------------

    def run_passes(self) -> None:
        problem, saved, checkpoints = self.problem, self.saved, self.checkpoints
        reducer = Reducer(problem, self.passes, on_pass=self.observer.phase, on_position=checkpoints.at,
                          start=saved.position if saved is not None and saved.stage == PASSES else None,
                          shrink_threshold=self.request.shrink_threshold, on_round=self.ahead_of_round)
        self.phase("warming the compiler" if self.warm is not None else "starting the passes", "passes")
        searching = saved is None or saved.stage != FINISHED
        first = reducer.first_candidates() if searching else None
        if self.warm is not None and not problem.attach_compiler(self.warm, problem.best, first):
            self.warm.shutdown()
            self.warm = None
        if searching:
            reducer.run()
            self.shape_stops = reducer.threshold_stops()
        checkpoints.finished()
        problem.full_compiles()

    # --- the final check --------------------------------------------------------------------------

    def final_check(self) -> Verdict:
        """The written result must still fail (`check`: run ahead beside the round that confirmed
        it at -j 2 or more, else now). Beside it: the failing-pass step."""
        request, problem, best = self.request, self.problem, self.problem.best
        self.phase("final check of the result", "final check")
        self.failing = self._failing_pass_on(best)
        ahead, self.checking = self.checking, None
        checked = ahead.result(request.log) if ahead is not None and ahead.key == best.candidate.key else self.check(best)
        self.interruption.check()  # a final check cut short by Ctrl-C says nothing about the result
        if not checked.final.interesting:
            if problem.retreat(self.located.stop_phase) is None:
                raise UserError(refusals.FLAKY.say(detail=checked.final.detail), refusals.FLAKY.exit_code)
            self.saved, self.checkpoints.stage = None, PASSES  # the passes again, from the best that fails
            self.run_passes()
            return self.final_check()
        verdict = self.format.named_in_messages(checked.final, best.candidate, request.output_path)
        if checked.wants_dispatch:
            self.dispatch = _write_dispatch(request, checked.dispatch)
        return verdict

    def check(self, best: Proposal) -> _Checked:
        """The final check's compiles on `best`, compiled as the printed command compiles: its verdict
        and, where the failure sits in a dispatch, that dispatch dumped (by the check's own compile
        when the oracle judges located ones, else by a located compile beside it at -j 2 or more)
        and compiled alone."""
        request, problem, candidate = self.request, self.problem, best.candidate
        oracle = problem.whole_compiles()
        wants_dispatch = self.located.site is not None and bool(self.located.site.dispatch)
        if wants_dispatch and oracle.judges_located:
            final = located = problem.locate_settled(candidate, debuginfo=False, oracle=oracle)  # one compile checks and dumps
        else:
            dumped = _beside(problem.locate, candidate, False, oracle) if wants_dispatch and request.jobs > 1 else None
            final = problem.judge_fresh(candidate, oracle)
            located = dumped.result() if dumped is not None else None
        path = str(dispatch_path(request.output_path))  # as the reproduce command names the result: pasteable where it runs
        dispatch = isolate_dispatch(problem, best, path, located, oracle) if wants_dispatch and final.interesting else None
        return _Checked(final, wants_dispatch, dispatch)

    # --- the files and the failing pass -----------------------------------------------------------

    def outcome(self, verdict: Verdict) -> Outcome:
        request, best = self.request, self.problem.best
        self.clock.step("files")
        beside = self.format.write_beside(best, request.oracle, verdict, request.output_path, request.log)
        wrong_lines = self.wrong_value.report() if self.wrong_value is not None else []
        tested = self.wrong_value.test if self.wrong_value is not None else None
        if self.complete and self.format.wants_case_test(request.oracle, beside):
            self.clock.step("test of the case")
            tested = self.format.case_test(request.oracle, best, beside, request.output_path, request.log)
            wrong_lines = _case_test_lines(tested)
        culprit, config = None, None
        if self.complete and request.culprit:
            self.phase("the failing pass", "failing pass")
            step = self.failing
            culprit, config = step.result(request.log) if step is not None else self.failing_pass(verdict, best)
        return self.outcome_record(verdict, beside, wrong_lines, tested, culprit, config)

    def ahead_of_round(self, best: Proposal) -> None:
        """As a later round of passes starts (-j 2 or more): the final check and the failing-pass
        step on the best so far, beside the round (one that confirms the best leaves them the
        result's: the check at the end would leave a core idle); a round that finds a smaller one
        drops them, and the final check runs them again on that."""
        if self.request.jobs <= 1:
            return
        self.failing = self._failing_pass_on(best)
        if self.checking is None or self.checking.key != best.candidate.key:
            self.checking = _Step(best.candidate.key, _beside(self.check, best))

    def _failing_pass_on(self, best: Proposal) -> _Step | None:
        """The failing-pass step on `best`, started in a daemon thread on the verdict this run has on
        it (the step needs its signature and dispatch), or the one already running on it; one on
        another candidate is cancelled. None when not asked for or no verdict is known (a resumed
        best): then it runs after the files."""
        if self.failing is not None:
            if self.failing.key == best.candidate.key:
                return self.failing
            self.failing.cancel.set()
        known = self.problem.known_verdict(best.candidate) if self.request.culprit else None
        if known is None or not known.interesting:
            return None
        step = _Step(best.candidate.key)
        step.future = _beside(self.failing_pass, known, best, step)
        return step

    def failing_pass(self, verdict: Verdict, best: Proposal, step: _Step | None = None):
        """The failing pass of `best` (or an LDS overrun's dispatch configuration); a step run ahead
        keeps its log lines until it is known to be the result's."""
        request = self.request
        case = self.format.failing_pass_case(best, request.oracle)
        return where_it_breaks(request.oracle, case, verdict, request.output_path, request.jobs,
                               step.lines.append if step is not None else request.log, self.interruption,
                               request.time_budget_s, step.cancel if step is not None else None, request.warm,
                               self.step_process)

    def outcome_record(self, verdict: Verdict, beside: Beside, wrong_lines: list[str], tested: DispatchTest | None,
                       culprit, config) -> Outcome:
        request, problem, best, located = self.request, self.problem, self.problem.best, self.located
        return Outcome(
            oracle=self.oracle.name, input_path=str(request.input_path), output_path=str(request.output_path),
            original=self.original, best=best, verdict=verdict,
            command=problem.oracle.reproduce_command(best.candidate, str(request.output_path)),
            stats=problem.stats, seconds=self.clock.total(), parts=self.clock.parts(), jobs=request.jobs,
            dropped_flags=request.dropped_flags, complete=self.complete, unit=self.format.unit,
            imported_path=beside.mlir_path, imported_mlir=beside.mlir_text, input_text=beside.input_text,
            script_path=beside.script_path, dispatch=self.dispatch, wrong_value=wrong_lines,
            test_reproduces=tested.reproduces if tested is not None and tested.commands else None,
            sizes=sizes_run_at(best.candidate), original_sizes=sizes_run_at(self.original.candidate),
            dynamic_need=self.need.line if self.need is not None else "",
            devices=list(dict.fromkeys(request.oracle.run_devices(best.candidate.flags))),
            pipelines=[p for p in request.oracle.run_pipelines(best.candidate.flags) if p[0]],
            symptoms=located.symptoms, shape_stops=self.shape_stops, shrink_threshold=request.shrink_threshold,
            localised=(located.start.ops, located.tried) if located.start is not None else None,
            wrong_value_record=self.wrong_value.record() if self.wrong_value is not None else None,
            culprit=culprit, dispatch_config=config,
        )


def _problem(request: Request, fmt: InputFormat, original: Proposal, oracle: Oracle, interruption: Interruption,
             checkpoints: Checkpoints) -> ReductionProblem:
    """The problem on the local pool, or the cluster at `request.scheduler`; with the disk store unless disabled."""
    try:
        store = VerdictStore(request.cache_dir) if request.cache_dir is not None else None
        executor = ClusterExecutor(request.scheduler) if request.scheduler else None
    except (StoreError, ClusterError) as err:
        raise UserError(str(err)) from None

    def write(best: Proposal) -> None:
        request.observer.improved(best)
        write_atomically(request.output_path, fmt.result_bytes(best.candidate))
        checkpoints.improved(best)

    # Candidate edits run in a worker process: a crash in the bindings is a verdict on one edit.
    editor = IsolatedEditor(oracle.options.limits, oracle.options.opset_version, preload=(Reducer.__module__, *fmt.editor_preload))
    # The editor loads the bindings while the original is judged; the warm compiler's workers load
    # once that verdict is in (Reduction.judge_original): loading beside the original's compile slowed
    # it more (its code generation runs on every core) than they then wait.
    editor.start()
    return ReductionProblem(original, oracle, jobs=request.jobs, executor=executor, store=store,
                            interruption=interruption, write=write, log=request.log, verbose=request.verbose,
                            editor=editor, candidate_timeout=request.candidate_timeout_s)


@dataclass
class _Step:
    """A step started ahead on one candidate (the failing-pass step, the final check): its future,
    its cancel, its log lines."""

    key: str  # the candidate it runs on
    future: Future | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    lines: list[str] = field(default_factory=list)

    def result(self, log: Callable[[str], None]):
        """(culprit, dispatch configuration), its lines logged now that it is the result's."""
        found = self.future.result()
        for line in self.lines:
            log(line)
        return found


def _beside(fn: Callable[..., R], *args: object) -> Future:
    """`fn(*args)` in a daemon thread: work beside the final check that a failed check or Ctrl-C
    abandons without the process waiting for it at exit (its tools die with the process)."""
    future: Future = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn(*args))
        except BaseException as err:  # noqa: BLE001  (handed to whoever waits on the future)
            future.set_exception(err)

    threading.Thread(target=run, name="beside", daemon=True).start()
    return future


def _case_test_lines(test: DispatchTest) -> list[str]:
    """The report's lines for the test of the reduced case."""
    if not test.commands:
        return [f"no test of the reduced case: {test.detail}"]
    verdict = "reproduces the wrong answer alone" if test.reproduces else "does NOT reproduce alone"
    return [f"test of the reduced case in {test.directory} {verdict}: {test.detail}",
            *(f"  (cd {test.directory} && {command})" for command in test.commands)]


@dataclass
class _Checked:
    """The final check's compiles on one candidate (`Reduction.check`)."""

    final: Verdict
    wants_dispatch: bool  # the failure sits in one dispatch, which goes beside the result
    dispatch: IsolatedDispatch | None  # that dispatch, checked alone; None when none was dumped


def _write_dispatch(request: Request, dispatch: IsolatedDispatch | None) -> IsolatedDispatch | None:
    """Writes the failing dispatch of the result as a standalone hal.executable next to it."""
    path = dispatch_path(request.output_path)
    if dispatch is None:
        path.unlink(missing_ok=True)  # never leave a dispatch from an earlier run beside this result
        request.log("the result's failure is not inside one dispatch; no dispatch source written")
        return None
    write_atomically(path, dispatch.source)
    dispatch.path = str(path)
    return dispatch


# --- reduce --resume ------------------------------------------------------------------------------


def _configuration(request: Request, passes: list[PassRow]) -> str:
    """What a state is only valid for besides the original: the oracle, the flags and the passes."""
    return "\n".join([oracle_fingerprint(request.oracle), " ".join(request.flags), " ".join(row.name for row in passes)])


def _resume(problem: ReductionProblem, saved: ResumeState, original: Proposal, log: Callable[[str], None]) -> None:
    """The saved best becomes the best (it was judged interesting when it came in), compiles stop
    where the killed run's did, and the passes go on from the saved position."""
    best = Proposal(saved.best_candidate(original.candidate), saved.best_ops)
    problem.incorporate(best)  # written again first: the state on disk stays the saved one
    if saved.stop_phase:
        problem.stop_early(saved.stop_phase)
    where = f"round {saved.position.round}, pass {saved.position.pass_index + 1}" if saved.stage == PASSES else saved.stage
    log(f"--resume: from {best.ops} ops, {best.candidate.size} bytes ({where})")
