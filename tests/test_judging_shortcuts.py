"""Judging shortcuts: flags a search's compiles add to skip work the failure does not need, and the
final check that keeps a result judged with them honest."""

from __future__ import annotations

from pathlib import Path

from oracles import Candidate
from oracles.mlir import ir as irx
from oracles.toolchain.flags import judging_shortcuts
from reducer.cli import main
from reducer.proposal import Proposal
from reducer.search.engine import Reducer

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


def test_a_result_that_fails_only_without_constant_evaluation_is_never_the_result(tmp_path, iree_compile, monkeypatch, capsys):
    original = tmp_path / "bug.mlir"
    original.write_text(EXAMPLE.read_text())
    folded = proposal(input_made_constant(EXAMPLE.read_text()))
    searches: list[Reducer] = []
    search = Reducer.run

    def first_ends_on_the_folded_program(self: Reducer):
        searches.append(self)
        if len(searches) > 1:
            return search(self)
        assert self.problem.judge(folded.candidate).interesting  # by the shortcut's verdict: a fault the search could make
        self.problem.incorporate(folded, by="injected")

    monkeypatch.setattr(Reducer, "run", first_ends_on_the_folded_program)
    code = main([str(original), "--oracle=lds-limit", "--no-cache", "--passes=drop-unused-arguments"])
    err = capsys.readouterr().err

    assert code == 0 and len(searches) == 2, err
    assert "the result fails only with --iree-opt-const-eval=false" in err
    result = (tmp_path / "bug.reduced.mlir").read_text()
    assert "func.func @main(%arg0" in result and "dense<1.5>" not in result  # the conv's input is the input again
