"""Property tests of the fuzzer's generation half: specs, models, inputs, the reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from fuzz.build import (
    NUMPY_DTYPES,
    build_model,
    describe,
    make_inputs,
    reference_outputs,
    validate,
)
from fuzz.dynamic_sizes import static_model_at
from fuzz.generation.draw import graph_specs, spec_for_seed
from fuzz.generation.features import ALL_FEATURES
from fuzz.generation.ranges import MAX_ELEMS
from fuzz.spec import Const, GraphSpec, Node, Tensor, used_features

_NP = NUMPY_DTYPES
_SETTINGS = settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(spec=graph_specs(), seed=st.integers(0, 2**32 - 1))
def test_every_spec_builds_a_valid_model_the_reference_evaluates(spec: GraphSpec, seed: int) -> None:
    model = build_model(spec)
    inferred = validate(model)  # full checker + strict shape inference against every declared type
    if spec.dynamic is not None:  # symbolic there: the spec's shapes are the model at its first size
        inferred = static_model_at(model, spec.dynamic.symbol, spec.dynamic.sizes[0])
    declared = {vi.name: vi.type for vi in (*inferred.graph.value_info, *inferred.graph.output)}
    for node in spec.nodes:
        shape = declared[node.output].tensor_type.shape
        assert tuple(d.dim_value for d in shape.dim) == node.shape, node

    for tensor in (*spec.inputs, *spec.consts, *spec.nodes):
        assert np.prod(tensor.shape, dtype=np.int64) <= MAX_ELEMS, tensor

    again = GraphSpec.from_json(spec.to_json())
    assert again == spec
    assert build_model(again).SerializeToString() == model.SerializeToString()

    inputs = make_inputs(spec, seed)
    for t in spec.inputs:
        assert inputs[t.name].dtype == _NP[t.dtype] and inputs[t.name].shape == t.shape
        assert t.low <= inputs[t.name].min(initial=t.low) and inputs[t.name].max(initial=t.high) <= t.high
    outputs = reference_outputs(model, inputs)
    assert len(outputs) == len(spec.outputs)
    for name, out in zip(spec.outputs, outputs):
        assert out.shape == spec.shape_of(name) and out.dtype == _NP[spec.dtype_of(name)], name
        if out.dtype.kind == "f":
            assert np.isfinite(out).all(), name
            assert np.abs(out.astype(np.float64)).max(initial=0) < 2**24, name  # inside float32's exact-integer range

    text = describe(spec)
    assert text and "\n" not in text


def test_spec_for_seed_is_deterministic_and_diverse() -> None:
    specs = [spec_for_seed(s) for s in range(200)]
    assert len({s.to_json() for s in specs}) >= 150
    assert all(spec_for_seed(s) == specs[s] for s in range(0, 200, 7))
    assert all(np.array_equal(a, b) for a, b in zip(make_inputs(specs[3], 9).values(), make_inputs(specs[3], 9).values()))


def test_spec_for_seed_is_the_same_in_a_fresh_process() -> None:
    """No dependence on set or dict order or other per-process state (different hash seed)."""
    code = "import sys; from fuzz.generation.draw import spec_for_seed; print('\\n'.join(spec_for_seed(s).to_json() for s in range(20)))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=root).stdout
    assert out.splitlines() == [spec_for_seed(s).to_json() for s in range(20)]


def test_reference_quantize_linear_rounds_half_to_even() -> None:
    """Measured: onnx.reference rounds ties to even (np.rint) before adding the zero point."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5], np.float32)
    for opset in (21, 23):
        for dtype, zp, expected in ((TensorProto.INT8, 0, [0, 2, 2, 0, -2, -2, 4]), (TensorProto.UINT8, 10, [10, 12, 12, 10, 8, 8, 14])):
            graph = helper.make_graph(
                [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
                "g",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [7])],
                [helper.make_tensor_value_info("y", dtype, [7])],
                initializer=[helper.make_tensor("s", TensorProto.FLOAT, [], [1.0]), helper.make_tensor("z", dtype, [], [zp])],
            )
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
            (y,) = ReferenceEvaluator(model).run(None, {"x": x})
            assert y.tolist() == expected, (opset, dtype)


def _qlinear_matmul_tie(zero_point: int) -> onnx.ModelProto:
    """1x1 @ 1x1 with a*b = 1 and a_scale*b_scale/y_scale = 1/2: the scaled result is exactly 0.5."""
    init = [
        helper.make_tensor("as", TensorProto.FLOAT, [], [1.0]), helper.make_tensor("az", TensorProto.UINT8, [], [0]),
        helper.make_tensor("b", TensorProto.UINT8, [1, 1], [1]), helper.make_tensor("bs", TensorProto.FLOAT, [], [0.5]),
        helper.make_tensor("bz", TensorProto.UINT8, [], [0]), helper.make_tensor("ys", TensorProto.FLOAT, [], [1.0]),
        helper.make_tensor("yz", TensorProto.UINT8, [], [zero_point]),
    ]  # fmt: skip
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 1])], initializer=init)  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_reference_qlinear_rounds_before_adding_the_zero_point() -> None:
    """Spec: y = saturate(round_half_even(x / y_scale) + y_zero_point). onnx 1.23's stock
    QLinearMatMul/QLinearConv add the zero point first (round(0.5 + 1) = 2); ours gives 0 + 1."""
    a = {"a": np.array([[1]], np.uint8)}
    assert reference_outputs(_qlinear_matmul_tie(1), a)[0].item() == 1
    assert reference_outputs(_qlinear_matmul_tie(1), a, stock=True)[0].item() == 2  # the stock discrepancy
    assert reference_outputs(_qlinear_matmul_tie(2), a)[0].item() == 2 == reference_outputs(_qlinear_matmul_tie(2), a, stock=True)[0].item()


def test_patched_reference_agrees_with_stock_away_from_qlinear_ties() -> None:
    """The overrides change rounding only: on generated QLinear graphs the two references differ by at
    most one quantum of the output (before any dequantization), and are identical on everything else."""
    checked = 0
    for s in range(300):
        spec = spec_for_seed(s)
        if not any(n.op in ("QLinearConv", "QLinearMatMul") for n in spec.nodes) or checked >= 12:
            continue
        model, inputs = build_model(spec), make_inputs(spec, s)
        ours, stock = reference_outputs(model, inputs), reference_outputs(model, inputs, stock=True)
        for name, a, b in zip(spec.outputs, ours, stock):
            if spec.producer(name).op in ("QLinearConv", "QLinearMatMul"):
                assert np.abs(a.astype(np.int64) - b.astype(np.int64)).max(initial=0) <= 1
        checked += 1
    assert checked == 12


# used feature -> the enabled features that may produce it (swarm discipline)
_REQUIRES = {
    "conv": {"conv", "qdq_conv"},
    "matmul": {"matmul", "batch_matmul", "qdq_matmul"},
    "gemm": {"gemm"},
    "qlinear_conv": {"qlinear_conv"},
    "qlinear_matmul": {"qlinear_matmul"},
    "conv_integer": {"conv_integer"},
    "matmul_integer": {"matmul_integer"},
    "qdq_conv": {"qdq_conv"},
    "qdq_matmul": {"qdq_matmul"},
    "batch_matmul": {"batch_matmul", "chain"},
    "conv1d": {"conv1d", "chain"},
    "stride": {"stride"},
    "dilation": {"dilation"},
    "asym_pads": {"asym_pads"},
    "splat_weights": {"splat_weights"},
    "dynamic_weights": {"dynamic_weights"},
    "transpose": {"transpose"},
    "per_axis": {"per_axis"},
    "chain": {"chain"},
    "bias": {"bias"},
    "relu": {"relu"},
    "clip": {"clip"},
    "branch_add": {"branch_add"},
    "f16": {"f16"},
    "bf16": {"bf16"},
    "f8": {"f8"},
    "int4": {"int4"},
    "dynamic": {"dynamic"},
}


def test_every_feature_family_appears_and_only_when_enabled() -> None:
    seen: set[str] = set()
    for s in range(400):
        spec = spec_for_seed(s)
        used = used_features(spec)
        for feature, enablers in _REQUIRES.items():
            if feature in used:
                assert spec.features & enablers, (s, feature, describe(spec))
        seen |= used
    expected = set(ALL_FEATURES) | {"conv2d", "per_tensor", "nonzero_zp"} | {f"opset{v}" for v in range(17, 24)}
    assert expected - seen == set()


def test_describe_example() -> None:
    spec = GraphSpec(
        opset=21,
        features=frozenset({"conv", "groups", "stride", "asym_pads", "relu", "awkward_dims"}),
        inputs=(Tensor("x", "float32", (1, 8, 17, 17)),),
        consts=(Const("w", "float32", (8, 2, 3, 3), "random", low=-2, high=2, seed=1),),
        nodes=(
            Node("Conv", ("x", "w"), "y", "float32", (1, 8, 8, 8), (("kernel_shape", (3, 3)), ("group", 4), ("strides", (2, 2)), ("pads", (0, 1, 1, 0)))),
            Node("Relu", ("y",), "z", "float32", (1, 8, 8, 8), (), "relu"),
        ),
        outputs=("z",),
    )
    assert describe(spec) == "conv2d g=4 k=3x3 s=2 pads=(0,1,1,0) 1x8x17x17->8 -> relu  [opset 21]"
    model = build_model(spec)
    validate(model)
    (out,) = reference_outputs(model, make_inputs(spec, 0))
    assert out.shape == (1, 8, 8, 8) and (out >= 0).all() and np.array_equal(out, np.round(out))


def test_strict_inference_rejects_a_wrong_declared_shape() -> None:
    """The guard the property test relies on: a mis-computed shape in a spec fails validation."""
    spec = GraphSpec.from_json(json.dumps({
        "version": 1, "opset": 17, "features": ["matmul"],
        "inputs": [["a", "float32", [4, 8], -2, 2]],
        "consts": [["b", "float32", [8, 3], "splat", [1.0], 0, 0, 0]],
        "nodes": [["MatMul", ["a", "b"], "y", "float32", [4, 5], [], "main"]],
        "outputs": ["y"],
    }))  # fmt: skip
    with pytest.raises((onnx.checker.ValidationError, onnx.shape_inference.InferenceError)):
        validate(build_model(spec))
