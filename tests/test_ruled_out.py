"""Candidates that cannot show a dispatch's failure are judged without a compile.

A failure that compiling one of the program's own dispatches produces (a codegen error, an LDS
overrun) needs such a dispatch; a program that computes nothing forms none. The first test holds
the compiler to that, the others the oracles' use of it.
"""

from __future__ import annotations

import re
import subprocess

from oracles import Candidate, OracleOptions, Verdict
from oracles.compiling.compile_failure import CompileError
from oracles.compiling.lds import LdsLimit
from oracles.mlir import ir as irx
from oracles.mlir.locations import FailureSite

SIGNATURE = "func.func @main(%x: !torch.vtensor<[4,8],f32>) -> ({types}) attributes {{torch.onnx_meta.opset_version = 17 : si64}} {{"
# Constants only: a non-splat f32 (onnx.Constant), an i64 splat (IREE fills it with a builtin
# executable), a non-splat i1, and an argument returned as it is.
NOTHING = "\n".join([
    SIGNATURE.format(types="!torch.vtensor<[3],f32>, !torch.vtensor<[1024],si64>, !torch.vtensor<[4],i1>, !torch.vtensor<[4,8],f32>"),
    '  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>',
    "  %1 = torch.vtensor.literal(dense<7> : tensor<1024xsi64>) : !torch.vtensor<[1024],si64>",
    "  %2 = torch.vtensor.literal(dense<[true, false, true, true]> : tensor<4xi1>) : !torch.vtensor<[4],i1>",
    "  return %0, %1, %2, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[1024],si64>, !torch.vtensor<[4],i1>, !torch.vtensor<[4,8],f32>",
    "}",
])
NEGATED = "\n".join([
    SIGNATURE.format(types="!torch.vtensor<[4,8],f32>"),
    '  %0 = torch.operator "onnx.Neg"(%x) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>',
    "  return %0 : !torch.vtensor<[4,8],f32>",
    "}",
])
CONV_DISPATCH = "main$async_dispatch_0_conv_2x5x8x17x32x2_f32"


def test_a_program_that_computes_nothing_has_no_dispatch_of_its_own(iree_compile, tmp_path):
    source = tmp_path / "nothing.mlir"
    source.write_text(NOTHING)
    assert not irx.computes(NOTHING) and irx.computes(NEGATED)
    for target in (["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"],
                   ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]):
        out = tmp_path / "out.mlir"
        subprocess.run([iree_compile, *target, "--compile-to=executable-sources", str(source), "-o", str(out)],
                       check=True, capture_output=True)
        executables = re.findall(r"hal\.executable(?:\.source)? private @(\S+)", out.read_text())
        assert executables == ["__builtin_splat_i64"]  # IREE's own, never one the program forms


def test_an_lds_overrun_is_never_looked_for_in_a_program_that_computes_nothing():
    oracle = LdsLimit(OracleOptions()).calibrated(Verdict(True, "error: uses", "", {"dispatch": CONV_DISPATCH}))
    ruled_out = oracle.ruled_out(Candidate(NOTHING))
    assert ruled_out is not None and not ruled_out.interesting
    assert ruled_out.detail == f"computes nothing, so no dispatch like {CONV_DISPATCH} to fail in (not compiled)"
    assert oracle.ruled_out(Candidate(NEGATED)) is None  # anything that computes is compiled
    assert LdsLimit(OracleOptions()).ruled_out(Candidate(NOTHING)) is None  # the original is always compiled
    builtin = LdsLimit(OracleOptions()).calibrated(Verdict(True, "error: uses", "", {"dispatch": "__builtin_splat_i64"}))
    assert builtin.ruled_out(Candidate(NOTHING)) is None  # a failure of IREE's own executables may need no op at all


def test_a_compile_error_rules_out_only_what_cannot_reach_the_failing_dispatch():
    def located(phase: str) -> Verdict:
        return Verdict(True, "error: 'func.func' op failed to distribute", "",
                       site=FailureSite(dispatch="module_main$async_dispatch_7", phase=phase))

    assert CompileError().calibrated(located("executable-targets")).ruled_out(Candidate(NOTHING)) is not None
    assert CompileError().calibrated(located("executable-targets")).ruled_out(Candidate(NEGATED)) is None
    # An error first seen before codegen may be the host code's, at an op a dispatch also holds.
    assert CompileError().calibrated(located("stream")).ruled_out(Candidate(NOTHING)) is None
    # --match may accept an error printed anywhere.
    matching = CompileError(OracleOptions(match="failed"))
    assert matching.calibrated(located("executable-targets")).ruled_out(Candidate(NOTHING)) is None
