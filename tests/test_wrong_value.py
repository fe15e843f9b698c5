"""Wrong-answer localisation through traced dispatches, on the real compiler and runtime."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from oracles.base import OracleOptions
from oracles.candidate import Candidate
from oracles.numeric.dispatch_trace import parse_buffer_view, parse_trace
from oracles.numeric.miscompile import Miscompile
from reducer.localize.wrong_value import trace_culprit

LLVM_CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic"]
DEMOTE_BF16 = ["--iree-global-opt-demote-contraction-inputs-type=bf16", "--iree-global-opt-demote-contraction-inputs-operations=matmul"]

# The matmul (line 8) is wrong under DEMOTE_BF16; a Relu (maximumf with 0) follows it and hides
# the negative half of the error. `%side` is a side branch that ends in its own result.
MID_GRAPH = """
func.func @main(%a: tensor<4x64xf32>, %b: tensor<64x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %three = arith.constant dense<3.0> : tensor<4x64xf32>
  %a3 = arith.divf %a, %three : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a3, %b : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = arith.maximumf %mm, %init : tensor<4x8xf32>
  %s = arith.addf %r, %c : tensor<4x8xf32>
  %e = math.tanh %s : tensor<4x8xf32>
  %side = math.exp %c : tensor<4x8xf32>
  return %e, %side : tensor<4x8xf32>, tensor<4x8xf32>
}
"""


# The same matmul on a side branch: the main path (a Clip of the scaled input, then tanh) is right,
# the side branch's matmul (line 9) feeds a Relu and ends in the second result.
SIDE_BRANCH = """
func.func @main(%a: tensor<4x64xf32>, %b: tensor<64x8xf32>) -> (tensor<4x64xf32>, tensor<4x8xf32>) {
  %three = arith.constant dense<3.0> : tensor<4x64xf32>
  %a3 = arith.divf %a, %three : tensor<4x64xf32>
  %main = math.tanh %a3 : tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a3, %b : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = arith.maximumf %mm, %init : tensor<4x8xf32>
  return %main, %r : tensor<4x64xf32>, tensor<4x8xf32>
}
"""


def test_a_traced_tensor_reads_back_with_its_shape_and_type():
    assert parse_buffer_view("2x3xf32=[1 -2 3][4 5 6.5]").tolist() == [[1, -2, 3], [4, 5, 6.5]]
    assert parse_buffer_view("f32=1.5").shape == ()
    assert parse_buffer_view("3xi8=1 -2 3").dtype == np.int8
    traced = parse_trace("EXEC @main=== e::d inputs ===\n2xf32=1 2\n\n=== e::d outputs ===\n2xf32=3 4\n")
    assert [(d.name, d.inputs[0].tolist(), d.outputs[0].tolist()) for d in traced] == [("e::d", [1, 2], [3, 4])]


def test_the_culprit_is_the_matmul_dispatch_though_a_relu_follows_it():
    oracle = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=[*LLVM_CPU, *DEMOTE_BF16]))
    culprit = trace_culprit(oracle, Candidate(MID_GRAPH))
    assert not isinstance(culprit, str), culprit
    assert "matmul" in culprit.name
    assert culprit.fused and culprit.fused[0].line == 8  # the matmul's own line
    assert not culprit.comparison.matches and culprit.comparison.examples


def test_the_culprit_on_a_side_branch_is_named():
    oracle = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=[*LLVM_CPU, *DEMOTE_BF16]))
    culprit = trace_culprit(oracle, Candidate(SIDE_BRANCH))
    assert not isinstance(culprit, str), culprit
    assert "matmul" in culprit.name and culprit.fused[0].line == 9


@pytest.mark.nightly  # 40 s; the wrong op named by default: test_an_onnx_models_wrong_node_is_named_against_onnx_reference
def test_reduce_starts_from_the_wrong_op_and_reports_it(tmp_path):
    src = tmp_path / "model.mlir"
    src.write_text(MID_GRAPH)
    argv = [
        sys.executable, "-m", "reducer", str(src), "--oracle=miscompile", "-j", "2", "--json", "--report", str(tmp_path / "bug.md"),
        "--pipeline-a", " ".join(LLVM_CPU), "--pipeline-b", " ".join([*LLVM_CPU, *DEMOTE_BF16]),
    ]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "wrong value first computed by dispatch" in result.stderr
    assert "model.mlir:8:" in result.stderr  # the line in the user's file
    assert "localisation: ops" in result.stderr
    assert "linalg.matmul" in (tmp_path / "model.reduced.mlir").read_text()
    # The report and the JSON show the localisation: the dispatch, the op's line in the user's
    # file, the differing elements, a few index / expected / got rows.
    report = (tmp_path / "bug.md").read_text()
    assert "## Where the wrong value is computed" in report and "model.mlir:8:" in report and "expected" in report
    found = json.loads(result.stdout)["wrong_value"]
    assert "matmul" in found["dispatch"] and found["source_ops"][0].startswith("model.mlir:8:")
    assert 0 < found["differing_elements"] <= found["elements"] == 32 and found["max_abs"] > 0
    assert found["examples"] and {"output", "index", "expected", "got"} <= set(found["examples"][0])
    # The dispatch-level test: the matmul alone, its captured inputs and expected outputs; the
    # printed commands, run as they are, fail on the demoting pipeline.
    test = tmp_path / "model.reduced.mlir.wrong-dispatch"
    assert found["test"]["reproduces"] and found["test"]["directory"] == str(test)
    assert "linalg.matmul" in (test / "test.mlir").read_text() and (test / "input_0.npy").is_file()
    compile_line, run_line = found["test"]["commands"]
    assert subprocess.run(compile_line, shell=True, cwd=test, check=False).returncode == 0
    ran = subprocess.run(run_line, shell=True, cwd=test, capture_output=True, text=True, check=False)
    assert ran.returncode != 0 and "[FAILED] result[0]" in ran.stdout + ran.stderr


def _qlinearmatmul_model(side_branch: bool) -> bytes:
    """x (1x4x8) * 2 -> QuantizeLinear -> batched QLinearMatMul (non-zero zero points, which IREE
    3.13 ignores) -> DequantizeLinear -> Relu; mid-graph the Relu feeds a Mul and the only output,
    on a side branch it is a second output beside a right Tanh."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(2)
    consts = [numpy_helper.from_array(np.asarray(v, dtype=t), n) for n, v, t in (
        ("two", 2.0, np.float32), ("s", 0.25, np.float32), ("z", 3, np.uint8), ("w", rng.integers(0, 256, size=(1, 8, 8)), np.uint8),
        ("ws", 0.004, np.float32), ("wz", 131, np.uint8), ("ys", 0.5, np.float32), ("yz", 127, np.uint8), ("half", 0.5, np.float32))]
    nodes = [
        helper.make_node("Mul", ["x", "two"], ["x2"]),
        helper.make_node("QuantizeLinear", ["x2", "s", "z"], ["q"]),
        helper.make_node("QLinearMatMul", ["q", "s", "z", "w", "ws", "wz", "ys", "yz"], ["qy"]),
        helper.make_node("DequantizeLinear", ["qy", "ys", "yz"], ["dy"]),
        helper.make_node("Relu", ["dy"], ["r"]),
    ]
    f32 = TensorProto.FLOAT
    if side_branch:
        nodes.append(helper.make_node("Tanh", ["x2"], ["main"]))
        outputs = [helper.make_tensor_value_info("main", f32, [1, 4, 8]), helper.make_tensor_value_info("r", f32, [1, 4, 8])]
    else:
        nodes.append(helper.make_node("Mul", ["r", "half"], ["y"]))
        outputs = [helper.make_tensor_value_info("y", f32, [1, 4, 8])]
    graph = helper.make_graph(nodes, "qmm", [helper.make_tensor_value_info("x", f32, [1, 4, 8])], outputs, consts)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]).SerializeToString()


@pytest.mark.parametrize("side_branch", [False, True], ids=["mid-graph", "side-branch"])
def test_an_onnx_models_wrong_node_is_named_against_onnx_reference(side_branch):
    """One traced IREE run and one onnx.reference run name the QLinearMatMul, whether a Relu and
    a Mul follow it or it sits on a side branch; its nodes cut out keep the wrong answer."""
    import onnx

    from oracles.numeric.reference_mismatch import ReferenceMismatch
    from reducer.localize.wrong_node import cut_to_nodes, trace_wrong_node

    binary = _qlinearmatmul_model(side_branch)
    oracle = ReferenceMismatch(OracleOptions())
    original = Candidate("qmm", (), ".onnx", binary)
    assert oracle.judge(original).interesting
    found = trace_wrong_node(oracle, original)
    assert not isinstance(found, str), found
    model = onnx.load_from_string(binary)
    assert model.graph.node[found.root].op_type == "QLinearMatMul"
    cut = cut_to_nodes(original, found)
    assert cut is not None and cut.ops < len(model.graph.node)
    assert oracle.judge(cut.candidate).interesting


def test_a_dispatch_level_test_of_an_integer_result_compares_values_not_signedness(tmp_path):
    """The program returns signless i8; expected outputs written as .npy would read as si8 and the
    test would fail on the type alone. Right values pass, a wrong one fails on that element."""
    from oracles.numeric.dispatch_test import write_dispatch_test
    from oracles.toolchain.tools import Limits

    program = Candidate("""
func.func @add(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %s = arith.addi %a, %b : tensor<4xi8>
  return %s : tensor<4xi8>
}
""")
    a, b = np.array([1, -2, 3, 100], np.int8), np.array([1, 1, 1, 1], np.int8)
    right = write_dispatch_test(program, [a, b], LLVM_CPU, tmp_path / "right", Limits(), expected=[a + b])
    assert not right.reproduces and right.detail == "all outputs match the expected values", right.detail
    wrong = write_dispatch_test(program, [a, b], LLVM_CPU, tmp_path / "wrong", Limits(), expected=[np.array([2, -1, 4, 0], np.int8)])
    assert wrong.reproduces and "element at index 3 (101) does not match the expected (0)" in wrong.detail, wrong.detail


def test_which_dispatch_outputs_are_judged_against_which_nodes():
    """No compiler here: traced dispatches as IREE 3.13 ran Inception v1's. A Relu's dispatch also
    writes the squares an LRN sums in the next one (no node's value: not judged); one executable
    runs for two identical MaxPools with the first one's locations (the second run is the twin's
    value); a Neg's dispatch carries the Relu's location through a CSE'd constant (not its node)."""
    from onnx import TensorProto, helper

    from oracles.mlir.locations import SourceLoc
    from oracles.numeric.dispatch_trace import TracedDispatch
    from reducer.localize.wrong_node import first_wrong_node

    f32 = TensorProto.FLOAT
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("MaxPool", ["a"], ["b"], kernel_shape=[1]),
             helper.make_node("MaxPool", ["b"], ["c"], kernel_shape=[1]), helper.make_node("Neg", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", f32, [1, 2, 3])], [helper.make_tensor_value_info("y", f32, [1, 2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.arange(-3, 3, dtype=np.float32).reshape(1, 2, 3)
    values = {"x": x, "a": np.maximum(x, 0), "b": np.maximum(x, 0) + 1, "c": np.maximum(x, 0) + 2, "y": -np.maximum(x, 0) - 2}
    lines = {10: 0, 11: 1, 12: 2, 13: 3}

    def run(name: str, outputs: list, *at: int) -> TracedDispatch:
        return TracedDispatch(name, [], [np.asarray(o, np.float32) for o in outputs], fused=[SourceLoc("m.mlir", line, 5) for line in at])

    wrong_y = values["y"].copy()
    wrong_y[0, 1, 2] = 7
    traced = [run("e0::relu", [values["a"], values["a"] ** 2], 10), run("e1::pool", [values["b"]], 11),
              run("e1::pool", [values["c"]], 11), run("e2::neg", [wrong_y], 13, 10)]
    found = first_wrong_node(traced, model, lines, values)
    assert not isinstance(found, str), found
    assert (found.dispatch.position, found.nodes, found.matched, found.root) == (3, [3], "y", 3)
    right = first_wrong_node(traced[:3] + [run("e2::neg", [values["y"]], 13, 10)], model, lines, values)
    assert right == "all 4 observed dispatch outputs agree with onnx.reference"
