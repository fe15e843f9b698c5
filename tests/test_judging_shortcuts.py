"""Judging shortcuts: flags a search's compiles add to skip work the failure does not need, and the
final check that keeps a result judged with them honest."""

from __future__ import annotations

from pathlib import Path

from oracles import Candidate, OracleOptions, make_oracle
from oracles.mlir import ir as irx
from oracles.toolchain.flags import judging_shortcuts
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem

EXAMPLE = Path(__file__).parents[1] / "examples" / "qdq_conv_lds_overrun.mlir"
CONST_EVAL_OFF = "--iree-opt-const-eval=false"


def proposal(text: str) -> Proposal:
    return Proposal(Candidate(text, ()), irx.count_ops(irx.parse(text, irx.new_context())))


def input_made_constant(text: str) -> str:
    """The example with its conv's input a constant: the whole program is a constant expression."""
    signature = "func.func @main(%arg0: !torch.vtensor<[2,32,8,127],f32>)"
    constant = ('%arg0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1.5> : tensor<2x32x8x127xf32>}'
                " : () -> !torch.vtensor<[2,32,8,127],f32>")
    assert signature in text
    return text.replace(signature, "func.func @main()").replace("%none = torch.constant.none", f"%none = torch.constant.none\n    {constant}")


def test_constant_evaluation_is_skipped_only_for_failures_past_it_that_the_user_left_it_on_for():
    assert judging_shortcuts([], "executable-targets") == (CONST_EVAL_OFF,)
    assert judging_shortcuts([], "global-optimization") == ()  # the phase it runs in: it may be the failure
    assert judging_shortcuts(["--iree-opt-const-eval=true"], "executable-targets") == ()
    assert judging_shortcuts(["--iree-opt-const-eval"], "hal") == ()


def test_a_result_that_fails_only_without_constant_evaluation_is_never_the_result(iree_compile):
    text = EXAMPLE.read_text()
    original = proposal(text)
    problem = ReductionProblem(original, make_oracle("lds-limit", OracleOptions()), jobs=1)
    try:
        assert problem.calibrate().interesting
        assert problem.stop_early("executable-targets")  # the original overruns LDS with the shortcut too
        assert problem.oracle.shortcuts == (CONST_EVAL_OFF,)
        folded = proposal(input_made_constant(text))
        # Unfolded, the conv on constants is an initializer's dispatch, and it overruns as the original's does.
        assert problem.judge(folded.candidate).interesting
        problem.incorporate(folded)
        problem.full_compiles()
        assert not problem.judge_fresh(folded.candidate).interesting  # the user's compile folds it away

        back = problem.retreat("executable-targets")

        assert back is not None and back.candidate.key == original.candidate.key
        assert problem.best is back and problem.oracle.shortcuts == ()
        assert not problem.judge(folded.candidate).interesting  # judged as the user's compile from now on
        assert problem.retreat("executable-targets") is None  # nothing judged with a shortcut is left
    finally:
        problem.shutdown()
