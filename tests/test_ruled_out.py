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
from oracles.compiling.dispatch_kind import dispatch_kind, may_form
from oracles.compiling.lds import KIND_KEY, LdsLimit
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
# Windowed ops (a conv, a max and an average pool) and ops with none (a matmul, a softmax, an
# elementwise op, a transpose).
WINDOWED = "\n".join([
    "func.func @main(%x: !torch.vtensor<[1,3,16,16],f32>, %w: !torch.vtensor<[8,3,3,3],f32>) -> (!torch.vtensor<[1,8,14,14],f32>, "
    "!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,8,8],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {",
    '  %0 = torch.operator "onnx.Conv"(%x, %w) : (!torch.vtensor<[1,3,16,16],f32>, !torch.vtensor<[8,3,3,3],f32>) -> !torch.vtensor<[1,8,14,14],f32>',
    *(f'  %{i} = torch.operator "onnx.{pool}"(%x) {{torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]}}'
      " : (!torch.vtensor<[1,3,16,16],f32>) -> !torch.vtensor<[1,3,8,8],f32>" for i, pool in ((1, "MaxPool"), (2, "AveragePool"))),
    "  return %0, %1, %2 : !torch.vtensor<[1,8,14,14],f32>, !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[1,3,8,8],f32>",
    "}",
])
UNWINDOWED = "\n".join([
    "func.func @main(%x: !torch.vtensor<[4,8],f32>, %w: !torch.vtensor<[8,16],f32>) -> (!torch.vtensor<[4,16],f32>, "
    "!torch.vtensor<[16,4],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {",
    '  %0 = torch.operator "onnx.MatMul"(%x, %w) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[8,16],f32>) -> !torch.vtensor<[4,16],f32>',
    '  %1 = torch.operator "onnx.Softmax"(%0) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[4,16],f32>) -> !torch.vtensor<[4,16],f32>',
    '  %2 = torch.operator "onnx.Neg"(%1) : (!torch.vtensor<[4,16],f32>) -> !torch.vtensor<[4,16],f32>',
    '  %3 = torch.operator "onnx.Transpose"(%2) {torch.onnx.perm = [1 : si64, 0 : si64]} : (!torch.vtensor<[4,16],f32>) -> !torch.vtensor<[16,4],f32>',
    "  return %2, %3 : !torch.vtensor<[4,16],f32>, !torch.vtensor<[16,4],f32>",
    "}",
])


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


def test_only_a_windowed_op_forms_a_conv_dispatch(iree_compile, tmp_path):
    """IREE names a dispatch after its root op, and a pool's too is a `conv`: the op names
    `may_form` reads must account for every conv dispatch the compiler forms."""
    kinds = {}
    for name, text in (("windowed", WINDOWED), ("unwindowed", UNWINDOWED)):
        source = tmp_path / f"{name}.mlir"
        source.write_text(text)
        flow = subprocess.run([iree_compile, "--iree-hal-target-device=hip", "--iree-rocm-target=gfx942", "--compile-to=flow",
                               str(source)], check=True, capture_output=True, text=True).stdout
        kinds[name] = [dispatch_kind(export) for export in re.findall(r"export public @(\S+)", flow)]
        assert all(may_form(kind, irx.op_names(text)) for kind in kinds[name])
    assert kinds == {"windowed": ["conv", "conv", "conv"], "unwindowed": ["matmul_like", "softmax"]}
    assert not may_form("conv", irx.op_names(UNWINDOWED))


def test_an_lds_overrun_in_a_conv_is_never_looked_for_in_a_program_without_one():
    conv = Verdict(True, "error: uses", "", {"dispatch": CONV_DISPATCH, KIND_KEY: "conv"})
    ruled_out = LdsLimit(OracleOptions()).calibrated(conv).ruled_out(Candidate(UNWINDOWED))
    assert ruled_out is not None and not ruled_out.interesting
    assert ruled_out.detail == f"has no op that forms a conv dispatch like {CONV_DISPATCH} (not compiled)"
    assert LdsLimit(OracleOptions()).calibrated(conv).ruled_out(Candidate(WINDOWED)) is None
    # --any-dispatch takes an overrun in any dispatch, and a matmul's may come from many ops.
    assert LdsLimit(OracleOptions(any_dispatch=True)).calibrated(conv).ruled_out(Candidate(UNWINDOWED)) is None
    matmul = Verdict(True, "error: uses", "", {"dispatch": "main$async_dispatch_0_matmul_like_4x16x8_f32", KIND_KEY: "matmul_like"})
    assert LdsLimit(OracleOptions()).calibrated(matmul).ruled_out(Candidate(NEGATED)) is None
