"""One reduction from input file to written result: load, calibrate, reduce, check, write."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from oracles import Candidate, Oracle, OracleSetupError, Verdict, refusals
from oracles.base import mlir_path_for, renamed
from oracles.data.binding import UserData, UserDataError
from oracles.inputs.attach import attach
from oracles.inputs.dims import argument_types, sized_inputs, sizes_run_at
from oracles.mlir import ir as irx
from oracles.numeric.dispatch_test import DispatchTest
from oracles.onnx.importer import INNER_DIR, as_program_data, import_model
from oracles.registry import oracle_for_input
from oracles.toolchain.tools import ToolNotFound, find_tool, kill_all, scratch_dir
from oracles.toolchain.warm import WarmCompiler
from oracles.torch import SUFFIX as PT2_SUFFIX
from oracles.torch import torch_missing
from oracles.torch.imported import script_path_for, torch_oracle
from reducer.clock import StepClock
from reducer.culprit import where_it_breaks
from reducer.formats import onnx_model
from reducer.formats.kinds import input_kind
from reducer.passes.base import Proposal
from reducer.passes.onnx_pin_dims import PIN_PASS, dynamic_need
from reducer.passes.registry import PassRow
from reducer.progress import ReductionObserver
from reducer.report import Outcome
from reducer.search.cluster import ClusterError, ClusterExecutor
from reducer.search.editor import IsolatedEditor
from reducer.search.engine import Reducer
from reducer.search.function_slice import Localization
from reducer.search.fx_localize import localize_fx
from reducer.search.interrupt import Interruption
from reducer.search.localize import (
    IsolatedDispatch,
    dispatch_path,
    isolate_dispatch,
    localize,
)
from reducer.search.problem import ReductionProblem
from reducer.search.wrong_value import ORACLES as WRONG_VALUE_ORACLES
from reducer.search.wrong_value import (
    localize_wrong_value,
    write_program_test,
    wrong_dispatch_path,
)
from reducer.search.wrong_value import write_test as write_wrong_value_test
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

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C, as shells report SIGINT


class UserError(Exception):
    """A problem with the user's input; `str()` is one actionable line, `exit_code` the status."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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


def data_to_run_on(request: Request, candidate: Candidate) -> UserData | None:
    """The data the original runs on: the user's, or seeded at the sizes `--dim` names; a program
    with dynamic dims and neither, for an oracle that runs it, is refused naming both options."""
    if request.dims and request.user_data is not None and request.user_data.inputs:
        raise UserError(refusals.DIM_AND_INPUTS.say())
    if request.dims:
        try:
            return sized_inputs(candidate, request.dims, request.oracle.options.seed)
        except UserDataError as err:
            raise UserError(str(err)) from None
    if request.user_data is None and request.oracle.run_devices(candidate.flags):
        try:
            _, dims = argument_types(candidate)
        except ValueError:
            dims = []
        if dims:
            raise UserError(refusals.DYNAMIC_WITHOUT_SIZES.say(path=request.input_path, dims=", ".join(d.key for d in dims),
                                                               oracle=request.oracle.name, first=dims[0].key))
        if is_torch(request.input_path):  # every input carries its values: a cut's carry what the original computes
            try:
                return sized_inputs(candidate, {}, request.oracle.options.seed)
            except UserDataError as err:
                raise UserError(str(err)) from None
    return request.user_data


def is_onnx(path: Path) -> bool:
    return path.suffix == ".onnx"


def is_torch(path: Path) -> bool:
    """A `torch.export.save` archive: its FX graph is reduced."""
    return path.suffix == PT2_SUFFIX


def default_output(input_path: Path) -> Path:
    """`bug.reduced.mlir` beside `bug.mlir` (and beside `bug.mlirbc`: results are written as text)."""
    suffix = ".mlir" if input_path.suffix == ".mlirbc" else input_path.suffix
    return input_path.with_name(input_path.stem + ".reduced" + suffix)


def load(request: Request, ctx) -> Proposal:
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
    if is_onnx(path):
        return _load_onnx(request)
    if is_torch(path):
        return _load_torch(request, raw)
    if raw.startswith(irx.BYTECODE_MAGIC):  # reduced as text: every pass edits text, and a report shows it
        try:
            module = irx.parse_bytecode(raw, ctx, source_name=str(path))
        except irx.ParseError as err:
            raise UserError(refusals.MLIR_BYTECODE_UNREADABLE.say(path=path, error=err)) from None
        return Proposal(Candidate(irx.to_text(module), tuple(request.flags)), irx.count_ops(module))
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise UserError(refusals.MLIR_NOT_TEXT.say(path=path)) from None
    module = irx.parse(text, ctx, source_name=str(path))  # ParseError carries the location
    return Proposal(Candidate(text, tuple(request.flags)), irx.count_ops(module))


def load_reduced(request: Request) -> Candidate:
    """A case that is reduced already (`--culprit-only`, `--releases-only`): the tools it needs are
    there, and it loads; else UserError (one line)."""
    try:
        find_tool("iree-compile")
        if is_onnx(request.input_path):
            find_tool("iree-import-onnx")
    except ToolNotFound as err:
        raise UserError(str(err)) from None
    try:
        return load(request, irx.new_context()).candidate
    except irx.ParseError as err:
        raise UserError(refusals.UNPARSEABLE_MLIR.say(error=err)) from None


def _load_onnx(request: Request) -> Proposal:
    path, output = request.input_path, request.output_path
    mlir = Path(mlir_path_for(str(output)))
    if mlir.resolve() in (output.resolve(), path.resolve()):
        raise UserError(refusals.ONNX_OUTPUT_NAME.say(output=output, mlir=mlir.name))
    try:
        data = onnx_model.read_model_file(path)
        model = onnx_model.load_bytes(data)
    except onnx_model.OnnxLoadError as err:
        raise UserError(refusals.INVALID_ONNX.say(path=path, error=err)) from None
    candidate = Candidate(onnx_model.describe(model), tuple(request.flags), ".onnx", data)
    return Proposal(candidate, onnx_model.node_count(model))


def _load_torch(request: Request, raw: bytes) -> Proposal:
    """The user's archive, checked and made as every candidate is (reducer/formats/torch_program.py)."""
    path, output = request.input_path, request.output_path
    missing = torch_missing()
    if missing:
        raise UserError(refusals.TORCH_MISSING.say(path=path, why=missing))
    mlir, script = Path(mlir_path_for(str(output))), Path(script_path_for(str(output)))
    if output.suffix != PT2_SUFFIX or {mlir.resolve(), script.resolve()} & {output.resolve(), path.resolve()}:
        raise UserError(refusals.PT2_OUTPUT_NAME.say(output=output, mlir=mlir.name, script=script.name))
    from oracles.torch.importer import NotImportable  # imported late: they load torch
    from oracles.torch.program import ArchiveError, PickledModule
    from reducer.formats.torch_program import normalised
    from reducer.passes.fx_pass import torch_proposal

    try:
        built = normalised(raw)
    except PickledModule as err:
        raise UserError(refusals.PT2_PICKLED.say(path=path, error=err)) from None
    except NotImportable as err:
        raise UserError(refusals.PT2_NOT_IMPORTABLE.say(path=path, error=err)) from None
    except ArchiveError as err:
        raise UserError(refusals.PT2_UNREADABLE.say(path=path, error=err)) from None
    return torch_proposal(built, request.flags, ())


def _problem(request: Request, original: Proposal, oracle: Oracle, interruption: Interruption,
             checkpoints: Checkpoints, warm: WarmCompiler | None) -> ReductionProblem:
    """The problem on the local pool, or the cluster at `request.scheduler`; with the disk store unless disabled."""
    try:
        store = VerdictStore(request.cache_dir) if request.cache_dir is not None else None
        executor = ClusterExecutor(request.scheduler) if request.scheduler else None
    except (StoreError, ClusterError) as err:
        raise UserError(str(err)) from None

    def write(best: Proposal) -> None:
        request.observer.improved(best)
        data = best.candidate.binary if best.candidate.binary is not None else best.candidate.text
        write_atomically(request.output_path, data)
        checkpoints.improved(best)

    # Candidate edits run in a worker process: a crash in the bindings is a verdict on one edit.
    # A .pt2's edits load torch: the worker imports it while the original compiles.
    preload = (Reducer.__module__, *(("reducer.formats.torch_program",) if is_torch(request.input_path) else ()))
    editor = IsolatedEditor(oracle.options.limits, oracle.options.opset_version, preload=preload)
    # The editor loads the bindings while the original is judged; the warm compiler's workers load
    # once that verdict is in (see _reduce): loading beside the original's compile slowed it more
    # (its code generation runs on every core) than they then wait.
    editor.start()
    return ReductionProblem(original, oracle, jobs=request.jobs, executor=executor, store=store,
                            interruption=interruption, write=write, log=request.log, verbose=request.verbose,
                            editor=editor)


def reduce_file(request: Request) -> Outcome:
    """Runs the whole reduction; on Ctrl-C returns the partial outcome with complete=False."""
    with Interruption().installed() as interruption:
        return _reduce(request, interruption)


def _reduce(request: Request, interruption: Interruption) -> Outcome:
    clock = StepClock(request.started)
    clock.step("loading")
    try:
        find_tool("iree-compile")
    except ToolNotFound as err:
        raise UserError(str(err)) from None
    onnx_input, torch_input = is_onnx(request.input_path), is_torch(request.input_path)
    graph_input = onnx_input or torch_input  # reduced as a graph of nodes, not as IR ops
    if onnx_input:
        try:
            find_tool("iree-import-onnx")
        except ToolNotFound as err:
            raise UserError(str(err)) from None
    ctx = irx.new_context()
    try:
        original = load(request, ctx)
    except irx.ParseError as err:
        raise UserError(refusals.UNPARSEABLE_MLIR.say(error=err)) from None
    refusal = (torch_oracle(request.oracle) if torch_input else request.oracle).cannot_judge(original.candidate)
    if refusal:
        raise UserError(refusals.CANNOT_JUDGE.say(path=request.input_path, why=refusal))
    user_data = data_to_run_on(request, original.candidate)
    if user_data is not None:
        try:  # checked against the arguments now; ONNX: also what the original computes on it
            original = Proposal(attach(original.candidate, user_data), original.ops)
        except UserDataError as err:
            raise UserError(str(err)) from None
    # ONNX input: each candidate is imported first; the oracle judges the imported MLIR (or the model).
    # .pt2 input: each candidate carries its imported MLIR; the oracle judges it (or the program).
    oracle = oracle_for_input(request.oracle, request.input_path.suffix)

    check_hang_limit(request.oracle, request.flags)
    kind = input_kind(original.candidate)
    passes = [row for row in request.passes if kind in row.inputs]
    checkpoints = Checkpoints(state_path(request.output_path), original, _configuration(request, passes))
    try:
        saved = checkpoints.saved(request.log) if request.resume else None
    except ResumeRefused as err:
        raise UserError(str(err)) from None
    # Not with --scheduler: the calls run on the cluster, where a pickled warm compiler is switched off.
    use_warm = request.warm and oracle.warm_ok and request.scheduler is None
    warm = WarmCompiler(request.jobs, oracle.options.limits.memory_cap_mb) if use_warm else None
    problem = _problem(request, original, oracle, interruption, checkpoints, warm)

    def stop() -> None:
        if warm is not None:
            warm.shutdown()
        problem.shutdown()

    observer = request.observer

    def phase(what: str, part: str) -> None:  # what the live line says, and the part of the wall time it counts to
        observer.phase(what)
        clock.step(part)

    unit = "nodes" if graph_input else "ops"
    observer.started(problem.stats, unit)
    phase("judging the original", "original")
    try:
        # One compile of the original gives the verdict and, for localisation, where and in which phase it fails.
        verdict = problem.calibrate(locate=request.localize and saved is None)
        interruption.check()
    except KeyboardInterrupt:
        stop()
        raise UserError(refusals.INTERRUPTED_JUDGING.say(), INTERRUPTED) from None
    except OracleSetupError:  # --keep names none of the original's symptoms
        stop()
        raise
    try:
        check_original(verdict, oracle)  # the failure must be the compiler's, not this tool's or the command line's
    except OracleSetupError:
        stop()
        raise
    if request.time_budget_s is not None:
        problem.set_deadline(clock.started + request.time_budget_s)  # counted from the command's start
    if not verdict.interesting:
        stop()
        raise UserError(refusals.NOT_INTERESTING.say(oracle=oracle.name, detail=verdict.detail), refusals.NOT_INTERESTING.exit_code)
    request.log(f"original: {original.ops} {unit}, {original.candidate.size} bytes: {verdict.detail}")
    if request.verbose:  # what each module is compiled with, the pipelines' own flags last (they win)
        for name, flags, device in request.oracle.run_pipelines(original.candidate.flags):
            request.log(f"pipeline {name or 'flags'}: {' '.join(flags)} (runs on {device})")
    if warm is not None:
        warm.start()  # localisation (whole iree-compile runs) goes on while they load

    need = dynamic_need(problem, original) if onnx_input and saved is None else None
    if need is not None:
        request.log(f"dynamic dims: {need.line}")
    if need is not None and need.needed:  # the result keeps the dims the failure needs dynamic
        passes = [row for row in passes if row.name != PIN_PASS]
    reducer = Reducer(problem, passes, on_pass=observer.phase, on_position=checkpoints.at,
                      start=saved.position if saved is not None and saved.stage == PASSES else None)
    complete, located, dispatch, wrong_value = True, Localization(None), None, None
    beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beside")  # a compile beside the final check
    try:
        if saved is not None:
            _resume(problem, saved, original, request.log)
            located.stop_phase = saved.stop_phase
        else:
            problem.incorporate(original)
        if saved is None and request.localize:
            phase("localising the failure", "localisation")
            located = localize_fx(problem) if torch_input else localize(problem, request.input_path.name)
            if located.site is None and oracle.name in WRONG_VALUE_ORACLES:
                located, wrong_value = localize_wrong_value(problem, request.input_path.name)
                if wrong_value is not None and located.start is not None:
                    phase("writing the dispatch-level test", "localisation")
                    test = write_wrong_value_test(problem.oracle, wrong_value, located.start, wrong_dispatch_path(request.output_path))
                    request.log(f"localisation: dispatch-level test in {test.directory}: "
                                f"{'reproduces alone' if test.reproduces else 'does NOT reproduce alone'} ({test.detail})")
        if located.start is not None:
            problem.incorporate(located.start)
        if checkpoints.stage == LOCALISING:
            checkpoints.stage, checkpoints.stop_phase = PASSES, located.stop_phase
        phase("warming the compiler" if warm is not None else "starting the passes", "passes")
        if warm is not None and not problem.attach_compiler(warm, problem.best):
            warm.shutdown()
        if saved is None or saved.stage != FINISHED:
            reducer.run()
        checkpoints.finished()
        problem.full_compiles()
        phase("final check of the result", "final check")
        wants_dispatch = located.site is not None and bool(located.site.dispatch)
        # With -j 2 or more, the result's failing dispatch is dumped while the result is checked.
        dumped = beside.submit(problem.locate, problem.best.candidate, False) if wants_dispatch and request.jobs > 1 else None
        final: Verdict = problem.judge_fresh(problem.best.candidate)  # the written result must still fail
        interruption.check()  # a final check cut short by Ctrl-C says nothing about the result
        if not final.interesting:
            raise UserError(refusals.FLAKY.say(detail=final.detail), refusals.FLAKY.exit_code)
        verdict = renamed(final, f"input{problem.best.candidate.suffix}", request.output_path.name)
        if onnx_input or torch_input:
            inner = f"{INNER_DIR}/input.mlir" if onnx_input else "input.mlir"
            verdict = renamed(verdict, inner, Path(mlir_path_for(str(request.output_path))).name)
        if wants_dispatch:
            dispatch = _write_dispatch(request, problem, dumped.result() if dumped is not None else None)
    except KeyboardInterrupt:
        kill_all()
        complete = False
        request.log(f"the state to continue from is in {checkpoints.path.name}: run the same command with --resume")
    finally:
        beside.shutdown(wait=False, cancel_futures=True)
        problem.full_compiles()
        stop()
    if complete:
        checkpoints.path.unlink(missing_ok=True)  # nothing left to resume
    best = problem.best
    clock.step("files")
    mlir_path, mlir_text = _write_imported(request, best) if onnx_input else (None, None)
    script_path, script_text = (None, None)
    if torch_input:
        mlir_path, mlir_text = _write_torch_program(request, best)
        script_path, script_text = _write_script(request, best, verdict)
    wrong_lines = wrong_value.report() if wrong_value is not None else []
    tested = wrong_value.test if wrong_value is not None else None
    if complete and onnx_input and mlir_text and request.oracle.name == "miscompile":  # no MLIR to localise on: the case is the test
        clock.step("test of the case")
        tested = _case_test(request, best, mlir_text)
        wrong_lines = _case_test_lines(tested)
    culprit, config = None, None
    if complete and request.culprit:
        clock.step("failing pass")
        case = best.candidate if not graph_input else Candidate(mlir_text, best.candidate.flags) if mlir_text else None
        culprit, config = where_it_breaks(request.oracle, case, verdict, request.output_path, request.jobs, request.log,
                                          interruption, request.time_budget_s)
    return Outcome(
        oracle=oracle.name,
        input_path=str(request.input_path),
        output_path=str(request.output_path),
        original=original,
        best=best,
        verdict=verdict,
        command=problem.oracle.reproduce_command(best.candidate, str(request.output_path)),
        stats=problem.stats,
        seconds=clock.total(),
        parts=clock.parts(),
        jobs=request.jobs,
        dropped_flags=request.dropped_flags,
        complete=complete,
        unit=unit,
        imported_path=mlir_path,
        imported_mlir=mlir_text,
        input_text=onnx_model.to_text(onnx_model.parse(best.candidate.binary)) if onnx_input else script_text,
        script_path=script_path,
        dispatch=dispatch,
        wrong_value=wrong_lines,
        test_reproduces=tested.reproduces if tested is not None and tested.commands else None,
        sizes=sizes_run_at(best.candidate),
        original_sizes=sizes_run_at(original.candidate),
        dynamic_need=need.line if need is not None else "",
        devices=list(dict.fromkeys(request.oracle.run_devices(best.candidate.flags))),
        pipelines=[p for p in request.oracle.run_pipelines(best.candidate.flags) if p[0]],
        symptoms=located.symptoms,
        localised=(located.start.ops, located.tried) if located.start is not None else None,
        wrong_value_record=wrong_value.record() if wrong_value is not None else None,
        culprit=culprit,
        dispatch_config=config,
    )


def _case_test(request: Request, best: Proposal, mlir_text: str) -> DispatchTest:
    """The reduced ONNX case's imported program as a test that runs alone (`OUTPUT.wrong-dispatch/`):
    the wrong pipeline's module on its device against the right one's outputs."""
    oracle = request.oracle
    program = Candidate(mlir_text, best.candidate.flags,
                        data=as_program_data(best.candidate.data, best.candidate.binary, oracle.options.seed))
    test = write_program_test(oracle, program, wrong_dispatch_path(request.output_path))
    request.log(f"test of the reduced case in {test.directory}: "
                f"{'reproduces alone' if test.reproduces else 'does NOT reproduce alone'} ({test.detail})")
    return test


def _case_test_lines(test: DispatchTest) -> list[str]:
    """The report's lines for the test of the reduced case."""
    if not test.commands:
        return [f"no test of the reduced case: {test.detail}"]
    verdict = "reproduces the wrong answer alone" if test.reproduces else "does NOT reproduce alone"
    return [f"test of the reduced case in {test.directory} {verdict}: {test.detail}",
            *(f"  (cd {test.directory} && {command})" for command in test.commands)]


def _write_dispatch(request: Request, problem: ReductionProblem, located: Verdict | None) -> IsolatedDispatch | None:
    """Writes the failing dispatch of the result as a standalone hal.executable next to it
    (`located`: the result's located compile, when it ran beside the final check)."""
    path = dispatch_path(request.output_path)
    dispatch = isolate_dispatch(problem, path.name, located)
    if dispatch is None:
        path.unlink(missing_ok=True)  # never leave a dispatch from an earlier run beside this result
        request.log("the result's failure is not inside one dispatch; no dispatch source written")
        return None
    write_atomically(path, dispatch.source)
    dispatch.path = str(path)
    return dispatch


def _write_imported(request: Request, best: Proposal) -> tuple[str | None, str | None]:
    """Imports the reduced model and writes the MLIR next to it: (path, text), or Nones on failure."""
    path = Path(mlir_path_for(str(request.output_path)))
    with scratch_dir() as tmp:
        options = request.oracle.options
        text, _ = import_model(best.candidate.binary, Path(tmp), options.limits, options.opset_version)
    if text is None:
        path.unlink(missing_ok=True)  # never leave an MLIR from an earlier run beside this result
        request.log(f"the reduced model does not import; no {path.name} written")
        return None, None
    write_atomically(path, text)
    return str(path), text


def _write_torch_program(request: Request, best: Proposal) -> tuple[str, str]:
    """Writes the reduced program's imported MLIR (the candidate carries it) next to it."""
    path = Path(mlir_path_for(str(request.output_path)))
    write_atomically(path, best.candidate.text)
    return str(path), best.candidate.text


def _write_script(request: Request, best: Proposal, verdict: Verdict) -> tuple[str | None, str | None]:
    """Writes the standalone repro script of the reduced program next to it (`bug.reduced.py`)."""
    from reducer.formats.torch_script import script  # imported late: it loads torch

    path = Path(script_path_for(str(request.output_path)))
    try:
        text = script(best.candidate, request.oracle, verdict.detail)
    except Exception as err:  # noqa: BLE001  (a program the writer cannot spell is still the result)
        path.unlink(missing_ok=True)  # never leave a script from an earlier run beside this result
        request.log(f"no repro script written: {type(err).__name__}: {err}")
        return None, None
    write_atomically(path, text)
    return str(path), text


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
