"""The warm compiler judges exactly as `iree-compile` does, and a dead worker costs only a re-run."""

from __future__ import annotations

import os
import signal
import threading
import time

from oracles import Candidate, make_oracle
from oracles.toolchain.tools import Limits
from oracles.toolchain.warm import WarmCompiler, compile_in_process
from tests.models import global_cache_update, torch_chain

CPU = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu")


def test_warm_verdicts_equal_the_tools(iree_compile):
    failing = Candidate(torch_chain(6, 3, "onnx.NoSuchOp"), CPU)
    copying = Candidate(global_cache_update(2), CPU)
    warm = WarmCompiler(1, 8192)
    try:
        for name, candidate in (("compile-error", failing), ("transient-copy", copying)):
            oracle = make_oracle(name)
            isolated = oracle.judge(candidate)
            warmed = oracle.with_compiler(warm).judge(candidate)
            assert warmed.interesting and isolated.interesting
            assert (warmed.signature, warmed.detail, warmed.metrics) == (isolated.signature, isolated.detail, isolated.metrics)
            assert warmed.excerpt == isolated.excerpt
    finally:
        warm.shutdown()
    assert warm.crashes == 0


def test_a_dead_worker_is_rerun_isolated_and_replaced(iree_compile):
    warm = WarmCompiler(1, 8192)
    oracle = make_oracle("compile-error").with_compiler(warm)
    slow = Candidate(torch_chain(160, 150, "onnx.Relu"), CPU)  # compiles, in seconds of work for the worker
    found = {}
    try:
        oracle.judge(Candidate(torch_chain(4, 2, "onnx.NoSuchOp"), CPU))  # the worker is up and warm
        judging = threading.Thread(target=lambda: found.setdefault("verdict", oracle.judge(slow)))
        judging.start()
        time.sleep(0.3)
        for pid in warm.worker_pids():  # what a compiler abort would do
            os.kill(pid, signal.SIGKILL)
        judging.join()
        assert warm.crashes == 1
        assert found["verdict"].detail == "compiles fine"  # what the isolated re-run saw
        again = oracle.judge(Candidate(torch_chain(5, 2, "onnx.NoSuchOp"), CPU))
        assert again.interesting and warm.crashes == 1  # a fresh pool took over
    finally:
        warm.shutdown()


def test_flags_only_the_command_line_takes_go_to_the_tool(tmp_path, iree_compile):
    source = tmp_path / "input.mlir"
    source.write_text(torch_chain(3, 1, "onnx.Relu"))
    assert compile_in_process(source, [*CPU, "--mlir-print-debuginfo"], tmp_path / "out.vmfb") is None
    assert compile_in_process(source, [*CPU, "--compile-to=input"], tmp_path / "out.mlir") is True
    assert "linalg" in (tmp_path / "out.mlir").read_text() or "func.func" in (tmp_path / "out.mlir").read_text()


def test_a_hung_compile_is_a_timeout(iree_compile, tmp_path):
    warm = WarmCompiler(1, 8192)
    source = tmp_path / "input.mlir"
    source.write_text(torch_chain(160, 150, "onnx.Relu"))
    try:
        result = warm.compile(list(CPU), source, tmp_path / "out.vmfb", Limits(timeout_s=0.05))
        assert result is not None and result.timed_out
    finally:
        warm.shutdown()


def test_the_searchs_first_candidates_are_judged_while_the_warm_compiler_is_checked(iree_compile):
    """The agreement check is one warm compile on one worker: the tool judges the first candidates
    of the search on the others meanwhile, so the search finds their verdicts in."""
    from reducer.proposal import Proposal
    from reducer.search.problem import ReductionProblem

    original = Proposal(Candidate(torch_chain(6, 3, "onnx.NoSuchOp"), CPU), 6)
    first = Proposal(Candidate(torch_chain(4, 2, "onnx.NoSuchOp"), CPU), 4)
    problem = ReductionProblem(original, make_oracle("compile-error"), jobs=2)
    warm = WarmCompiler(1, 8192)
    try:
        assert problem.attach_compiler(warm, original, iter([first]))
        calls = problem.stats.oracle_calls  # the tool's verdict on the original, the check, the first candidate
        assert problem.judge(first.candidate).interesting
        assert problem.stats.oracle_calls == calls == 3
    finally:
        warm.shutdown()


def test_the_warm_compilers_check_runs_beside_a_localisation_and_costs_the_passes_no_compile(iree_compile):
    """At -j 2 a localisation judging one candidate at a time leaves a worker idle: the warm
    compiler's agreement check runs there, on that candidate, and attaching it takes no compile
    from the passes; once compiles are configured otherwise, the check is made again."""
    from reducer.proposal import Proposal
    from reducer.search.problem import ReductionProblem

    original = Proposal(Candidate(torch_chain(6, 3, "onnx.NoSuchOp"), CPU), 6)
    first = Proposal(Candidate(torch_chain(4, 2, "onnx.NoSuchOp"), CPU), 4)
    warm = WarmCompiler(2, 8192)
    try:
        for reconfigured in (False, True):
            problem = ReductionProblem(original, make_oracle("compile-error"), jobs=2)
            assert problem.calibrate().interesting
            problem.offer_compiler(warm)
            assert problem.first_interesting(iter([first]), ahead=1) is first
            calls = problem.stats.oracle_calls  # the original, the candidate, the check beside it
            if reconfigured:
                assert problem.stop_early("input", checked=False)
            assert problem.attach_compiler(warm, original)
            assert (calls, problem.stats.oracle_calls) == (3, calls + reconfigured)
            problem.shutdown()
    finally:
        warm.shutdown()


def test_ctrl_c_leaves_an_idle_worker_silent_and_running(capfd):
    """Ctrl-C reaches every process of the terminal's group. An idle worker printed a
    KeyboardInterrupt traceback under the run's partial result; it is its owner's to stop."""
    warm = WarmCompiler(1, 8192)
    try:
        warm.start()
        deadline = time.monotonic() + 60
        while not warm.worker_pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # loaded and idle in its queue
        pid = warm.worker_pids()[0]
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        assert warm.worker_pids() == [pid]
        os.kill(pid, 0)  # still there
    finally:
        warm.shutdown()
    assert "Traceback" not in capfd.readouterr().err
