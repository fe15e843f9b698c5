"""Shrinking dimensions of linalg-on-tensors IR and of a standalone hal.executable, and never degenerately."""

from __future__ import annotations

import re
import subprocess

import onnx
import pytest
from iree.compiler import ir
from onnx import TensorProto, helper

from oracles.mlir import ir as irx
from reducer.shapes import mlir_shapes
from reducer.shapes.degenerate import mlir_sites, onnx_model_sites
from reducer.shapes.dim_system import DimSystem
from reducer.shapes.onnx_shapes import dimensions, resize

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]

CONV = """
func.func @conv(%x: tensor<1x8x16x16xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<4x8x3x3xf32>
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%padded, %w : tensor<1x8x18x18xf32>, tensor<4x8x3x3xf32>) outs(%acc : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
"""

MATMUL = """
func.func @mm(%a: tensor<6x5xf32>) -> tensor<12x3xf32> {
  %zero = arith.constant 0.0 : f32
  %b = arith.constant dense<[[2.0, 3.0, 4.0], [5.0, 6.0, 7.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]> : tensor<5x3xf32>
  %e = tensor.empty() : tensor<6x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x3xf32>) -> tensor<6x3xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x5xf32>, tensor<5x3xf32>) outs(%acc : tensor<6x3xf32>) -> tensor<6x3xf32>
  %s = tensor.extract_slice %mm[1, 0] [4, 3] [1, 1] : tensor<6x3xf32> to tensor<4x3xf32>
  %cat = tensor.concat dim(0) %mm, %mm : (tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<12x3xf32>
  return %cat : tensor<12x3xf32>
}
"""

RESHAPED = """
func.func @stopped(%a: tensor<6x32xf32>, %b: tensor<32x10xf32>, %shape: tensor<1xi64>) -> tensor<60xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x10xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<6x10xf32>) -> tensor<6x10xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x32xf32>, tensor<32x10xf32>) outs(%acc : tensor<6x10xf32>) -> tensor<6x10xf32>
  %r = tensor.reshape %mm(%shape) : (tensor<6x10xf32>, tensor<1xi64>) -> tensor<60xf32>
  return %r : tensor<60xf32>
}
"""


def _resized(text: str, key: str, size: int) -> str | None:
    ctx = irx.new_context()
    module = irx.parse(text, ctx)
    with ctx, ir.Location.unknown(ctx):
        return irx.to_text(module) if mlir_shapes.resize(module, key, size) else None


def _targets(text: str) -> dict[str, int]:
    ctx = irx.new_context()
    module = irx.parse(text, ctx)
    with ctx, ir.Location.unknown(ctx):
        return {t.key: t.size for t in mlir_shapes.targets(module)}


def _compiles(iree_compile: str, text: str, tmp_path, *flags: str) -> bool:
    path = tmp_path / "candidate.mlir"
    path.write_text(text)
    done = subprocess.run([iree_compile, *flags, str(path), "-o", str(tmp_path / "out.vmfb")], check=False, capture_output=True, text=True)
    return done.returncode == 0


def test_a_strided_conv_keeps_its_verifier_relation_through_the_pad(tmp_path, iree_compile):
    # Output rows 8 -> 3: the stride-2 3x3 conv needs 2 * (3 - 1) + 3 padded input rows (+ the
    # original's one row of slack) = 8, so the pad's source has 6; the relu and result follow.
    key = next(k for k in _targets(CONV) if k.startswith("%0[2]"))
    text = _resized(CONV, key, 3)
    assert text is not None
    assert "tensor<1x8x6x16xf32> to tensor<1x8x8x18xf32>" in text
    assert "func.func @conv(%arg0: tensor<1x8x6x16xf32>) -> tensor<1x4x3x8xf32>" in text
    assert _compiles(iree_compile, text, tmp_path, *CPU)


def test_a_class_of_channels_moves_input_weight_and_nothing_grows():
    targets = _targets(CONV)
    group = next(k for k in targets if k.startswith("size 8"))  # channels and both output spatial dims
    text = _resized(CONV, group, 1)
    assert "func.func @conv(%arg0: tensor<1x1x2x2xf32>) -> tensor<1x4x1x1xf32>" in text
    assert "dense<1.000000e+00> : tensor<4x1x3x3xf32>" in text
    assert _resized(CONV, group, 8) is None  # not smaller: no candidate


def test_matmul_k_moves_on_both_operands_the_constant_becomes_a_splat_and_slices_follow():
    targets = _targets(MATMUL)
    assert targets == {"%arg0[0]": 6, "%arg0[1]": 5, "%cst_0[1]": 3}  # M, K, N: each one class
    k = _resized(MATMUL, "%arg0[1]", 2)
    assert "dense<2.000000e+00> : tensor<2x3xf32>" in k  # the first element, as a splat
    assert "linalg.matmul ins(%arg0, %cst_0 : tensor<6x2xf32>, tensor<2x3xf32>)" in k
    m = _resized(MATMUL, "%arg0[0]", 3)
    assert "func.func @mm(%arg0: tensor<3x5xf32>) -> tensor<6x3xf32>" in m  # the concat is 3 + 3
    assert "[1, 0] [1, 3] [1, 1] : tensor<3x3xf32> to tensor<1x3xf32>" in m  # the slice keeps its offset
    assert _resized(MATMUL, "%arg0[0]", 1) is None  # the slice at offset 1 needs two rows


def test_a_resource_constant_becomes_a_zero_splat_of_the_new_shape():
    text = """
func.func @f(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %c = arith.constant dense_resource<blob> : tensor<4x3xf32>
  %0 = arith.addf %a, %c : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000000080BF000080BF000080BF000080BF000080BF000080BF000080BF000080BF000080BF000080BF000080BF000080BF"
    }
  }
#-}
"""
    resized = _resized(text, "%arg0[0]", 2)
    assert "%cst = arith.constant dense<0.000000e+00> : tensor<2x3xf32>" in resized
    assert "func.func @f(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32>" in resized


def test_an_op_without_a_shape_rule_keeps_its_dims_and_is_named():
    targets = _targets(RESHAPED)
    assert list(targets) == ["%arg0[1]"]  # K only: M and N feed the reshape
    shapes, kept = mlir_shapes.summaries(RESHAPED)
    assert shapes == "6x32, 32x10, 1"
    assert kept == "tensor.reshape (no shape rule): 3 dims"


def test_torch_ir_is_left_to_the_onnx_lift():
    text = "func.func @f(%a: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {\n return %a : !torch.vtensor<[2,3],f32>\n}"
    assert _targets(text) == {}
    assert mlir_shapes.summaries(text) == ("", "")


@pytest.fixture(scope="module")
def matmul_dispatch(tmp_path_factory, iree_compile) -> str:
    """A matmul + bias dispatch dumped by the real compiler as a standalone hal.executable."""
    tmp = tmp_path_factory.mktemp("dispatch")
    src = tmp / "mm.mlir"
    src.write_text("""
func.func @mm(%a: tensor<16x24xf32>, %b: tensor<24x8xf32>, %bias: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x24xf32>, tensor<24x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = arith.addf %mm, %bias : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
""")
    dump = tmp / "sources"
    subprocess.run([iree_compile, *CPU, str(src), "-o", str(tmp / "mm.vmfb"), f"--iree-hal-dump-executable-sources-to={dump}"], check=True)
    (source,) = dump.glob("*.mlir")
    return source.read_text()


def test_a_dispatch_alone_shrinks_its_bindings_loads_and_stores_and_still_compiles(matmul_dispatch, tmp_path, iree_compile):
    targets = _targets(matmul_dispatch)
    assert sorted(targets.values()) == [8, 16, 24]  # M, N, K of the dispatch
    key = next(k for k, v in targets.items() if v == 24)
    text = _resized(matmul_dispatch, key, 5)
    assert text is not None
    assert "!iree_tensor_ext.dispatch.tensor<readonly:tensor<16x5xf32>>" in text
    assert "sizes = [16, 5]" in text and "sizes = [5, 8]" in text
    assert _compiles(iree_compile, text, tmp_path, "--compile-mode=hal-executable")


def test_dim_system_keeps_a_stride_relation_exact_and_fixes_what_has_no_unit_pivot():
    system = DimSystem()
    inp, out, kernel = system.add_place(18), system.add_place(8), system.add_place(3)
    system.tie([(inp, 1), (out, -2), (kernel, -1)])  # input = 2 * output + kernel + slack
    assert system.free() == [out, kernel]
    assert system.evaluate({out: 3}) == [8, 3, 3]
    a, b = system.add_place(4), system.add_place(6)
    system.tie([(a, 3), (b, -2)])  # 3a = 2b: no unit pivot, both keep their sizes
    assert a not in system.free() and b not in system.free()
    grows = system.add_place(10)
    system.tie([(grows, 1), (out, 1)])  # grows = 18 - out: lowering out would grow it
    assert not system.only_shrinks([out])


def _maxpool(spatial: int, kernel: int = 3) -> onnx.ModelProto:
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[kernel, kernel])
    out = spatial - kernel + 1
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, spatial, spatial])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, out, out])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_onnx_shapes_never_shrink_a_pool_input_below_its_window():
    model = _maxpool(6)
    spatial = next(d for d in dimensions(model) if d.value == 6)
    assert resize(model, spatial, 2) is None  # a 2x2 input, a 3x3 window, a 0x0 output
    kept = resize(model, spatial, 3)
    assert kept is not None and not onnx_model_sites(kept)


def test_onnx_degenerate_site_of_the_original_may_stay():
    model = _maxpool(2)  # already degenerate: 2x2 input, 3x3 window
    assert onnx_model_sites(model)
    channels = next(d for d in dimensions(model) if d.value == 2 and d.places == (("x", 1),))
    assert resize(model, channels, 1) is not None  # shrinking the channels adds no new site


def test_mlir_zero_sized_results_are_degenerate():
    ctx = irx.new_context()
    module = irx.parse("func.func @f() -> tensor<2x0xf32> {\n %e = tensor.empty() : tensor<2x0xf32>\n return %e : tensor<2x0xf32>\n}", ctx)
    assert mlir_sites(module) == {"tensor.empty #1: a zero-sized dim"}


K_THRESHOLD_SCRIPT = r'''#!/usr/bin/env python3
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"linalg.matmul ins\(\S+, \S+ : tensor<(\d+)x(\d+)xf32>", text)
sys.exit(0 if m and int(m.group(2)) >= 20 else 1)
'''


def test_reduce_shrinks_linalg_dims_to_the_locally_minimal_size(tmp_path, capsys):
    """A failure that needs K >= 20: K ends at 20, M and N at 1, and the summary shows the shapes."""
    from reducer.cli import main

    script = tmp_path / "k.py"
    script.write_text(K_THRESHOLD_SCRIPT)
    src = tmp_path / "mm.mlir"
    src.write_text(RESHAPED.replace("%r = tensor.reshape %mm(%shape) : (tensor<6x10xf32>, tensor<1xi64>) -> tensor<60xf32>", "")
                   .replace("return %r : tensor<60xf32>", "return %mm : tensor<6x10xf32>").replace("-> tensor<60xf32>", "-> tensor<6x10xf32>"))
    assert main([str(src), "--oracle=script", "--cmd", f"python3 {script} {{}}", "--passes", "shrink-linalg-shapes",
                 "--shrink-threshold", "0"]) == 0  # every step taken: the locally minimal size
    reduced = (tmp_path / "mm.reduced.mlir").read_text()
    assert re.search(r"linalg.matmul ins\(\S+, \S+ : tensor<1x20xf32>, tensor<20x1xf32>\)", reduced)
    out = capsys.readouterr().out
    assert "shapes        6x32, 32x10, 1\n             -> 1x20, 20x1, 1" in out
    assert "shapes kept" not in out


def test_the_op_that_kept_dims_is_named_in_the_summary_and_the_json(tmp_path, capsys):
    import json

    from reducer.cli import main

    script = tmp_path / "k.py"
    script.write_text(K_THRESHOLD_SCRIPT)
    src = tmp_path / "mm.mlir"
    src.write_text(RESHAPED)
    args = [str(src), "--oracle=script", "--cmd", f"python3 {script} {{}}", "--passes", "shrink-linalg-shapes", "-q",
            "--shrink-threshold", "0"]
    assert main(args) == 0
    assert "shapes kept   by tensor.reshape (no shape rule): 3 dims" in capsys.readouterr().out
    assert main([*args, "--json", "-o", str(tmp_path / "again.mlir")]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["reduced"]["shapes_kept_by"] == "tensor.reshape (no shape rule): 3 dims"
    assert [s["dims"] for s in record["reduced"]["shapes"]] == [[6, 20], [20, 10], [1]]
