"""`reduce model.onnx --oracle=reference-mismatch`: wrong answers against onnx.reference, reduced.

Real `iree-import-onnx`, `iree-compile` and `iree-run-module`; the models are built here with
onnx.helper (the corpus entries of these two bugs were reduced from them). The wrong answers are
IREE 3.13's on llvm-cpu: QLinearMatMul with 3-D (batched) operands ignores the input zero points
(the 2-D form is right), and QuantizeLinear to float8e4m3fn gives NaN where the spec saturates
to +-448.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from fuzz.execute import MISMATCH, InProcess, run_case
from fuzz.pipelines import PIPELINES
from fuzz.spec import Const, GraphSpec, Node, Tensor
from oracles import Candidate, OracleOptions
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.toolchain.tools import Limits, find_tool
from reducer.cli import main
from tests.test_reduce_onnx import run_cli

BATCHED = (2, 3, 4)  # a: 2x3x4 @ b: 2x4x5
# The node passes: zeroing initializers and shrinking shapes (tested elsewhere) add half a minute here.
GRAPH_PASSES = "onnx-cut-outputs,onnx-cut-inputs,onnx-remove-nodes"


def _const(name: str, value, dtype) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def quantized_matmul_block(a_shape: tuple[int, ...] = BATCHED) -> onnx.ModelProto:
    """8 nodes: relu, quantize (uint8), QLinearMatMul, dequantize, add, relu, mul, neg.

    Float inputs are small integers and every scale a power of two, so the reference is exact.
    """
    batch, k = a_shape[:-2], a_shape[-1]
    b = np.random.default_rng(0).integers(0, 16, size=(*batch, k, 5)).astype(np.uint8)
    out = (*a_shape[:-1], 5)
    initializers = [
        _const("xs", 0.5, np.float32), _const("xz", 8, np.uint8), _const("b", b, np.uint8),
        _const("bs", 0.25, np.float32), _const("bz", 4, np.uint8), _const("ys", 0.5, np.float32),
        _const("yz", 10, np.uint8), _const("bias", np.arange(5), np.float32), _const("two", 2.0, np.float32),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "xs", "xz"], ["q"]),
        helper.make_node("QLinearMatMul", ["q", "xs", "xz", "b", "bs", "bz", "ys", "yz"], ["qy"]),
        helper.make_node("DequantizeLinear", ["qy", "ys", "yz"], ["dy"]),
        helper.make_node("Add", ["dy", "bias"], ["biased"]),
        helper.make_node("Relu", ["biased"], ["act"]),
        helper.make_node("Mul", ["act", "two"], ["scaled"]),
        helper.make_node("Neg", ["scaled"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "main",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(a_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(out))],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


def float8_quantize_block() -> onnx.ModelProto:
    """5 nodes: add, QuantizeLinear to float8e4m3fn (scale 1/128: |x| > 3.5 saturates), dequantize,
    relu, mul. The reference saturates to +-448 (+-3.5 after dequantization); IREE gives NaN."""
    initializers = [
        _const("bias", np.arange(8) - 4, np.float32), _const("s", 1 / 128, np.float32),
        _const("z", 0, ml_dtypes.float8_e4m3fn), _const("two", 2.0, np.float32),
    ]  # fmt: skip
    nodes = [
        helper.make_node("Add", ["x", "bias"], ["a"]),
        helper.make_node("QuantizeLinear", ["a", "s", "z"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
        helper.make_node("Relu", ["d"], ["r"]),
        helper.make_node("Mul", ["r", "two"], ["y"]),
    ]
    vector = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 8]) for name in ("x", "y")]
    graph = helper.make_graph(nodes, "main", vector[:1], vector[1:], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


@pytest.mark.nightly  # 15 s; the same reduction on its torch-onnx IR by default: test_torch_onnx_ir_with_a_batched_qlinearmatmul_reduces_to_the_qlinearmatmul
def test_batched_qlinearmatmul_block_reduces_to_the_wrong_qlinearmatmul(tmp_path, iree_compile, capsys):
    src = tmp_path / "model.onnx"
    onnx.save(quantized_matmul_block(), src)
    original = src.read_bytes()

    args = [str(src), "--oracle=reference-mismatch", "-j", "2", "-q", "--passes", GRAPH_PASSES, "--report", str(tmp_path / "bug.md")]
    assert main(args) == 0

    assert src.read_bytes() == original
    reduced = onnx.load(tmp_path / "model.reduced.onnx")
    ops = [node.op_type for node in reduced.graph.node]
    assert len(ops) <= 2 and "QLinearMatMul" in ops
    printed = capsys.readouterr().out
    assert "nodes         8 -> " in printed
    assert "IREE differs from onnx.reference on @main" in printed
    # The reproduce lines: import, compile, the inputs and expected outputs as files, the run, the
    # check; localisation fed the QLinearMatMul the values the reference computes before it, so
    # the inputs are data written beside the result, which the run and the check read.
    assert "iree-import-onnx" in printed and "--output=@result0.npy" in printed
    assert "--input=@" in printed and "model.reduced.onnx.data/test_data_set_0" in printed
    assert "its source node: qy (QLinearMatMul)" in printed and "reproduces the wrong answer alone" in printed
    assert "python -m oracles.onnx_reference check" in printed

    # A fresh oracle still sees the wrong answer in the written result.
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate("reduced", (), ".onnx", reduced.SerializeToString()))
    assert verdict.interesting and "expected" in verdict.excerpt


# Localisation cuts the torch-onnx IR to the culprit's ops; these passes finish it in a few candidates.
TORCH_PASSES = "cut-at-value,replace-with-argument,drop-unused-arguments"


def test_torch_onnx_ir_with_a_batched_qlinearmatmul_reduces_to_the_qlinearmatmul(tmp_path, iree_compile, capsys):
    """What a user pastes: the importer's IR, weights as dense_resource blobs. IREE runs the IR as
    it is; onnx.reference evaluates the graph it lifts to, the blobs' data (zero points) included."""
    model = tmp_path / "model.onnx"
    onnx.save(quantized_matmul_block(), model)
    src = tmp_path / "model.mlir"
    subprocess.run([find_tool("iree-import-onnx"), str(model), "-o", str(src)], check=True, capture_output=True)
    original = src.read_text()
    assert "dense_resource<bz>" in original and original.count("torch.operator") == 17

    assert main([str(src), "--oracle=reference-mismatch", "-j", "2", "-q", "--passes", TORCH_PASSES]) == 0

    assert src.read_text() == original
    reduced = (tmp_path / "model.reduced.mlir").read_text()
    computing = [line for line in reduced.splitlines() if "torch.operator" in line and "onnx.Constant" not in line]
    assert len(computing) == 1 and "onnx.QLinearMatMul" in computing[0], reduced
    printed = capsys.readouterr().out
    assert "IREE differs from onnx.reference on @main" in printed
    assert "wrong value first computed by dispatch" in printed and "batch_matmul" in printed
    assert "python -m oracles.onnx_reference check" in printed and "model.reduced.mlir --seed 0" in printed

    # A fresh oracle still sees the wrong answer in the written result.
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate(reduced))
    assert verdict.interesting and "expected" in verdict.excerpt, verdict.detail


def test_torch_onnx_cut_argument_carries_what_the_original_computes_on_the_users_data(tmp_path, iree_compile, capsys):
    """Localisation cuts the QuantizeLinear away: the QLinearMatMul's new argument carries the
    quantized user's values (onnx.reference on the lifted graph), written beside the result."""
    model = tmp_path / "model.onnx"
    onnx.save(quantized_matmul_block(), model)
    src = tmp_path / "model.mlir"
    subprocess.run([find_tool("iree-import-onnx"), str(model), "-o", str(src)], check=True, capture_output=True)
    x = (np.arange(24).reshape(BATCHED) % 7).astype(np.float32)
    np.save(tmp_path / "x.npy", x)

    assert main([str(src), "--oracle=reference-mismatch", "--inputs", str(tmp_path / "x.npy"), "-j", "2", "-q",
                 "--passes", "drop-unused-arguments"]) == 0

    reduced = (tmp_path / "model.reduced.mlir").read_text()
    assert "onnx.QuantizeLinear" not in reduced and "onnx.QLinearMatMul" in reduced
    quantized = np.clip(np.rint(np.maximum(x, 0) / 0.5) + 8, 0, 255).astype(np.uint8)  # Relu, QuantizeLinear(0.5, 8)
    assert np.array_equal(np.load(tmp_path / "model.reduced.mlir.data" / "arg0.npy"), quantized)
    printed = capsys.readouterr().out
    assert "--inputs" in printed and "model.reduced.mlir.data/test_data_set_0" in printed


def test_reproduce_lines_leave_inputs_expected_and_wrong_result_as_files(tmp_path, iree_compile):
    """What an engineer pastes: the files it writes hold the wrong answer next to the right one."""
    model = tmp_path / "bug.onnx"
    onnx.save(quantized_matmul_block(), model)
    oracle = ReferenceMismatch(OracleOptions())
    lines = oracle.reproduce_command(Candidate("bug", (), ".onnx", model.read_bytes()), "bug.onnx").splitlines()
    tools = Path(sys.executable).parent  # the venv's console scripts: what a user's shell finds
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(Path(__file__).parents[1])}
    for line in lines[:-1]:  # the last line, `check`, is the oracle itself
        words = shlex.split(line)
        words[0] = sys.executable if words[0] == "python" else words[0]
        subprocess.run(words, cwd=tmp_path, env=env, check=True, capture_output=True)
    expected, result = np.load(tmp_path / "expected0.npy"), np.load(tmp_path / "result0.npy")
    assert expected.shape == result.shape == (2, 3, 5)
    assert not np.allclose(expected, result)
    assert (tmp_path / "arg0.npy").exists() and (tmp_path / "bug.vmfb").exists()


def test_a_zeroed_scale_is_no_answer_so_a_reduction_cannot_slip_to_it(tmp_path):
    """The reducer zeroes initializers; with b_scale 0 the reference would say 0 (nothing divides
    by it), a degenerate computation IREE may well get "wrong" in another way than the original."""
    model = quantized_matmul_block()
    for tensor in model.graph.initializer:
        if tensor.name == "bs":
            tensor.CopyFrom(_const("bs", 0.0, np.float32))
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate("zeroed", (), ".onnx", model.SerializeToString()))
    assert not verdict.interesting
    assert verdict.detail.startswith("onnx.reference fails: ") and "QLinearMatMul scale 'bs' is not positive" in verdict.detail


def test_float8_quantize_gives_nan_where_the_reference_saturates(iree_compile):
    model = float8_quantize_block()
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate("f8", (), ".onnx", model.SerializeToString()))
    assert verdict.interesting, verdict.detail
    assert verdict.signature == "reference-mismatch" and "got nan" in verdict.excerpt


def test_a_model_iree_computes_correctly_exits_2_with_what_the_oracle_saw(tmp_path, iree_compile):
    src = tmp_path / "fine.onnx"
    onnx.save(quantized_matmul_block(a_shape=(3, 4)), src)  # the 2-D QLinearMatMul is right
    result = run_cli(str(src), "--oracle=reference-mismatch", "-q")
    assert result.returncode == 2, result.stderr
    assert "not interesting for reference-mismatch: IREE matches onnx.reference on @main: 1 output(s) match" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "fine.reduced.onnx").exists()


def test_lrn_is_judged_by_the_spec_not_by_onnx_references_own_kernel(iree_compile):
    """onnx.reference's LRN sums squares over the batch axis, so it leaves every channel but the
    first unnormalised; IREE follows the spec, and an LRN (Inception v1 has two) is no mismatch."""
    f32 = TensorProto.FLOAT
    lrn = helper.make_node("LRN", ["x"], ["y"], size=5, alpha=0.0001, beta=0.75, bias=1.0)
    graph = helper.make_graph([lrn], "lrn", [helper.make_tensor_value_info("x", f32, [1, 8, 3, 3])],
                              [helper.make_tensor_value_info("y", f32, [1, 8, 3, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.random.default_rng(0).normal(0, 30, size=(1, 8, 3, 3)).astype(np.float32)
    spec = x / (1 + 0.0001 / 5 * np.stack([(x[:, max(0, c - 2) : c + 3] ** 2).sum(1) for c in range(8)], 1)) ** 0.75
    from oracles.onnx import reference

    assert np.allclose(reference.reference_outputs(model, {"x": x})[0], spec, rtol=1e-6)
    assert not np.allclose(reference.reference_outputs(model, {"x": x}, stock=True)[0], spec, rtol=1e-3)
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate("lrn", (), ".onnx", model.SerializeToString()))
    assert not verdict.interesting and "IREE matches onnx.reference" in verdict.detail, verdict.detail


def test_linalg_input_is_a_one_line_error_naming_the_op_that_stops_the_lift(tmp_path):
    src = tmp_path / "bug.mlir"
    src.write_text(
        "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {\n"
        "  %z = tensor.empty() : tensor<2x4xf32>\n"
        "  %m = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>\n"
        "  return %m : tensor<2x4xf32>\n}\n"
    )
    original = src.read_text()
    result = run_cli(str(src), "--oracle=reference-mismatch")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "op tensor.empty is not a torch.operator" in lines[0] and "--oracle=miscompile" in lines[0], lines
    assert src.read_text() == original and not (tmp_path / "bug.reduced.mlir").exists()


def test_fuzz_mismatch_on_several_pipelines_is_one_finding(iree_compile):
    """Both CPU pipelines get the batched QLinearMatMul wrong: one bug, one finding naming both."""
    b = Const("b", "uint8", (2, 4, 5), "random", low=0, high=15, seed=1)
    scalars = [("as", "float32", 0.5), ("az", "uint8", 8), ("bs", "float32", 0.25), ("bz", "uint8", 4), ("ys", "float32", 0.5), ("yz", "uint8", 10)]
    spec = GraphSpec(
        opset=21,
        features=frozenset({"qlinear_matmul"}),
        inputs=(Tensor("a", "uint8", BATCHED, 0, 16),),
        consts=(b, *(Const(name, dtype, (), "values", (value,)) for name, dtype, value in scalars)),
        nodes=(Node("QLinearMatMul", ("a", "as", "az", "b", "bs", "bz", "ys", "yz"), "y", "uint8", (2, 3, 5)),),
        outputs=("y",),
    )
    result = run_case(3, spec, [PIPELINES["cpu"], PIPELINES["cpu-data-tiling"]], InProcess(Limits(timeout_s=120)))
    assert [run.status for run in result.runs] == [MISMATCH, MISMATCH]
    (finding,) = result.findings
    assert finding.kind == MISMATCH and finding.pipeline == "cpu,cpu-data-tiling"
    assert finding.signature == "mismatch: QLinearMatMul"
