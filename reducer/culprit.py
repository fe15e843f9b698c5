"""Where it breaks: the failing pass of a reduced case, its one-pass repro (reduced), and a lit test.

What an IREE engineer does by hand after a reduction: find the pass that fails, dump the IR in
front of it, and write an `iree-opt` lit test of that pass. One compile with the local crash
reproducer names the pass (and, with the phases dumped, its phase) and writes the IR in front of
it; `iree-opt --pass-pipeline` on that IR must show the original's signature (a second call), or
the step did not conclude. The one-pass repro is then reduced with the reducer's own passes,
the oracle being `iree-opt` on that fixed pipeline, and annotated where the pass reports its
diagnostics. A step that cannot conclude says why; it never fails the reduction it follows.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path

from oracles import Candidate, Oracle, Verdict
from oracles.compiling.dispatch_config import DispatchConfig, dispatch_configuration
from oracles.compiling.pass_repro import (
    IREE_OPT,
    LitCheck,
    expected_diagnostics,
    lit_test_text,
    one_pass_kind,
    one_pass_oracle,
    read_reproducer,
    reproducer_flags,
    run_lit_test,
)
from oracles.mlir import ir as irx
from oracles.mlir.locations import PHASES_DUMP, first_failing_phase
from oracles.signature import first_error
from oracles.toolchain.flags import PHASES
from oracles.toolchain.tools import (
    ToolNotFound,
    compile_candidate,
    find_tool,
    kill_all,
    scratch_dir,
)
from oracles.toolchain.warm import WarmCompiler, kill_pool, pool_processes, signal_workers, spawn_pool
from reducer.passes.kinds import input_kind
from reducer.passes.registry import PassRow, passes_for
from reducer.proposal import Proposal
from reducer.search.editor import IsolatedEditor
from reducer.search.engine import Reducer
from reducer.search.interrupt import Interruption
from reducer.search.problem import ReductionProblem

CULPRIT_ORACLES = ("compile-error", "crash")
DEFAULT_BUDGET_S = 120.0  # for reducing the one-pass repro; the best so far is kept after it
STEP_OVERHEAD_S = 180.0  # the two calls that name the pass, on top of twice the budget: a hung step ends
CANCEL_POLL_S = 0.5  # how often a step run ahead looks whether it is still wanted
STOP_GRACE_S = 2.0  # for the step's process to release its warm workers before it is killed


def pass_repro_passes(repro: Candidate) -> list[PassRow]:
    """The reducer's passes for the repro's kind (its oracle judges compiles: every row serves it)."""
    return passes_for(input_kind(repro))


def pass_repro_path(output: Path) -> Path:
    """`bug.reduced.mlir` -> `bug.reduced.pass.mlir` (an `.onnx` result gets the same)."""
    return output.with_name(f"{output.stem}.pass.mlir")


def lit_test_path(output: Path) -> Path:
    """`bug.reduced.mlir` -> `bug.reduced.lit.mlir`."""
    return output.with_name(f"{output.stem}.lit.mlir")


@dataclass
class Culprit:
    """What the step found; `why` says what stopped it when it did not conclude."""

    concluded: bool = False
    why: str = ""
    pass_name: str = ""
    phase: str = ""
    pipeline: str = ""
    source_ops: int = 0  # the reduced case the step ran on (an ONNX result's import)
    reproducer_ops: int = 0  # the IR the compiler wrote in front of the pass
    pass_repro_ops: int = 0  # the one-pass repro after its reduction
    repro_path: str = ""
    repro_text: str = ""
    command: str = ""
    lit_path: str = ""
    lit_text: str = ""
    lit: LitCheck | None = None
    compiles: int = 0  # iree-compile / iree-opt calls to name the pass and check its repro
    find_seconds: float = 0.0
    reduction_calls: int = 0  # iree-opt calls of the repro's reduction
    reduction_seconds: float = 0.0
    seconds: float = 0.0

    def record(self) -> dict:
        """Plain data for a corpus entry."""
        return {
            "pass": self.pass_name,
            "phase": self.phase,
            "pipeline": self.pipeline,
            "source_ops": self.source_ops,
            "reproducer_ops": self.reproducer_ops,
            "pass_repro_ops": self.pass_repro_ops,
            "compiles": self.compiles,
            "find_seconds": round(self.find_seconds, 2),
            "reduction_calls": self.reduction_calls,
            "reduction_seconds": round(self.reduction_seconds, 2),
            "seconds": round(self.seconds, 2),
        }


@dataclass
class CulpritRequest:
    """The reduced case (MLIR; an ONNX result's imported text), its oracle, its verdict, where to write."""

    candidate: Candidate
    oracle: Oracle  # the compiling oracle (compile-error or crash), for its flags and options
    reference: Verdict  # the signature the one-pass repro must show
    output: Path  # the reduced case's path: the repro and lit test are written beside it
    jobs: int = 1
    budget_s: float = DEFAULT_BUDGET_S
    log: Callable[[str], None] = lambda _: None
    interruption: Interruption | None = None
    cancel: threading.Event | None = None  # set: the step is no longer wanted (its case is no longer the result)
    # The repro's edits each in a worker of their own (a crash there is one failed edit): the step's
    # second try, after the bindings killed its first while it edited the repro.
    isolate_edits: bool = False
    warm: bool = True  # the repro's iree-opt calls on warm workers (`--no-warm`: each as the tool)


class StepProcess:
    """The culprit step's process, spawned ahead. At -j 2 or more the original's first phases leave
    a core idle: there the process imports the step; once the original's verdict is in (no refusal
    comes after it), it loads the warm workers of the repro's reduction. Both would otherwise run
    in the run's last seconds, beside its last round. The first step to run takes the process; one
    never taken is stopped on the way out (`_stopped`), as a step's is."""

    def __init__(self, jobs: int, memory_cap_mb: int, warm: bool) -> None:
        self._lock = threading.Lock()
        self._workers = (jobs, memory_cap_mb) if warm else None
        self._pool: ProcessPoolExecutor | None = spawn_pool(1)
        self._submit(_imported)

    def __enter__(self) -> StepProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def load_workers(self) -> None:
        """The repro's warm workers start loading (the run is past its refusals)."""
        if self._workers is not None:
            self._submit(_prepare_in_child, *self._workers)

    def pid(self) -> int | None:
        """The process's id while no step has taken it."""
        with self._lock:
            return next((process.pid for process in pool_processes(self._pool)), None)

    def take(self) -> ProcessPoolExecutor | None:
        with self._lock:
            pool, self._pool = self._pool, None
        return pool

    def shutdown(self) -> None:
        pool = self.take()
        if pool is not None:
            _stopped(pool)

    def _submit(self, fn: Callable[..., None], *args: object) -> None:
        with self._lock:
            if self._pool is None:
                return
            try:
                self._pool.submit(fn, *args)
            except (OSError, AssertionError, RuntimeError):  # no process here: the step spawns its own, as before
                kill_pool(self._pool)
                self._pool = None


def step_process_ahead(oracle: Oracle, jobs: int, wanted: bool, warm: bool) -> StepProcess | None:
    """The culprit step's process, started now where a step will run and a worker is spare."""
    if jobs <= 1 or not wanted or oracle.name not in CULPRIT_ORACLES:
        return None
    return StepProcess(jobs, oracle.options.limits.memory_cap_mb, warm and oracle.warm_ok)


_ready_compiler: WarmCompiler | None = None  # in the step's process: loaded ahead, taken by the step
_step_compiler: WarmCompiler | None = None  # in the step's process: the one its reduction judges on


def _imported() -> None:
    """Run in the step's process: unpickling it there imports this module, and the step's. Until a
    step runs, Ctrl-C is the run's alone (as for every spawned worker)."""
    _on_terminate_release_workers()


def _prepare_in_child(jobs: int, memory_cap_mb: int) -> None:
    global _ready_compiler
    _ready_compiler = WarmCompiler(jobs, memory_cap_mb)
    _ready_compiler.start()


def _on_terminate_release_workers() -> None:
    """In the step's process. Its warm workers' pool holds semaphores the run's resource tracker
    counts; a process killed with them left a 'leaked semaphore objects' warning at the run's exit.
    So the step is stopped with SIGTERM first (`_stopped`), and this releases them before exiting."""
    signal.signal(signal.SIGTERM, _release_workers_and_exit)


def _release_workers_and_exit(*_: object) -> None:
    for compiler in (_ready_compiler, _step_compiler):
        if compiler is not None:
            compiler.shutdown()
    gc.collect()  # the pool's queues, and their semaphores, go now
    os._exit(0)


def _stopped(pool: ProcessPoolExecutor, grace_s: float = STOP_GRACE_S) -> None:
    """Ends the step's process: SIGTERM, a moment to release its workers, then the kill."""
    processes = pool_processes(pool)
    signal_workers(pool, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    kill_pool(pool)


def _warm_compiler(jobs: int, memory_cap_mb: int) -> WarmCompiler:
    """The compiler loaded ahead in this process if it has the step's workers and cap, else a new one."""
    global _ready_compiler
    ready, _ready_compiler = _ready_compiler, None
    if ready is not None and (ready.workers, ready.memory_cap_mb) == (max(1, jobs), memory_cap_mb):
        return ready
    if ready is not None:
        ready.shutdown()
    return WarmCompiler(jobs, memory_cap_mb)


def where_it_breaks(
    oracle: Oracle, case: Candidate | None, verdict: Verdict, output: Path, jobs: int,
    log: Callable[[str], None], interruption: Interruption | None = None, budget_s: float | None = None,
    cancel: threading.Event | None = None, warm: bool = True, process: StepProcess | None = None,
) -> tuple[Culprit | None, DispatchConfig | None]:
    """After a reduction: the culprit pass of a compile error or crash, the configuration of an
    LDS overrun's dispatch. `case` is the reduced MLIR (an ONNX result's import; None if it has none).
    `cancel`, once set, ends a culprit step early (its case stopped being the result); `process`,
    started ahead, runs the step if no step took it yet."""
    if oracle.name == "lds-limit" and case is not None:
        start = time.monotonic()
        config = dispatch_configuration(oracle, case, str(verdict.metrics.get("dispatch", "")))
        log(f"dispatch configuration read in {time.monotonic() - start:.1f} s" if config else "no dumped dispatch configuration matched")
        return None, config
    if oracle.name not in CULPRIT_ORACLES:
        return None, None
    if verdict.signature.startswith("import:"):
        return Culprit(why="the model fails in iree-import-onnx, before any compiler pass"), None
    if case is None:
        return Culprit(why="the reduced model does not import"), None
    budget = DEFAULT_BUDGET_S if budget_s is None else min(budget_s, DEFAULT_BUDGET_S)
    request = CulpritRequest(case, oracle, verdict, output, jobs, budget, log, interruption, cancel, warm=warm)
    try:
        return find_culprit_isolated(request, process.take() if process is not None else None), None
    except Exception as err:  # noqa: BLE001  (an extra step: whatever breaks it, the reduction's result stands)
        return Culprit(why=f"the step broke: {type(err).__name__}: {err}"), None


def find_culprit_isolated(request: CulpritRequest, pool: ProcessPoolExecutor | None = None) -> Culprit:
    """`find_culprit` in a child process (`pool`'s, spawned ahead, or a new one). The step parses and
    edits IR the compiler wrote mid-pipeline through the bindings, where an assertion aborts the
    process: that must end the step, never the run."""
    pool = pool if pool is not None else spawn_pool(1)
    limit_s = 2 * request.budget_s + STEP_OVERHEAD_S
    try:
        job = pool.submit(_find_in_child, replace(request, log=_quiet, interruption=None, cancel=None))
        done = _waited(job, time.monotonic() + limit_s, request.cancel)
        if done is None:
            return Culprit(why="cancelled: the reduction found a smaller result")
        culprit, lines = done
    except BrokenProcessPool:
        if not request.isolate_edits:  # most often a parse of an edited repro (heap corruption in the bindings)
            request.log("culprit: the step's process died inside the compiler's libraries; again, each edit isolated")
            return find_culprit_isolated(replace(request, isolate_edits=True))
        return Culprit(why="the step's process died inside the compiler's libraries (an assertion or a signal)")
    except FutureTimeout:
        return Culprit(why=f"the step ran past {limit_s:.0f} s and was stopped (the reduction's result stands)")
    finally:
        _stopped(pool)
    for line in lines:
        request.log(line)
    return culprit


def _waited(job: Future, deadline: float, cancel: threading.Event | None) -> tuple[Culprit, list[str]] | None:
    """The child's answer; None once `cancel` is set; FutureTimeout past `deadline`."""
    while True:
        try:
            return job.result(timeout=max(0.0, min(CANCEL_POLL_S, deadline - time.monotonic())))
        except FutureTimeout:
            if time.monotonic() >= deadline:
                raise
            if cancel is not None and cancel.is_set():
                return None


def _quiet(_: str) -> None:
    pass


def _find_in_child(request: CulpritRequest) -> tuple[Culprit, list[str]]:
    """Runs in the child: the step, and its log lines for the parent to print."""
    lines: list[str] = []
    signal.signal(signal.SIGINT, signal.default_int_handler)  # unlike an idle worker, a step stops at Ctrl-C ("interrupted")
    _on_terminate_release_workers()
    return find_culprit(replace(request, log=lines.append)), lines


def find_culprit(request: CulpritRequest) -> Culprit:
    """Runs the whole step: two calls (iree-compile with the reproducer, iree-opt on its IR) name the
    pass and check it; then the repro's reduction and the lit test. Any problem ends it with
    `concluded=False` and the reason."""
    start = time.monotonic()
    global _step_compiler
    culprit = Culprit()
    # Loaded while the compile that names the pass runs; the repro's reduction judges on them
    # (a crash's does not: each interesting candidate would cost a worker).
    warm = _step_compiler = _warm_compiler(request.jobs, request.oracle.options.limits.memory_cap_mb)
    if request.warm and one_pass_kind(request.reference).warm_ok:
        warm.start()
    else:
        warm.shutdown()  # switched off: every call runs the tool
    try:
        find_tool(IREE_OPT)
        _find(request, culprit, warm)
    except ToolNotFound as err:
        culprit.why = str(err)
    except KeyboardInterrupt:
        kill_all()
        culprit.concluded, culprit.why = False, "interrupted"
    finally:
        warm.shutdown()
    culprit.seconds = time.monotonic() - start
    if not culprit.concluded:
        for path in (pass_repro_path(request.output), lit_test_path(request.output)):
            path.unlink(missing_ok=True)  # never leave files of an earlier run beside this result
    return culprit


def _find(request: CulpritRequest, culprit: Culprit, warm: WarmCompiler) -> None:
    start = time.monotonic()
    located = _reproducer(request, culprit)
    culprit.find_seconds = time.monotonic() - start
    if located is None:
        return
    text, ops = located
    oracle = one_pass_oracle(culprit.pipeline, request.reference, request.oracle.options)
    best = _reduce_pass_repro(request, oracle, Proposal(Candidate(text), ops), culprit, warm)
    culprit.pass_repro_ops, culprit.repro_text = best.ops, best.candidate.text
    repro = pass_repro_path(request.output)
    repro.write_text(best.candidate.text)
    culprit.repro_path = str(repro)
    culprit.command = oracle.reproduce_command(best.candidate, repro.name)
    _write_lit_test(request, culprit, repro)
    culprit.concluded = culprit.lit is not None and culprit.lit.passed
    if culprit.lit is not None and not culprit.lit.passed:
        culprit.why = f"the lit test does not pass: {culprit.lit.detail}"


def _reproducer(request: CulpritRequest, culprit: Culprit) -> tuple[str, int] | None:
    """The IR in front of the failing pass, checked alone: (text, ops), or None with `why` set."""
    oracle, candidate = request.oracle, request.candidate
    with scratch_dir() as tmp:
        work = Path(tmp)
        path, phases = work / "reproducer.mlir", work / "phases"
        flags = [*oracle.compile_flags(candidate.flags), *reproducer_flags(path), f"{PHASES_DUMP}={phases}"]
        (work / "run").mkdir()
        result = compile_candidate(candidate, flags, work / "run", oracle.options.limits, oracle.output_name)
        culprit.compiles += 1
        reproducer = read_reproducer(path)
        if reproducer is None:
            state = "compiles fine" if result.ok else first_error(result.process.stderr)
            culprit.why = f"the compiler wrote no pass reproducer: the failure is not inside a pass ({state})"
            return None
        culprit.pipeline, culprit.pass_name = reproducer.pipeline, reproducer.pass_name
        culprit.phase = first_failing_phase(phases, PHASES)
    ctx = irx.new_context()
    try:
        culprit.source_ops = irx.count_ops(irx.parse(candidate.text, ctx))
        module = irx.parse(reproducer.text, ctx, source_name="the compiler's reproducer")
    except irx.ParseError as err:
        culprit.why = f"the reproducer does not parse: {err}"
        return None
    text, culprit.reproducer_ops = irx.to_text(module), irx.count_ops(module)
    request.log(f"culprit: {culprit.pass_name} (phase {culprit.phase}), {culprit.reproducer_ops} ops in front of it")
    check = one_pass_oracle(culprit.pipeline, request.reference, request.oracle.options).judge(Candidate(text))
    culprit.compiles += 1
    if not check.interesting:
        culprit.why = (
            f"the IR in front of {culprit.pass_name} does not reproduce alone "
            f"(the pass may depend on state the reproducer does not carry): {check.detail}"
        )
        return None
    return text, culprit.reproducer_ops


def _reduce_pass_repro(request: CulpritRequest, oracle: Oracle, start: Proposal, culprit: Culprit,
                       warm: WarmCompiler) -> Proposal:
    """The one-pass repro reduced with the reducer's passes (pipeline fixed, IR shrinking), its
    `iree-opt` calls run by warm workers once one of them gives the tool's verdict on the repro."""
    began = time.monotonic()
    editor = IsolatedEditor(oracle.options.limits, oracle.options.opset_version) if request.isolate_edits else None
    problem = ReductionProblem(start, oracle, jobs=request.jobs, interruption=request.interruption, log=request.log, editor=editor)
    problem.set_deadline(began + request.budget_s)
    try:
        if warm.enabled and not problem.attach_compiler(warm, start):
            warm.shutdown()
        Reducer(problem, pass_repro_passes(start.candidate)).run()  # this child is the isolation (or each edit's worker)
        best = problem.best
        if best is not start and not problem.judge_fresh(best.candidate).interesting:  # as the main result's check
            request.log("culprit: the reduced one-pass repro failed its fresh check; the unreduced one is kept")
            best = start
    finally:
        problem.shutdown()
    culprit.reduction_calls = problem.stats.oracle_calls
    culprit.reduction_seconds = time.monotonic() - began
    request.log(f"culprit: one-pass repro {start.ops} -> {best.ops} ops in {culprit.reduction_calls} iree-opt calls")
    return best


def _write_lit_test(request: CulpritRequest, culprit: Culprit, repro: Path) -> None:
    """The repro with its RUN line and the pass's diagnostics expected where it reports them."""
    limits = request.oracle.options.limits
    crash = request.reference.signature.startswith("crash:")
    expected = [] if crash else expected_diagnostics(repro, culprit.pipeline, limits)[0]
    if not crash and not any(item.kind == "error" for item in expected):
        culprit.why = "the pass reports its error at no line of the repro: nothing to annotate"
        return
    reason = f"crashes in this IREE: {request.reference.signature}" if crash else ""
    path = lit_test_path(request.output)
    culprit.lit_text = lit_test_text(culprit.repro_text, culprit.pipeline, expected, reason)
    path.write_text(culprit.lit_text)
    culprit.lit_path = str(path)
    culprit.lit = run_lit_test(path, limits)


def summary_lines(culprit: Culprit) -> list[str]:
    """The culprit's lines of the terminal summary (the cost always shown)."""
    # The seconds as the record rounds them (`--json` shows those): the same figure in both.
    cost = f"{culprit.compiles} compiles, {round(culprit.seconds, 2):.1f} s"
    if not culprit.concluded:
        found = f" ({culprit.pass_name})" if culprit.pass_name else ""
        return [f"  culprit       did not conclude{found}: {culprit.why} ({cost})"]
    lit = culprit.lit.detail if culprit.lit else ""
    return [
        (f"  culprit       {culprit.pass_name} (phase {culprit.phase}): {cost} "
         f"({round(culprit.find_seconds, 2):.1f} s to find it, {culprit.reduction_calls} iree-opt calls to reduce its repro)"),
        f"  pass repro    {culprit.repro_path}: {culprit.pass_repro_ops} ops (the compiler's reproducer: {culprit.reproducer_ops})",
        f"  pass command  {culprit.command}",
        f"  lit test      {culprit.lit_path} ({lit})",
    ]


def markdown_section(culprit: Culprit | None) -> str:
    if culprit is None:
        return ""
    if not culprit.concluded:
        return f"\n## Failing pass\n\nThe culprit step did not conclude: {culprit.why}\n"
    return f"""
## Failing pass: `{culprit.pass_name}` (phase `{culprit.phase}`)

The IR in front of the pass, reduced from the compiler's {culprit.reproducer_ops}-op reproducer to
{culprit.pass_repro_ops} ops (`{culprit.repro_path}`), shows the same failure with this one pass:

```shell
{culprit.command}
```

Lit test (`{culprit.lit_path}`, {culprit.lit.detail if culprit.lit else "not run"}):

```mlir
{culprit.lit_text.strip()}
```
"""

