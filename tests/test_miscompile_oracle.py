"""The miscompile oracle and its helpers, on the real compiler and runtime (no mocks)."""

from __future__ import annotations

import math
import shlex

import ml_dtypes
import numpy as np
import pytest

from oracles.base import OracleOptions, OracleSetupError
from oracles.candidate import Candidate
from oracles.cli.miscompile import main
from oracles.data.arrays import (
    entry_signature,
    inputs_for_signature,
    looks_quantized,
    reduction_length_hint,
)
from oracles.data.run import run_module
from oracles.numeric.compare import compare_outputs, tolerance_for
from oracles.numeric.miscompile import Miscompile
from oracles.toolchain.tools import Limits, compile_candidate

LLVM_CPU = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
]
VMVX = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"]
# Rounds the matmul's f32 inputs to bf16 before the contraction: a real numeric change.
DEMOTE_BF16 = [
    "--iree-global-opt-demote-contraction-inputs-type=bf16",
    "--iree-global-opt-demote-contraction-inputs-operations=matmul",
]

MATMUL_ADD = """
func.func @matmul_add(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bias: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = arith.addf %mm, %bias : tensor<4x16xf32>
  return %sum : tensor<4x16xf32>
}
"""

# Large K and inputs divided by 3 (not representable in bf16), so bf16 rounding shows in f32.
LARGE_K_MATMUL = """
func.func @mm(%a: tensor<4x1024xf32>, %b: tensor<1024x8xf32>) -> tensor<4x8xf32> {
  %three_a = arith.constant dense<3.0> : tensor<4x1024xf32>
  %three_b = arith.constant dense<3.0> : tensor<1024x8xf32>
  %a3 = arith.divf %a, %three_a : tensor<4x1024xf32>
  %b3 = arith.divf %b, %three_b : tensor<1024x8xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a3, %b3 : tensor<4x1024xf32>, tensor<1024x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %mm : tensor<4x8xf32>
}
"""

# Every element type the runtime round-trips, a 0-d tensor and a primitive scalar argument.
ALL_DTYPES = """
func.func @echo(%a: tensor<3xui8>, %b: tensor<3xsi8>, %c: tensor<3xi1>, %d: tensor<3xf16>, %e: tensor<2x2xbf16>, %f: tensor<i64>, %s: i32)
    -> (tensor<3xui8>, tensor<3xsi8>, tensor<3xi1>, tensor<3xf16>, tensor<2x2xbf16>, tensor<i64>, i32) {
  return %a, %b, %c, %d, %e, %f, %s : tensor<3xui8>, tensor<3xsi8>, tensor<3xi1>, tensor<3xf16>, tensor<2x2xbf16>, tensor<i64>, i32
}
"""

TORCH_SIGNATURE = """
module {
  func.func private @helper(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  func.func @main_graph(%x: !torch.vtensor<[2,3],f32>, %q: !torch.vtensor<[3],si8>, %u: !torch.vtensor<[],ui8>,
                        %m: !torch.vtensor<[4],i1>, %h: !torch.vtensor<[2],bf16>) -> !torch.vtensor<[2,3],f32>
      attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 21 : si64} {
    return %x : !torch.vtensor<[2,3],f32>
  }
}
"""

TORCH_ADD = """
func.func @main_graph(%x: !torch.vtensor<[2,3],f32>, %y: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
    attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 21 : si64} {
  %0 = torch.operator "onnx.Add"(%x, %y) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
"""


def oracle(a: list[str], b: list[str], seed: int = 0) -> Miscompile:
    return Miscompile(OracleOptions(pipeline_a=a, pipeline_b=b, seed=seed))


# --- the oracle, end to end ----------------------------------------------------------------


def test_llvm_cpu_and_vmvx_agree_on_matmul_add(iree_compile):
    verdict = oracle(LLVM_CPU, VMVX).judge(Candidate(MATMUL_ADD))
    assert not verdict.interesting, verdict.detail
    assert verdict.detail.startswith("pipelines agree on @matmul_add")
    assert verdict.metrics["max_abs"] == 0.0  # small-integer inputs: both backends are exact
    assert verdict.metrics["mismatch_fraction"] == 0.0


def test_bf16_demotion_in_pipeline_b_is_a_detected_difference(iree_compile):
    miscompile = oracle(LLVM_CPU, [*LLVM_CPU, *DEMOTE_BF16])
    verdict = miscompile.judge(Candidate(LARGE_K_MATMUL))
    assert verdict.interesting, verdict.detail
    assert verdict.signature == "miscompile: mm output 0 differs"
    assert verdict.metrics["max_abs"] > 0
    atol, rtol = tolerance_for(np.dtype(np.float32), 1024)
    assert verdict.metrics["max_abs"] > atol and verdict.metrics["max_rel"] > rtol
    assert 0 < verdict.metrics["mismatch_fraction"] <= 1
    assert verdict.excerpt.startswith("output 0[")  # the first differing elements, A vs B
    # The same pipeline twice never differs: the comparison is deterministic.
    same = oracle(LLVM_CPU, LLVM_CPU).judge(Candidate(LARGE_K_MATMUL))
    assert not same.interesting and same.metrics["max_abs"] == 0.0


def test_reproduce_command_lists_inputs_both_compiles_and_both_runs():
    miscompile = oracle(LLVM_CPU, [*LLVM_CPU, *DEMOTE_BF16], seed=7)
    lines = miscompile.reproduce_command(Candidate(LARGE_K_MATMUL, flags=("--iree-opt-level=O2",)), "reduced.mlir").splitlines()
    assert len(lines) == 5
    assert lines[0] == "python -m oracles.miscompile write-inputs reduced.mlir --seed 7"
    compile_a, compile_b = shlex.split(lines[1]), shlex.split(lines[2])
    assert compile_a[0] == "iree-compile" and compile_a[-2:] == ["-o", "a.vmfb"]
    assert "--iree-opt-level=O2" in compile_a and "--iree-opt-level=O2" in compile_b  # user flags go to both
    assert DEMOTE_BF16[0] not in compile_a and DEMOTE_BF16[0] in compile_b
    run_a = shlex.split(lines[3])
    assert run_a[:4] == ["iree-run-module", "--device=local-task", "--module=a.vmfb", "--function=mm"]
    assert run_a[4:] == ["--input=@arg0.npy", "--input=@arg1.npy", "--output=@a_result0.npy"]
    assert "--module=b.vmfb" in lines[4]


def test_a_pipeline_that_fails_to_compile_is_not_interesting_and_named(iree_compile):
    verdict = oracle(LLVM_CPU, ["--iree-no-such-flag"]).judge(Candidate(MATMUL_ADD))
    assert not verdict.interesting
    assert verdict.detail.startswith("pipeline B fails to compile:")
    assert "iree-no-such-flag" in verdict.detail


def test_torch_program_runs_through_both_pipelines(iree_compile):
    verdict = oracle(LLVM_CPU, VMVX).judge(Candidate(TORCH_ADD))
    assert not verdict.interesting, verdict.detail
    assert "@main_graph" in verdict.detail and verdict.metrics["max_abs"] == 0.0


def test_no_pipelines_is_a_setup_error():
    with pytest.raises(OracleSetupError, match="--pipeline-a .* --pipeline-b"):
        Miscompile(OracleOptions())
    # One pipeline is enough: the other is the generic CPU target.
    assert Miscompile(OracleOptions(pipeline_b=VMVX)).pipeline_flags("a", ()) == LLVM_CPU


def test_dynamic_shapes_without_data_are_not_interesting_with_a_clear_reason():
    text = "func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> { return %a : tensor<?x4xf32> }"
    verdict = oracle(LLVM_CPU, VMVX).judge(Candidate(text))
    assert not verdict.interesting
    assert "argument 0 has a dynamic shape (?x4): give --inputs with the sizes to run it at" in verdict.detail


# --- run_module -----------------------------------------------------------------------------


def test_run_module_round_trips_every_dtype_and_several_outputs(iree_compile, tmp_path):
    compiled = compile_candidate(Candidate(ALL_DTYPES), LLVM_CPU, tmp_path, Limits(), "echo.vmfb")
    assert compiled.ok, compiled.process.stderr
    function, args = entry_signature(ALL_DTYPES)
    inputs = inputs_for_signature(args, seed=3)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    outputs = run_module(compiled.output, function, inputs, run_dir, Limits(timeout_s=60))
    assert isinstance(outputs, list), outputs
    assert [o.dtype for o in outputs] == [
        np.uint8, np.int8, np.bool_, np.float16, np.dtype(ml_dtypes.bfloat16), np.int64, np.int32
    ]
    assert compare_outputs(inputs, outputs).matches
    missing = run_module(compiled.output, "nope", inputs, run_dir, Limits(timeout_s=60))
    assert missing == "function @nope is not exported (exports: echo)"
    too_few = run_module(compiled.output, function, inputs[:2], run_dir, Limits(timeout_s=60))
    assert isinstance(too_few, str) and too_few  # the runtime's own first error line


def test_write_inputs_cli_writes_what_the_oracle_uses(tmp_path, capsys):
    source = tmp_path / "p.mlir"
    source.write_text(ALL_DTYPES)
    assert main(["write-inputs", str(source), "--seed", "3", "--dir", str(tmp_path)]) == 0
    flags = shlex.split(capsys.readouterr().out)
    assert flags[0] == "--function=echo" and flags[5] == "--input=2x2xbf16=@arg4.bin"
    expected = inputs_for_signature(entry_signature(ALL_DTYPES)[1], 3)
    assert np.array_equal(np.load(tmp_path / "arg0.npy"), expected[0])
    assert flags[-1] == f"--input={int(expected[-1])}"  # the primitive i32 as a literal


# --- compare_outputs and tolerance_for ------------------------------------------------------


def test_unsigned_and_signed_bytes_compare_by_bits():
    ui8 = np.array([0, 127, 128, 255], dtype=np.uint8)
    i8 = ui8.view(np.int8)  # what a signless runtime hands back: [0, 127, -128, -1]
    comparison = compare_outputs([ui8], [i8])
    assert comparison.matches and comparison.max_abs == 0.0
    assert not compare_outputs([ui8], [i8 + np.int8(1)]).matches


def test_one_lsb_on_int8_only_with_the_quantized_flag():
    expected = np.array([10, -3, 127], dtype=np.int8)
    off_by_one = np.array([11, -3, 127], dtype=np.int8)
    strict = compare_outputs([expected], [off_by_one])
    assert not strict.matches and strict.max_abs == 1.0 and strict.mismatch_fraction == pytest.approx(1 / 3)
    assert strict.first_mismatch == 0 and "expected 10 got 11" in strict.examples[0]
    assert compare_outputs([expected], [off_by_one], quantized=True).matches
    off_by_two = np.array([12, -3, 127], dtype=np.int8)
    assert not compare_outputs([expected], [off_by_two], quantized=True).matches
    # Only 8-bit results get the allowance.
    assert not compare_outputs([expected.astype(np.int32)], [off_by_one.astype(np.int32)], quantized=True).matches


def test_nan_handling():
    nan_both = np.array([1.0, np.nan, np.inf], dtype=np.float32)
    assert compare_outputs([nan_both], [nan_both.copy()]).matches
    assert not compare_outputs([nan_both], [nan_both.copy()], nan_equal=False).matches
    nan_one = np.array([1.0, 2.0, np.inf], dtype=np.float32)
    comparison = compare_outputs([nan_both], [nan_one])
    assert not comparison.matches
    assert math.isinf(comparison.max_abs) and comparison.mismatch_fraction == pytest.approx(1 / 3)
    opposite_inf = np.array([1.0, np.nan, -np.inf], dtype=np.float32)
    assert not compare_outputs([nan_both], [opposite_inf]).matches


def test_float_tolerance_depends_on_dtype_and_reduction_length():
    base = np.linspace(-2, 2, 32, dtype=np.float32)
    assert compare_outputs([base], [base + np.float32(1e-6)]).matches
    assert not compare_outputs([base], [base + np.float32(1e-3)]).matches
    assert compare_outputs([base], [base + np.float32(1e-3)], reduction_length=100_000).matches
    half = base.astype(np.float16)
    assert compare_outputs([half], [half + np.float16(4e-3)]).matches  # f16 is looser than f32
    bf16 = base.astype(ml_dtypes.bfloat16)
    assert compare_outputs([bf16], [(base + 1.5e-2).astype(ml_dtypes.bfloat16)]).matches
    assert compare_outputs([base], [base], atol=0.0, rtol=0.0).matches


def test_output_count_and_shape_differences_are_mismatches():
    one = np.zeros((2, 3), dtype=np.float32)
    assert not compare_outputs([one], [one, one]).matches
    shaped = compare_outputs([one, one], [one, one.reshape(3, 2)])
    assert not shaped.matches and shaped.first_mismatch == 1 and "shape (2, 3) vs (3, 2)" in shaped.description


def test_tolerance_for():
    f32 = np.dtype(np.float32)
    assert tolerance_for(f32, 1) == (1e-5, 1e-5)
    assert tolerance_for(f32, 400)[0] == pytest.approx(2e-4)  # scaled by sqrt(K)
    assert tolerance_for(np.dtype(np.float16))[1] > tolerance_for(f32)[1]
    assert tolerance_for(np.dtype(ml_dtypes.bfloat16))[1] > tolerance_for(np.dtype(np.float16))[1]
    assert tolerance_for(np.dtype(np.int32), 1000) == (0.0, 0.0)
    assert tolerance_for(np.dtype(np.uint8), quantized=True) == (1.0, 0.0)
    assert tolerance_for(np.dtype(np.int16), quantized=True) == (0.0, 0.0)
    assert tolerance_for(np.dtype(np.bool_), quantized=True) == (0.0, 0.0)


# --- signatures and inputs ------------------------------------------------------------------


def test_inputs_for_torch_vtensor_signature():
    function, args = entry_signature(TORCH_SIGNATURE)
    assert function == "main_graph"  # the private declaration is skipped
    assert args == [
        ((2, 3), np.dtype(np.float32)),
        ((3,), np.dtype(np.int8)),
        ((), np.dtype(np.uint8)),
        ((4,), np.dtype(np.bool_)),
        ((2,), np.dtype(ml_dtypes.bfloat16)),
    ]
    inputs = inputs_for_signature(args, seed=5)
    assert [(v.shape, v.dtype) for v in inputs] == args
    floats = inputs[0]
    assert np.all(np.isfinite(floats)) and np.array_equal(floats, np.round(floats))  # small integers
    assert np.abs(floats).max() <= 4
    assert np.all(inputs[4].astype(np.float32) == np.round(inputs[4].astype(np.float32)))
    assert inputs[2].ndim == 0 and isinstance(inputs[2], np.ndarray)  # a 0-d tensor stays an array
    again = inputs_for_signature(args, seed=5)
    assert all(np.array_equal(x, y) for x, y in zip(inputs, again))
    other = inputs_for_signature([((64,), np.dtype(np.float32))], seed=6)[0]
    assert not np.array_equal(other, inputs_for_signature([((64,), np.dtype(np.float32))], seed=5)[0])


def test_entry_signature_builtin_util_func_and_errors():
    util = "util.func private @h(%a: tensor<2xf32>) -> tensor<2xf32> { util.return %a : tensor<2xf32> }\n" \
           "util.func public @g(%a: tensor<2x3xi8>, %n: i32) -> tensor<2x3xi8> { util.return %a : tensor<2x3xi8> }"
    assert entry_signature(util) == ("g", [((2, 3), np.dtype(np.int8)), (None, np.dtype(np.int32))])
    scalar = inputs_for_signature(entry_signature(util)[1], seed=0)[1]
    assert isinstance(scalar, np.generic) and scalar.dtype == np.int32
    with pytest.raises(ValueError, match="dynamic shape"):
        entry_signature("func.func @f(%a: !torch.vtensor<[?,3],f32>) { return }")
    with pytest.raises(ValueError, match="cannot parse"):
        entry_signature("func.func @f(")
    with pytest.raises(ValueError, match="no public"):
        entry_signature("func.func private @f() { return }")


def test_program_hints():
    assert reduction_length_hint(LARGE_K_MATMUL) == 1024
    assert reduction_length_hint(TORCH_SIGNATURE) == 4
    assert looks_quantized('%0 = torch.operator "onnx.QuantizeLinear"(%x, %s, %z)')
    assert not looks_quantized(MATMUL_ADD)
