"""Programs with dynamic dims run and reduce at the user's sizes: their data (every format --inputs
reads), or sizes named with --dim; without either they are refused in one line. On the real
compiler and runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracles import Candidate, OracleOptions
from oracles.inputs.attach import attach
from oracles.inputs.dims import sizes_run_at
from oracles.inputs.readers import read_sources
from oracles.numeric.reference_mismatch import ReferenceMismatch
from tests.test_reference_mismatch import GRAPH_PASSES, quantized_matmul_block

LLVM_CPU = "--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic"
DEMOTE_BF16 = "--iree-global-opt-demote-contraction-inputs-type=bf16 --iree-global-opt-demote-contraction-inputs-operations=matmul"


def dynamic_batch(model: onnx.ModelProto, name: str = "B") -> onnx.ModelProto:
    """The model with its input's and output's first dim dynamic (`dim_param` `name`)."""
    for value in (*model.graph.input, *model.graph.output):
        value.type.tensor_type.shape.dim[0].dim_param = name
    onnx.checker.check_model(model, full_check=True)
    return model


def matmul_rows(m: int = 3) -> tuple[onnx.ModelProto, np.ndarray]:
    """x[M, 64] / 3 -> MatMul 64x8 -> Add -> Tanh, and a Relu of x beside it; M dynamic. The
    MatMul is wrong under DEMOTE_BF16 (its inputs rounded to bf16) at any M."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(np.float32(3.0), "three"),
             numpy_helper.from_array(rng.integers(-3, 4, (64, 8)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.integers(-3, 4, (8,)).astype(np.float32), "b")]
    nodes = [helper.make_node("Div", ["x", "three"], ["x3"]), helper.make_node("MatMul", ["x3", "w"], ["t"]),
             helper.make_node("Add", ["t", "b"], ["u"]), helper.make_node("Tanh", ["u"], ["y"]),
             helper.make_node("Relu", ["x"], ["side"])]
    graph = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", 8]),
                               helper.make_tensor_value_info("side", TensorProto.FLOAT, ["M", 64])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return model, rng.integers(-4, 5, (m, 64)).astype(np.float32)


def reduce(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer", *argv], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def dynamic_qlinearmatmul(tmp_path_factory):
    """The batched QLinearMatMul block IREE 3.13 gets wrong, its batch dim B dynamic; x at B=2."""
    where = tmp_path_factory.mktemp("dynamic")
    model = dynamic_batch(quantized_matmul_block((2, 3, 4)))
    onnx.save(model, where / "model.onnx")
    x = np.random.default_rng(5).integers(0, 8, size=(2, 3, 4)).astype(np.float32)
    return where, model, x


def _sources(where, x: np.ndarray) -> dict[str, str]:
    """The same data as each format --inputs reads."""
    np.save(where / "x.npy", x)
    np.savez(where / "x.npz", x=x)
    x.tofile(where / "x.bin")
    (where / "flags.txt").write_text(f"--input=2x3x4xf32=@{where / 'x.bin'}\n")
    test_data = where / "test_data_set_0"
    test_data.mkdir(exist_ok=True)
    (test_data / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    return {"npy": str(where / "x.npy"), "npz": str(where / "x.npz"), "value": f"2x3x4xf32=@{where / 'x.bin'}",
            "flagfile": str(where / "flags.txt"), "onnx test data": str(test_data)}


def test_a_dynamic_model_runs_at_the_size_of_the_data_in_every_format(dynamic_qlinearmatmul, iree_compile):
    where, model, x = dynamic_qlinearmatmul
    oracle = ReferenceMismatch(OracleOptions())
    for form, source in _sources(where, x).items():
        candidate = attach(Candidate("m", (), ".onnx", model.SerializeToString()), read_sources([source]))
        assert sizes_run_at(candidate) == {"B": 2}, form
        verdict = oracle.judge(candidate)
        assert verdict.interesting and "IREE differs from onnx.reference" in verdict.detail, (form, verdict.detail)


def test_a_dynamic_model_without_data_or_sizes_is_refused_in_one_line(dynamic_qlinearmatmul):
    where, _, _ = dynamic_qlinearmatmul
    result = reduce(str(where / "model.onnx"), "--oracle=reference-mismatch", "-o", str(where / "none.onnx"))
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "dynamic dimensions (B)" in result.stderr and "--dim B=SIZE" in result.stderr and "--inputs" in result.stderr
    assert not (where / "none.onnx").exists()


def test_dim_sizes_an_onnx_model_and_the_summary_names_the_size(dynamic_qlinearmatmul, iree_compile):
    where, _, _ = dynamic_qlinearmatmul
    result = reduce(str(where / "model.onnx"), "--oracle=reference-mismatch", "--dim", "B=2", "--json", "-j", "2", "--no-cache",
                    "--passes", GRAPH_PASSES, "-o", str(where / "dim.onnx"))
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["original_sizes"] == {"B": 2} and summary["sizes"] == {"B": 2}  # the node passes keep it dynamic
    ops = [node.op_type for node in onnx.load(where / "dim.onnx").graph.node]
    assert "QLinearMatMul" in ops and len(ops) <= 2
    assert summary["reduced"]["shapes"][0]["dims"][0] == "B"  # the input stays dynamic, named
    unknown = reduce(str(where / "model.onnx"), "--oracle=reference-mismatch", "--dim", "N=2", "-o", str(where / "n.onnx"))
    assert unknown.returncode == 1 and "no dynamic dimension N (its dynamic dimensions: B)" in unknown.stderr


@pytest.mark.nightly  # a minute; a dynamic model reduced by default: test_dim_sizes_an_onnx_model_and_the_summary_names_the_size
def test_static_dims_shrink_and_a_dim_the_failure_does_not_need_dynamic_is_made_static(tmp_path, iree_compile):
    model, x = matmul_rows()
    onnx.save(model, tmp_path / "rows.onnx")
    np.save(tmp_path / "x.npy", x)
    result = reduce(str(tmp_path / "rows.onnx"), "--oracle=miscompile", "--pipeline-a", LLVM_CPU, "--pipeline-b",
                    f"{LLVM_CPU} {DEMOTE_BF16}", "--inputs", str(tmp_path / "x.npy"), "--json", "-j", "2", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["reduced"]["size"] == 1 and summary["original_sizes"] == {"M": 3}
    assert summary["sizes"] == {}  # the bf16 rounding shows at any size: made static (onnx-pin-dynamic-dims)
    assert all(isinstance(d, int) and d <= 2 for shape in summary["reduced"]["shapes"] for d in shape["dims"])


@pytest.mark.nightly  # 50 s; a dynamic model reduced by default: test_dim_sizes_an_onnx_model_and_the_summary_names_the_size
def test_torch_onnx_ir_keeps_its_dynamic_dim_while_the_static_ones_and_the_weights_shrink(tmp_path, iree_compile):
    model, x = matmul_rows()
    onnx.save(model, tmp_path / "rows.onnx")
    subprocess.run(["iree-import-onnx", str(tmp_path / "rows.onnx"), "-o", str(tmp_path / "rows.mlir")], check=True)
    np.save(tmp_path / "x.npy", x)
    result = reduce(str(tmp_path / "rows.mlir"), "--oracle=miscompile", "--pipeline-a", LLVM_CPU, "--pipeline-b",
                    f"{LLVM_CPU} {DEMOTE_BF16}", "--inputs", str(tmp_path / "x.npy"), "--json", "-j", "2", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["sizes"] == {"arg0.0": 3} and summary["wrong_value"]["test"]["reproduces"]
    reduced = (tmp_path / "rows.reduced.mlir").read_text()
    assert "!torch.vtensor<[?,1],f32>" in reduced and "onnx.MatMul" in reduced  # M dynamic, K and N shrunk to 1
    assert summary["reduced"]["bytes"] < summary["original"]["bytes"] // 5


@pytest.mark.nightly  # 50 s; a dynamic model reduced at the size of its data by default: test_dim_sizes_an_onnx_model_and_the_summary_names_the_size
def test_a_fuzz_finding_at_a_dynamic_size_reduces_on_the_dynamic_model_and_keeps_the_dim_dynamic(tmp_path, iree_compile):
    """A real one (fuzz seed 61): data tiling gets an f16 MatMul chain wrong at M=15 only while M is
    dynamic. The triage reduces the dynamic model on the data that showed it, and the result keeps M."""
    from fuzz.execute import MISMATCH, CaseResult, Finding, PipelineRun
    from fuzz.triage import reduce_finding
    from reducer.formats.registry import format_for

    stored = json.loads((Path(__file__).parent / "data" / "dynamic_m_finding.json").read_text())
    case = CaseResult(stored["seed"], json.dumps(stored["spec"]), "dynamic M",
                      runs=[PipelineRun("cpu", "ok", 1.0), PipelineRun("cpu-data-tiling", MISMATCH, 1.0)])
    finding = Finding(MISMATCH, "cpu-data-tiling", stored["signature"], stored["detail"], size="M=15")
    graph_passes = [p for p in format_for(".onnx").pass_rows() if p.name in ("onnx-cut-outputs", "onnx-cut-inputs", "onnx-pin-dynamic-dims")]
    triage = reduce_finding(finding, case, tmp_path, jobs=2, passes=graph_passes)
    assert triage.outcome is not None, triage.reduced_size
    model = onnx.load(triage.directory / "model.onnx")
    assert model.graph.input[0].type.tensor_type.shape.dim[1].dim_param == "M"  # reduced as found: dynamic
    assert triage.outcome.oracle == "miscompile" and triage.outcome.sizes == {"M": 15}
    assert "the failure needs its dims dynamic" in triage.outcome.dynamic_need
    reduced = onnx.load(triage.directory / "reduced.onnx")
    assert any(d.dim_param == "M" for value in reduced.graph.input for d in value.type.tensor_type.shape.dim)
