"""No undefined results: a candidate that reads a `tensor.empty` value is never a wrong answer.

A reduction that forwards a `linalg.fill`'s output operand in place of its result leaves a matmul
accumulating into uninitialised memory; the two pipelines then differ (or agree) by chance. The
miscompile oracle rejects such a candidate before compiling it, and says why.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from oracles import Candidate, OracleOptions
from oracles.mlir import ir as irx
from oracles.mlir.uninitialised import uninitialised_reads
from oracles.numeric.miscompile import Miscompile
from tests.test_miscompile_oracle import DEMOTE_BF16, LARGE_K_MATMUL, LLVM_CPU

# The candidate built to read one: LARGE_K_MATMUL with its linalg.fill forwarded away.
READS_EMPTY = LARGE_K_MATMUL.replace(
    "outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>\n  return", "outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>\n  return"
)

FINE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<16x4xf32>, tensor<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %fill : tensor<4x16xf32>, tensor<4x16xf32>) outs(%empty : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%sum : tensor<4x16xf32>) outs(%e2 : tensor<16x4xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %i = tensor.insert_slice %sum into %e3[0, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x16xf32> into tensor<2x4x16xf32>
  %j = tensor.insert_slice %sum into %i[1, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x16xf32> into tensor<2x4x16xf32>
  return %sum, %t, %j : tensor<4x16xf32>, tensor<16x4xf32>, tensor<2x4x16xf32>
}
"""

READS_THROUGH_A_VIEW = """
func.func @f(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<4x16xf32>) {
  %empty = tensor.empty() : tensor<4x16xf32>
  %flat = tensor.collapse_shape %empty [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %sum = arith.addf %a, %flat : tensor<64xf32>
  return %sum, %empty : tensor<64xf32>, tensor<4x16xf32>
}
"""


def test_ops_that_only_write_an_empty_tensor_are_fine():
    assert uninitialised_reads(irx.parse(FINE)) == []


def test_a_matmul_accumulating_into_an_empty_tensor_reads_it():
    assert uninitialised_reads(irx.parse(READS_EMPTY)) == ["linalg.matmul reads (operand 2) a tensor.empty value"]


def test_reads_through_views_and_returned_empties_count():
    assert sorted(uninitialised_reads(irx.parse(READS_THROUGH_A_VIEW))) == [
        "arith.addf reads (operand 1) a tensor.empty value",
        "func.return returns a tensor.empty value",
    ]


def test_miscompile_rejects_the_uninitialised_read_before_compiling(iree_compile):
    oracle = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=[*LLVM_CPU, *DEMOTE_BF16]))
    original = oracle.judge(Candidate(LARGE_K_MATMUL))
    assert original.interesting, original.detail
    verdict = oracle.calibrated(original).judge(Candidate(READS_EMPTY))
    assert not verdict.interesting
    assert verdict.detail == "reads uninitialised memory, its answer is undefined: linalg.matmul reads (operand 2) a tensor.empty value"
    assert verdict.seconds < 1  # nothing was compiled


@pytest.mark.nightly  # 11 s; the rejection itself by default: test_miscompile_rejects_the_uninitialised_read_before_compiling
def test_reduce_verbose_says_why_the_uninitialised_read_was_rejected(tmp_path, iree_compile):
    """replace-with-operand forwards the fill's output operand (the tensor.empty) in place of its
    result: that candidate is built by the reducer itself, rejected, and the reason logged."""
    src = tmp_path / "mm.mlir"
    src.write_text(LARGE_K_MATMUL)
    argv = [
        sys.executable, "-m", "reducer", str(src), "--oracle=miscompile", "--verbose", "-j", "2", "--no-localize",
        "--passes", "replace-with-operand", "--pipeline-a", " ".join(LLVM_CPU), "--pipeline-b", " ".join([*LLVM_CPU, *DEMOTE_BF16]),
    ]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "oracle: not interesting: reads uninitialised memory, its answer is undefined: linalg.matmul reads (operand 2)" in result.stderr
    reduced = (tmp_path / "mm.reduced.mlir").read_text()
    assert uninitialised_reads(irx.parse(reduced)) == []
    assert "linalg.fill" in reduced
