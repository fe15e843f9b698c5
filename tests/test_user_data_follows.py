"""The user's data follows the reduction of an MLIR program (`reduce --oracle=miscompile --inputs`).

A miscompile that only the user's values show (matmul inputs demoted to bf16: exact on the
tool's small integers, wrong on thirds) sits behind an unused argument and adds: dropping the
argument must not shift the data onto the wrong arguments, and cutting the adds into new
arguments must give them what the program computed there, without which the case is lost.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracles import Candidate, OracleOptions
from oracles.data.binding import UserArray, UserData, bind
from oracles.data.carried import INPUT, INTERMEDIATE, OUTPUT, unpack
from oracles.inputs.attach import attach
from oracles.mlir import ir as irx
from oracles.numeric.miscompile import Miscompile
from reducer.passes.mlir.drop_unused_arguments import DropUnusedArguments
from reducer.passes.mlir.replace_with_argument import ReplaceWithArgument
from reducer.proposal import Proposal
from reducer.search.cut_values import CutValues
from tests.test_user_data import DEMOTE_BF16, LLVM_CPU

PROGRAM = """
func.func @mm(%unused: tensor<4xf32>, %a: tensor<4x64xf32>, %b: tensor<64x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %twice = arith.addf %a, %a : tensor<4x64xf32>
  %twice_b = arith.addf %b, %b : tensor<64x4xf32>
  %empty = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%twice, %twice_b : tensor<4x64xf32>, tensor<64x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
"""


def _users_data() -> tuple[UserData, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a, b = ((rng.integers(1, 100, size=s) / 3).astype(np.float32) for s in ((4, 64), (64, 4)))
    unused = np.full(4, 7, np.float32)
    return UserData(tuple(UserArray(v, f"{n}.npy") for n, v in (("unused", unused), ("a", a), ("b", b)))), a, b


def _apply(reduction, current: Proposal, op_name: str | None = None) -> Proposal:
    ctx = irx.new_context()
    targets = reduction.count(current, ctx)
    if op_name is None:
        chosen = list(range(targets))
    else:
        with ctx:
            found = reduction.targets(irx.parse(current.candidate.text, ctx))
            chosen = [i for i, (op, _) in enumerate(found) if op.name == op_name]
    proposal = reduction.apply(current, chosen, ctx)
    assert proposal is not None
    return proposal


def test_the_users_data_follows_a_dropped_argument_and_a_cut():
    oracle = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=[*LLVM_CPU, *DEMOTE_BF16]))
    user, a, b = _users_data()
    original = Proposal(attach(Candidate(PROGRAM), user), 6)

    dropped = _apply(DropUnusedArguments(), original)
    data = unpack(dropped.candidate.data)
    assert sorted(data) == [INPUT + "arg0", INPUT + "arg1"] and np.array_equal(data[INPUT + "arg0"], a)
    verdict = oracle.judge(dropped.candidate)
    assert verdict.interesting, verdict.detail  # the thirds still reach the matmul

    cut = _apply(ReplaceWithArgument(), dropped, "arith.addf")
    # New arguments 2 and 3 are the parent's ops 1 and 2 (the adds; the last one is added first).
    assert sorted(cut.cuts) == [(2, 2, 0), (3, 1, 0)]
    filled = CutValues(oracle.values_at, print).fill(cut, dropped)
    data = unpack(filled.candidate.data)
    assert np.array_equal(data[INTERMEDIATE + "arg3"], a + a) and np.array_equal(data[INTERMEDIATE + "arg2"], b + b)
    kept = oracle.judge(filled.candidate)
    assert kept.interesting, kept.detail
    lost = oracle.judge(cut.candidate)  # the same cut with the tool's own values for the new arguments
    assert not lost.interesting and "agree" in lost.detail, lost.detail


def _write_case(tmp_path, expected: np.ndarray | None = None) -> list[str]:
    user, a, b = _users_data()
    (tmp_path / "mm.mlir").write_text(PROGRAM)
    for name, array in zip(("unused", "a", "b"), user.inputs):
        np.save(tmp_path / f"{name}.npy", array.value)
    right = ((a.astype(np.float64) * 2) @ (b.astype(np.float64) * 2)).astype(np.float32)
    np.save(tmp_path / "out.npy", right if expected is None else expected)
    return [str(tmp_path / "mm.mlir"), "--oracle=miscompile", "-q", "--no-cache", "-o", str(tmp_path / "r.mlir"),
            *(f"--inputs={tmp_path / n}.npy" for n in ("unused", "a", "b")), f"--expected-outputs={tmp_path / 'out.npy'}",
            "--passes=drop-unused-arguments", "--", *LLVM_CPU, *DEMOTE_BF16]


def test_expected_outputs_without_a_second_pipeline_judge_against_the_reference_pipeline(tmp_path, capsys):
    """No --pipeline-b: B is the least-optimising CPU pipeline, which gets the user's expected
    outputs right; the demoting compile does not, and the reduction keeps that (the unused
    argument goes, the data follows)."""
    from reducer.cli import main

    assert main(_write_case(tmp_path)) == 0, capsys.readouterr().err
    reduced = (tmp_path / "r.mlir").read_text()
    assert "%unused" not in reduced and "tensor<4xf32>" not in reduced.split("->")[0]
    summary = capsys.readouterr().out
    assert "--iree-opt-level=O0" in summary and "r.mlir.data/arg0.npy" in summary


def test_expected_outputs_the_reference_pipeline_gets_wrong_too_are_refused(tmp_path, capsys):
    from reducer.cli import main

    assert main(_write_case(tmp_path, np.zeros((4, 4), np.float32))) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "every pipeline shares the wrong answer" in err


def test_a_corpus_entry_carries_the_data_its_wrong_answer_needs(tmp_path):
    """`reduce --save-to-corpus` writes the candidate's data beside the repro; the entry's check
    runs on it: the data comes back exactly as the candidate carried it."""
    from oracles import Verdict
    from reducer.corpus_entries import load_data, load_entries, save_entry

    user, _, _ = _users_data()
    candidate = attach(Candidate(PROGRAM), user)
    save_entry(tmp_path, "bf16-thirds", candidate, "miscompile", OracleOptions(pipeline_b=DEMOTE_BF16),
               Verdict(True, "miscompile: mm output 0 differs"), "thirds", "test")
    (entry,) = load_entries(tmp_path)
    assert entry.data_file == "data.npz"
    assert load_data(entry.directory / entry.data_file) == candidate.data


def test_a_fuzz_mismatch_finding_keeps_the_inputs_that_showed_it(tmp_path):
    """The finding's directory holds the case's own inputs as ONNX test data, bound to the model."""
    from fuzz.build import build_model, make_inputs
    from fuzz.execute import MISMATCH, Finding
    from fuzz.generation.draw import spec_for_seed
    from fuzz.triage import TEST_DATA_NAME, _write_case_inputs
    from oracles.onnx import reference

    spec = spec_for_seed(7)
    data = _write_case_inputs(tmp_path, spec, 7, Finding(MISMATCH, "cpu", "sig", ""))
    bound = bind(data.inputs, reference.graph_inputs(build_model(spec)))
    for name, value in make_inputs(spec, 7).items():
        assert np.array_equal(bound[name], value)
    assert (tmp_path / TEST_DATA_NAME / "input_0.pb").is_file() and not (tmp_path / "model.onnx.data").exists()


def _onnx_matmul_after_adds() -> bytes:
    """The demoted-matmul case as an ONNX model (4x64 by 64x4 after two Adds), as a fuzz finding is."""
    from onnx import TensorProto, helper

    f32 = TensorProto.FLOAT
    nodes = [helper.make_node("Add", ["a", "a"], ["a2"]), helper.make_node("Add", ["b", "b"], ["b2"]),
             helper.make_node("MatMul", ["a2", "b2"], ["y"])]
    graph = helper.make_graph(nodes, "mm", [helper.make_tensor_value_info("a", f32, [4, 64]), helper.make_tensor_value_info("b", f32, [64, 4])],
                              [helper.make_tensor_value_info("y", f32, [4, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.nightly  # 30 s; the user's data followed by default: test_expected_outputs_without_a_second_pipeline_judge_against_the_reference_pipeline
def test_an_onnx_miscompile_runs_on_the_users_data_and_writes_it(tmp_path, capsys):
    """`miscompile --inputs` on an ONNX model: the imported program runs on the user's thirds
    (bound by graph-input order; the seeded values show nothing), the reduction keeps the wrong
    answer, and the printed commands read the written data."""
    from reducer.cli import main

    (tmp_path / "mm.onnx").write_bytes(_onnx_matmul_after_adds())
    _, a, b = _users_data()
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    argv = [str(tmp_path / "mm.onnx"), "--oracle=miscompile", "-q", "--no-cache", "-o", str(tmp_path / "r.onnx"),
            f"--pipeline-a={' '.join(LLVM_CPU)}", f"--pipeline-b={' '.join([*LLVM_CPU, *DEMOTE_BF16])}"]
    assert main(argv) == 2
    assert "agree" in capsys.readouterr().err
    assert main([*argv, f"--inputs={tmp_path / 'a.npy'}", f"--inputs={tmp_path / 'b.npy'}"]) == 0, capsys.readouterr().err
    summary = capsys.readouterr().out
    assert "--input=@" in summary and "r.mlir.data/arg0.npy" in summary
    assert np.load(tmp_path / "r.mlir.data" / "arg0.npy").dtype == np.float32


def test_expected_outputs_judge_the_original_only_once_a_pass_changed_what_feeds_them():
    """The user's expected outputs are the original's: once a pass forwards `%a` in place of
    `%a + %a`, they are stale (the reference pipeline gives a quarter of them too), so the
    calibrated oracle judges the candidate against the reference pipeline alone."""
    from oracles.data import reference_pipeline
    from reducer.passes.mlir.replace_with_operand import ReplaceWithOperand

    user, a, b = _users_data()
    right = ((a.astype(np.float64) * 2) @ (b.astype(np.float64) * 2)).astype(np.float32)
    original = Proposal(attach(Candidate(PROGRAM), UserData(user.inputs, (UserArray(right, "out.npy"),))), 6)
    oracle = Miscompile(OracleOptions(pipeline_a=[*LLVM_CPU, *DEMOTE_BF16], pipeline_b=list(reference_pipeline.FLAGS)))
    calibration = oracle.judge(original.candidate)
    assert calibration.interesting, calibration.detail
    forwarded = ReplaceWithOperand().apply(original, [0, 1], irx.new_context())  # the two top-level adds
    assert forwarded is not None
    assert "arith.addf" not in forwarded.candidate.text and OUTPUT + "result0" in unpack(forwarded.candidate.data)
    stale = oracle.judge(forwarded.candidate)  # uncalibrated: the stale expected outputs rule it out
    assert not stale.interesting and "every pipeline shares" in stale.detail, stale.detail
    judged = oracle.calibrated(calibration).judge(forwarded.candidate)
    assert judged.interesting, judged.detail


# The matmul reads the user's `%b` directly and `%a + %a`, which a localisation cut makes an argument.
BEHIND_AN_ADD = """
func.func @mm(%unused: tensor<4xf32>, %a: tensor<4x64xf32>, %b: tensor<64x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %twice = arith.addf %a, %a : tensor<4x64xf32>
  %empty = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%twice, %b : tensor<4x64xf32>, tensor<64x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
"""


def test_a_localisation_cut_re_keys_the_users_data():
    """Cut down to the matmul, `%b` is argument 0 now and keeps the user's b (not `%unused`'s
    array), `%a + %a` is a cut argument whose source is reported, and the expected output of the
    same result stays."""
    from oracles.mlir.locations import FailureSite, location_leaves
    from reducer.localize.failure_site import cut_down

    user, _, b = _users_data()
    expected = UserArray(np.ones((4, 4), np.float32), "out.npy")
    original = Proposal(attach(Candidate(BEHIND_AN_ADD), UserData(user.inputs, (expected,))), 6)
    ctx = irx.new_context()
    with ctx:
        module = irx.parse(BEHIND_AN_ADD, ctx)
        matmul = next(op for op in irx.body_ops(module) if op.name == "linalg.matmul")
        site = FailureSite(location_leaves(str(matmul.location)))
    first = next(cut_down(original, site, ".mlir", ctx))
    data = unpack(first.candidate.data)
    assert sorted(data) == [INPUT + "arg0", OUTPUT + "result0"] and np.array_equal(data[INPUT + "arg0"], b)
    assert first.cuts == ((1, 1, 0),)  # argument 1 is the parent's op 1 (the add)
