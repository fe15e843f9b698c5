"""The plain-values pass: scales to 1 or powers of two, zero points and data to small integers,
while the wrong answer stays at least as plain."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracles import Candidate, OracleOptions
from oracles.mlir import ir as irx
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.numeric.wrong_answer import decode, primary
from reducer.cli import main
from reducer.passes.cross_format.plain_values import PlainValues
from reducer.passes.support.value_ladders import (
    DATA,
    OUTPUT_SCALE,
    SCALE,
    ZERO_POINT,
    ladder,
    role_of,
)
from reducer.proposal import Proposal


def test_levels_follow_the_value_and_rungs_go_plainest_first():
    scale = ladder(SCALE, np.array(0.0037, np.float32), np.float32, ())
    assert scale.level == 3 and scale.at(1) == 1.0 and scale.at(2) == np.float32(2.0**-8)
    assert ladder(OUTPUT_SCALE, np.array(0.75, np.float32), np.float32, ()).at(2) == 0.5  # rounded down
    assert ladder(SCALE, np.array(0.25, np.float32), np.float32, ()).level == 2
    zero_point = ladder(ZERO_POINT, np.array(131, np.uint8), np.uint8, ())
    assert zero_point.level == 9 and [int(zero_point.at(i)) for i in (1, 2, 3, 8)] == [0, 1, 2, 64]
    assert ladder(ZERO_POINT, np.array(4, np.int8), np.int8, ()).level == 4
    data = ladder(DATA, np.array([200, 7, 0], np.uint8), np.uint8, (3,))
    assert data.level == 5 and data.at(3).tolist() == [1, 1, 0] and data.at(4).tolist() == [0, 2, 0]
    assert ladder(DATA, np.array([3, -2], np.int8), np.int8, (2,)).level == 4
    unknown = ladder(SCALE, None, np.float32, ())  # a dense_resource blob: only rungs that need no value
    assert unknown.level == 3 and unknown.at(2) is None


def test_roles_come_from_where_a_value_is_read():
    assert role_of([("QLinearMatMul", 6)]) == OUTPUT_SCALE
    assert role_of([("QLinearMatMul", 1), ("QuantizeLinear", 1)]) == OUTPUT_SCALE
    assert role_of([("QLinearMatMul", 5)]) == ZERO_POINT
    assert role_of([("MatMul", 1)]) == DATA
    assert role_of([("MatMul", 1), ("Reshape", 1)]) is None  # a shape: structure, not data


def qlinearmatmul(**values) -> onnx.ModelProto:
    """One batched QLinearMatMul (IREE 3.13 drops its zero points) with the values of a real model."""
    rng = np.random.default_rng(5)
    fields = {"as": 0.0391, "az": 3, "b": rng.integers(0, 256, (2, 6, 4)), "bs": 0.0037, "bz": 131, "ys": 0.0625, "yz": 127}
    fields.update(values)
    types = {"as": np.float32, "bs": np.float32, "ys": np.float32}
    initializers = [numpy_helper.from_array(np.asarray(v, types.get(k, np.uint8)), k) for k, v in fields.items()]
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    graph = helper.make_graph(
        [node], "main", [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 3, 6])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 3, 4])], initializers,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def headline(model: onnx.ModelProto):
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate("m", (), ".onnx", model.SerializeToString()))
    assert verdict.interesting, verdict.detail
    return primary(decode(verdict.metrics["wrong"]))


@pytest.mark.nightly  # 35 s; plain values by default: test_torch_onnx_constants_are_edited_in_place, test_passes_that_undo_each_other_end_and_the_budget_holds
def test_a_wrong_qlinearmatmul_gets_plain_values_and_keeps_its_error(tmp_path, iree_compile):
    src = tmp_path / "q.onnx"
    onnx.save(qlinearmatmul(), src)
    before = headline(onnx.load(src))
    assert main([str(src), "--oracle=reference-mismatch", "-j", "2", "-q", "--no-cache", "--passes", "plain-values"]) == 0
    reduced = onnx.load(tmp_path / "q.reduced.onnx")
    values = {t.name: numpy_helper.to_array(t) for t in reduced.graph.initializer}
    for name in ("as", "bs", "ys"):  # every scale is 1 or a power of two
        assert np.log2(values[name]) == np.round(np.log2(values[name])), (name, values[name])
    # a_zero_point 3 -> a rung (0, 1, 2, 4, ... 64); the others stay where a plainer one would
    # make the error fainter (b_zero_point is the bug's own) or saturate the output.
    assert int(values["az"]) in (0, 1, 2, 4, 8, 16, 32, 64)
    original = {t.name: numpy_helper.to_array(t) for t in qlinearmatmul().graph.initializer}
    for name in ("bz", "yz", "b"):
        assert np.array_equal(values[name], original[name]) or values[name].max() <= 64, name
    after = headline(reduced)
    assert after.kind == before.kind and after.fraction >= before.fraction and after.error >= before.error, (before, after)


def test_torch_onnx_constants_are_edited_in_place(tmp_path, iree_compile):
    import subprocess

    from oracles.toolchain.tools import find_tool

    model = tmp_path / "q.onnx"
    onnx.save(qlinearmatmul(), model)
    mlir = tmp_path / "q.mlir"
    subprocess.run([find_tool("iree-import-onnx"), str(model), "-o", str(mlir)], check=True, capture_output=True)
    ctx = irx.new_context()
    current = Proposal(Candidate(mlir.read_text()), 8)
    plain = PlainValues()
    targets = dict(plain.dimensions(current, ctx))
    # dense_resource blobs: levels are unknown (top), rungs that need no value are still there.
    assert sorted(targets.values()) == [3, 3, 3, 5, 9, 9, 9]
    scale = next(key for key, level in targets.items() if level == 3)
    edited = plain.resize(current, scale, 1, ctx, lambda _: None)
    assert edited is not None and "dense<1.000000e+00> : tensor<f32>" in edited.candidate.text
    assert scale not in dict(plain.dimensions(edited, ctx))  # level 1: nothing plainer left
    assert plain.resize(current, scale, 2, ctx, lambda _: None) is None  # a power of two needs the value


def test_passes_that_undo_each_other_end_and_the_budget_holds(tmp_path, iree_compile):
    """Zeroing a scale (onnx-simplify-initializers) and making it 1 again (plain-values) once
    alternated forever on cached verdicts, past --time-budget: a best never comes back."""
    scale = numpy_helper.from_array(np.asarray(0.0391, np.float32), "s")
    zero_point = numpy_helper.from_array(np.asarray(3, np.uint8), "z")
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
             helper.make_node("Add", ["d", "x"], ["y"])]
    graph = helper.make_graph(
        nodes, "main", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 8, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1, 8, 3])], [scale, zero_point],
    )
    src = tmp_path / "fptoui.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), src)
    passes = "onnx-cut-outputs,onnx-simplify-initializers,plain-values"
    argv = [str(src), "--oracle=compile-error", "-q", "--no-cache", "--time-budget", "60", "--passes", passes,
            "--", "--iree-hal-target-backends=vmvx"]
    assert main(argv) == 0  # before: it never returned
    reduced = onnx.load(tmp_path / "fptoui.reduced.onnx")
    assert [n.op_type for n in reduced.graph.node] == ["QuantizeLinear"]  # vmvx's uint8 fptoui
