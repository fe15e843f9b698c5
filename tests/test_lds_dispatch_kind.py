"""lds-limit pinned to the original's dispatch: an overrun must stay in a dispatch of its kind.

Real gfx942 compiles (no GPU needed): a 3x3 conv whose dispatch uses 13312 bytes of LDS and a
256x256 matmul whose dispatch uses 50176, both over a 12 KiB threshold.
"""

from __future__ import annotations

from oracles import Candidate, OracleOptions
from oracles.compiling.dispatch_kind import dispatch_kind
from oracles.compiling.lds import LdsLimit

CONV = ('%c = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.kernel_shape = [3 : si64, 3 : si64]} : '
        "(!torch.vtensor<[1,32,16,16],f32>, !torch.vtensor<[64,32,3,3],f32>) -> !torch.vtensor<[1,64,14,14],f32>")
MATMUL = ('%m = torch.operator "onnx.MatMul"(%a, %b) : '
          "(!torch.vtensor<[256,256],f32>, !torch.vtensor<[256,256],f32>) -> !torch.vtensor<[256,256],f32>")
ARGS = ("%x: !torch.vtensor<[1,32,16,16],f32>, %w: !torch.vtensor<[64,32,3,3],f32>, "
        "%a: !torch.vtensor<[256,256],f32>, %b: !torch.vtensor<[256,256],f32>")


def program(conv: bool, matmul: bool) -> str:
    ops = [op for op, keep in ((CONV, conv), (MATMUL, matmul)) if keep]
    results = [r for r, keep in (("%c", conv), ("%m", matmul)) if keep]
    types = [t for t, keep in (("!torch.vtensor<[1,64,14,14],f32>", conv), ("!torch.vtensor<[256,256],f32>", matmul)) if keep]
    body = "\n  ".join(ops)
    return (f"func.func @main({ARGS}) -> ({', '.join(types)}) attributes {{torch.onnx_meta.opset_version = 21 : si64}} {{\n"
            f"  {body}\n  return {', '.join(results)} : {', '.join(types)}\n}}\n")


def test_dispatch_names_give_their_family():
    assert dispatch_kind("main$async_dispatch_1_conv_32x3x51x26x2x3x3_f32") == "conv"
    assert dispatch_kind("main$async_dispatch_0_matmul_like_64x256x32_f32") == "matmul_like"
    assert dispatch_kind("main$async_dispatch_1_matmul_256x256x256_f32.kd") == "matmul_like"
    assert dispatch_kind("main$async_dispatch_3_elementwise_broadcast_Dx3_f16") == "elementwise"
    assert dispatch_kind("main$async_dispatch_2_reduction_64x128_f32") == "reduction"
    assert dispatch_kind("no dispatch here") == "unknown"


def test_an_overrun_that_moves_to_another_kind_of_dispatch_is_not_the_original_s(iree_compile):
    oracle = LdsLimit(OracleOptions(lds_bytes=12288))
    original = oracle.judge(Candidate(program(conv=True, matmul=True)))
    assert original.interesting, original.detail
    assert original.metrics["dispatch_kind"] == "matmul_like" and original.metrics["lds_bytes"] == 50176
    assert original.metrics["root_op"] == "linalg.matmul"
    assert "(main$async_dispatch_1_matmul_256x256x256_f32: matmul_like, root op linalg.matmul)" in original.detail

    conv_only = Candidate(program(conv=True, matmul=False))
    assert oracle.judge(conv_only).interesting  # uncalibrated: any dispatch over the threshold
    pinned = oracle.calibrated(original).judge(conv_only)
    assert not pinned.interesting
    assert pinned.detail == ("largest LDS use 13312 bytes > 12288 is in a conv dispatch "
                             "(main$async_dispatch_0_conv_64x14x14x32x3x3_f32); no matmul_like dispatch is over, "
                             "as in the original (--any-dispatch accepts any)")
    assert LdsLimit(OracleOptions(lds_bytes=12288, any_dispatch=True)).calibrated(original).judge(conv_only).interesting
    assert oracle.calibrated(original).judge(Candidate(program(conv=False, matmul=True))).interesting
