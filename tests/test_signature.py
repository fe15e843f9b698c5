"""Failure signatures: one bug keeps one identity while it shrinks, and two bugs keep two."""

from __future__ import annotations

from pathlib import Path

from oracles.signature import crash_signature, error_signature
from oracles.toolchain.flags import GENERIC_CPU
from oracles.toolchain.tools import Limits, find_tool, run_tool

DATA = Path(__file__).parent / "data"


def _illegal(op: str, printed: str) -> str:
    return f"input.mlir:3:10: error: failed to legalize operation '{op}' that was explicitly marked illegal: {printed}"


def test_an_op_printed_in_a_message_counts_by_name_not_by_its_operands_attributes_or_types():
    a = _illegal("arith.fptoui", '%289 = "arith.fptoui"(%288) : (f32) -> i8')
    b = _illegal("arith.fptoui", '%7 = "arith.fptoui"(%6) <{fastmath}> : (f64) -> i32')
    assert error_signature(a) == error_signature(b)
    assert error_signature(a).endswith('marked illegal: "arith.fptoui"')

    conv = '%3 = "torch.operator"(%1, %2) <{name = "onnx.ConvInteger"}> {torch.onnx.group = 2 : si64} : (!torch.vtensor<[1,2],ui8>) -> !torch.vtensor<[2],si32>'
    conv_smaller = '%0 = "torch.operator"(%a) <{name = "onnx.ConvInteger"}> : (!torch.vtensor<[1],si8>) -> !torch.vtensor<[1],si32>'
    matmul = '%3 = "torch.operator"(%1, %2) <{name = "onnx.MatMulInteger"}> : (!torch.vtensor<[1,2],ui8>) -> !torch.vtensor<[2],si32>'
    assert error_signature(_illegal("torch.operator", conv)) == error_signature(_illegal("torch.operator", conv_smaller))
    assert error_signature(_illegal("torch.operator", conv)) != error_signature(_illegal("torch.operator", matmul))
    assert "(onnx.ConvInteger)" in error_signature(_illegal("torch.operator", conv))


def test_an_aten_op_the_fx_importer_left_as_a_torch_operator_counts_by_its_name():
    # A real architecture's program with an ATen op no lowering takes (transformers' causal mask
    # takes a torch.diff; batch norm in eval has three results): two ops are two bugs, one op shrinking is one.
    diff = '%37 = "torch.operator"(%34, %24, %23, %36, %25) <{name = "torch.aten.diff"}> : (!torch.vtensor<[1,8],si64>, !torch.int) -> !torch.vtensor<[1,8],si64>'
    diff_smaller = '%2 = "torch.operator"(%0, %1) <{name = "torch.aten.diff"}> : (!torch.vtensor<[1,2],si64>, !torch.int) -> !torch.vtensor<[1,2],si64>'
    norm = ('%9:3 = "torch.operator"(%4, %5) <{name = "torch.aten._native_batch_norm_legit_no_training"}> : '
            "(!torch.vtensor<[2,8,16,16],f32>, !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,8,16,16],f32>, !torch.vtensor<[0],f32>)")
    assert error_signature(_illegal("torch.operator", diff)) == error_signature(_illegal("torch.operator", diff_smaller))
    assert error_signature(_illegal("torch.operator", diff)) != error_signature(_illegal("torch.operator", norm))
    assert error_signature(_illegal("torch.operator", norm)).endswith('"torch.operator" (torch.aten._native_batch_norm_legit_no_training)')


def test_a_segfault_in_the_onnx_lowering_has_the_same_signature_every_run(iree_compile):
    # QLinearConv 1-D without kernel_shape: the ONNX-to-torch lowering dies building a pad op.
    argv = [find_tool("iree-compile"), *GENERIC_CPU, str(DATA / "qlinearconv_no_kernel_shape_crash.mlir"), "-o", "/dev/null"]
    signatures = set()
    for _ in range(2):
        result = run_tool(argv, Limits(timeout_s=60))
        assert result.returncode != 0
        signatures.add(crash_signature(result.returncode, result.stderr, result.signal_name))
    (signature,) = signatures  # the exit code varies between runs; the signature must not
    assert signature.startswith("crash: ") and "AtenPadOp::create" in signature


def test_paths_are_stripped_but_a_slash_inside_a_word_is_not_a_path():
    line = "/tmp/x/lowered.input.mlir:33:10: error: 'linalg.generic' op inferred input/output operand #1 has shape's dimension #2 to be 16"
    assert error_signature(line) == "error: 'linalg.generic' op inferred input/output operand #N has shape's dimension #N to be N"
    assert error_signature("error: cannot open /tmp/run7/b.mlir for reading") == "error: cannot open <path> for reading"


def test_a_shaped_types_dims_and_rank_do_not_split_one_bug():
    # The fuzzer met `convert-torch-to-tmtensor`'s wrong-rank collapse at three mask sizes: one bug.
    def collapse(expanded: str, collapsed: str) -> str:
        return error_signature(f"a.mlir:3:5: error: 'tensor.collapse_shape' op expected the expanded type, '{expanded}' "
                               f"to have a higher (or same) rank than the collapsed type, '{collapsed}'.")

    assert collapse("tensor<4x16xi1>", "tensor<4x16x16xi1>") == collapse("tensor<1x3xi1>", "tensor<1x3x3xi1>")
    assert collapse("tensor<?x8xi1>", "tensor<?x8x8xi1>") == collapse("tensor<?x2xi1>", "tensor<?x2x2xi1>")
    assert collapse("tensor<4x16xi1>", "tensor<4x16x16xi1>") == collapse("tensor<4x16xi1>", "tensor<4x16x16x2xi1>")
    assert collapse("tensor<4x16xi1>", "tensor<4x16x16xi1>") != collapse("tensor<4x16xi8>", "tensor<4x16x16xi8>")  # the element type counts


def test_online_attention_left_as_a_memref_is_one_bug_at_any_rank_and_with_a_dynamic_dim():
    # The zoo met it as three root causes: rank 3 (GPT-2), rank 4 (Llama's grouped-query broadcast), a dynamic batch (ViT).
    def left(memref: str) -> str:
        return error_signature(f"x.mlir:250:11: error: 'iree_linalg_ext.online_attention' op result #0 must be variadic of ranked "
                               f"tensor of any non-token type values, but got '{memref}'")

    rank4 = left("memref<2x1x1x1xf32, strided<[8, 8, 8, 1], offset: ?>, #gpu.address_space<workgroup>>")
    assert rank4 == left("memref<1x1x1xf32, strided<[8, 8, 1], offset: ?>, #gpu.address_space<workgroup>>")
    assert rank4 == left("memref<?x1x1x1xf32, strided<[8, 8, 8, 1], offset: ?>, #gpu.address_space<workgroup>>")
    assert rank4.endswith("but got 'memref<Nxf32, strided<[N], offset: ?>, #gpu.address_space<workgroup>>'")
