"""The 1-minimality check of bench/minimality: apart from the reducer's passes, it finds the op a
result could still lose and says yes where every single edit loses the failure."""

from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from bench.minimality.check import check, judge_for, single_edits
from oracles import Candidate, OracleOptions, make_oracle
from oracles.candidate import CandidateRejected
from tests.models import torch_chain

CPU = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu")


def _judge(candidate: Candidate):
    judge = judge_for(make_oracle("compile-error", OracleOptions()), candidate)
    assert judge is not None, "the program must fail to compile"
    return judge


def test_a_result_with_an_op_it_can_lose_is_not_1_minimal():
    # Relu, then an op no legalization knows: the Relu can go (its reader reads an argument) and
    # the compile fails the same way.
    result = Candidate(torch_chain(2, 1, "onnx.NoSuchOp", channels=4, size=4), CPU)
    found = check(result, _judge(result))
    assert found.minimal is False
    assert found.smaller == "delete op 0 (torch.operator)"
    assert found.found is not None and "onnx.Relu" not in found.found.text and "onnx.NoSuchOp" in found.found.text


def test_a_result_whose_every_single_edit_loses_the_failure_is_1_minimal():
    result = Candidate(torch_chain(1, 0, "onnx.NoSuchOp", channels=4, size=4), CPU)
    found = check(result, _judge(result))
    assert found.minimal is True, found.cell()
    assert found.judged["deletion"] == 1 and found.judged["bypass"] == 1
    assert found.cell().startswith("yes (1 deletions, 1 bypasses, 0 halvings judged")


def _matmul_clip() -> bytes:
    """x[M=4,K=8] @ w[8,6] then Clip: a node to delete, a Clip to bypass, dims to halve."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [8, 6], [0.5] * 48)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Clip", ["y"], ["z"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 6])], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_onnx_single_edits_are_valid_models_and_invalid_ones_are_no_candidates():
    result = Candidate("m", (), ".onnx", _matmul_clip())
    made, rejected = {}, []
    for edit in single_edits(result):
        try:
            made[edit.label] = onnx.load_from_string(edit.make().binary)
        except CandidateRejected:
            rejected.append(edit.label)
    bypassed = made["bypass node 1 (Clip) by its input 0 (y)"]
    assert [n.op_type for n in bypassed.graph.node] == ["MatMul"] and bypassed.graph.output[0].name == "y"
    deleted = made["delete node 0 (MatMul)"]
    assert [i.name for i in deleted.graph.input] == ["x", "y"]  # the Clip reads a new input
    halved = made["halve x axis 0 (4 -> 2)"]  # M alone: the output follows
    assert [d.dim_value for d in halved.graph.output[0].type.tensor_type.shape.dim] == [2, 6]
    assert "halve every dim of size 8 (2 dims)" in made  # K of x and w together
    assert "halve x axis 1 (8 -> 4)" in rejected  # K of x alone: the MatMul no longer types


def test_a_halving_that_pushes_a_pool_window_past_its_input_is_no_candidate():
    # Inception's MaxPool result: 1x1x3x3 under a 3x3 window; 3 -> 1 leaves the window past its
    # input (the reference evaluator refuses to run it), so it does not count against the result.
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1, 1])])
    result = Candidate("m", (), ".onnx", helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)]).SerializeToString())
    halvings = [edit for edit in single_edits(result) if edit.kind == "halving"]
    assert halvings
    for edit in halvings:
        try:
            edit.make()
        except CandidateRejected as err:
            assert "past its padded input" in str(err) or "kernel" in str(err)
        else:
            raise AssertionError(f"{edit.label} made a candidate with a window past its input")


def test_an_op_of_a_named_ops_implicit_body_is_no_candidate():
    # The body of linalg.conv_2d_nchw_fchw is not printed: deleting its mulf gives back the same
    # conv plus an unused argument, which is no smaller (SqueezeNet's sm_60 result read "NO" so).
    text = """func.func @f(%x: tensor<1x4x3x3xf32>, %w: tensor<2x4x3x3xf32>, %o: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x3x3xf32>, tensor<2x4x3x3xf32>) outs(%o : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}"""
    made = []
    for edit in single_edits(Candidate(text, CPU)):
        try:
            made.append((edit.label, edit.make().text))
        except CandidateRejected:
            pass
    assert all("linalg.conv_2d_nchw_fchw" not in candidate for _, candidate in made), made
