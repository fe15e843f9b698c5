"""With --candidate-timeout, a candidate whose compile runs past it is stopped there and counts as
not interesting: a reduction need not wait minutes on a shape that sends the compiler into a long
search (an 18-op matmul-like block took 875 s, most of it in compiles of 35 to 120 s each).
Real compiler throughout."""

from __future__ import annotations

from oracles import Candidate, make_oracle
from reducer.proposal import Proposal
from reducer.search.problem import SLOW_FLOOR_S, ReductionProblem, candidate_compile_limit
from reducer.storage.verdict_store import oracle_fingerprint
from tests.models import torch_chain

CPU = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu")


def _problem(candidate_timeout: float | None) -> tuple[ReductionProblem, Candidate]:
    text = torch_chain(4, bad_at=2, bad_op="onnx.NoSuchOp")
    original = Proposal(Candidate(text, CPU), 4)
    problem = ReductionProblem(original, make_oracle("compile-error"), candidate_timeout=candidate_timeout)
    assert problem.calibrate().interesting  # the original is judged under --timeout alone
    return problem, Candidate(text + "\n// another candidate, the same failure\n", CPU)


def test_a_compile_past_the_candidates_time_limit_counts_as_not_interesting():
    problem, candidate = _problem(candidate_timeout=0.01)
    verdict = problem.judge(candidate)
    assert not verdict.interesting and verdict.limit == "timeout"
    assert problem.stats.timed_out == 1  # the summary's "compiles stopped at the time limit"


def test_auto_is_ten_times_the_originals_compile_and_by_default_there_is_none():
    problem, candidate = _problem(candidate_timeout=None)  # --candidate-timeout auto
    assert problem.oracle.compile_limit_s == max(SLOW_FLOOR_S, 10 * problem.calibration.seconds)
    assert problem.judge(candidate).interesting
    lifted, _ = _problem(candidate_timeout=0)  # the default: --timeout alone
    assert lifted.oracle.compile_limit_s is None


def test_the_limit_keeps_the_verdict_stores_key():
    """It is measured from the original, so it differs run to run; the verdicts it decides are never stored."""
    oracle = make_oracle("compile-error")
    assert oracle_fingerprint(oracle.with_compile_limit(candidate_compile_limit(1.7, None))) == oracle_fingerprint(oracle)


def test_an_imported_models_compiles_stop_at_the_limit_too():
    """ONNX and `.pt2` candidates compile through the oracle they wrap: it carries the limit."""
    from oracles.onnx.importer import ImportedOnnx

    onnx_oracle = ImportedOnnx(make_oracle("lds-limit")).with_compile_limit(12.0)
    assert onnx_oracle.inner._compile_limits().timeout_s == 12.0


def test_a_value_that_is_neither_seconds_nor_auto_is_named_in_the_error(capsys):
    import pytest

    from reducer.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["bug.mlir", "--oracle=lds-limit", "--candidate-timeout", "soon"])
    assert exited.value.code != 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        "reduce: error: argument --candidate-timeout: give seconds or auto, not 'soon'"
