"""`reduce` on each input form it must handle: iree-import-onnx output, torch.aten, linalg; and Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from oracles.mlir import ir as irx
from oracles.toolchain.tools import find_tool
from reducer.cli import main
from tests.models import torch_chain

DATA = Path(__file__).parent / "data"
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def ops_in(path: Path) -> int:
    return irx.count_ops(irx.parse(path.read_text(), irx.new_context()))


def imported_onnx_conv_block(tmp_path: Path) -> Path:
    """Relu -> Conv(random weights) -> Sigmoid -> Mul, imported with iree-import-onnx (dense_resource data)."""
    rng = np.random.RandomState(0)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Conv", ["r", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Sigmoid", ["c"], ["s"]),
        helper.make_node("Mul", ["s", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
        [
            numpy_helper.from_array(rng.rand(16, 8, 3, 3).astype(np.float32), "w"),
            numpy_helper.from_array(rng.rand(16).astype(np.float32), "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.checker.check_model(model)
    onnx.save(model, tmp_path / "block.onnx")
    subprocess.run([find_tool("iree-import-onnx"), str(tmp_path / "block.onnx"), "-o", str(tmp_path / "block.mlir")], check=True)
    return tmp_path / "block.mlir"


def test_imported_onnx_reduces_to_the_conv_and_strips_weight_data(tmp_path, iree_compile):
    src = imported_onnx_conv_block(tmp_path)
    assert "dense_resource" in src.read_text()
    args = ["--oracle=ir-match", "--phase=flow", "--pattern", r"dispatch\S*conv", "-q", "--", *CPU]
    assert main([str(src), *args]) == 0
    reduced = (tmp_path / "block.reduced.mlir").read_text()
    assert ops_in(tmp_path / "block.reduced.mlir") <= 3
    assert '"onnx.Conv"' in reduced and "onnx.Sigmoid" not in reduced
    assert "dialect_resources" not in reduced  # random weights are gone (arguments or splats)


def test_torch_aten_program_reduces_to_the_matmul(tmp_path, iree_compile):
    src = tmp_path / "aten.mlir"
    src.write_text((DATA / "aten_mm.mlir").read_text())
    assert main([str(src), "--oracle=ir-match", "--phase=flow", "--pattern", "matmul", "-q", "--", *CPU]) == 0
    reduced = (tmp_path / "aten.reduced.mlir").read_text()
    assert "torch.aten.mm" in reduced
    assert "torch.aten.relu" not in reduced and "torch.aten.tanh" not in reduced
    assert ops_in(tmp_path / "aten.reduced.mlir") == 1


def test_linalg_program_reduces_to_the_generic_the_pattern_needs(tmp_path, iree_compile):
    src = tmp_path / "lin.mlir"
    src.write_text(
        """func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %c : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}
"""
    )
    assert main([str(src), "--oracle=ir-match", "--phase=input", "--pattern", "math.exp", "-q", "--", *CPU]) == 0
    reduced = (tmp_path / "lin.reduced.mlir").read_text()
    assert "math.exp" in reduced and "linalg.matmul" not in reduced and "arith.addf" not in reduced


def test_ctrl_c_leaves_a_valid_partial_result(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(60, bad_at=40, bad_op="onnx.NoSuchOp"))
    script = tmp_path / "slow.sh"
    script.write_text('#!/bin/sh\nsleep 0.3\ngrep -q "onnx.NoSuchOp" "$1"\n')
    script.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-m", "reducer", str(src), "--oracle=script", "--cmd", f"{script} {{}}", "-j", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out = tmp_path / "x.reduced.mlir"
    deadline = time.monotonic() + 60
    while "cut-at-value" not in (proc.stderr.readline() if proc.poll() is None else "cut-at-value"):
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "partial result (interrupted)" in stdout
    assert "Traceback" not in stderr
    assert "onnx.NoSuchOp" in out.read_text()
    assert ops_in(out) < ops_in(src)
