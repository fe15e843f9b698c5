"""The generator's newer element types and dynamic dimensions, without the compiler: models are
valid, exact where the type allows, and a dynamic model runs at each of its sizes."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import onnx
import pytest

from fuzz.build import build_model, make_inputs, reference_outputs, validate
from fuzz.dynamic import dynamic_axes
from fuzz.dynamic_sizes import make_dynamic, static_model_at
from fuzz.generation.draw import spec_for_seed
from fuzz.spec import FLOAT8, HALF, INT4, Const, GraphSpec, Node, Tensor, used_features

SEEDS = range(600)


def _widened(spec: GraphSpec) -> GraphSpec:
    """The same graph in float32 (Casts cast to float32): the exact answer of a half graph."""

    def wide(dtype: str) -> str:
        return "float32" if dtype in HALF else dtype

    nodes = tuple(dataclasses.replace(n, dtype=wide(n.dtype), attrs=tuple((k, 1 if k == "to" else v) for k, v in n.attrs)) for n in spec.nodes)
    return dataclasses.replace(
        spec,
        inputs=tuple(dataclasses.replace(t, dtype=wide(t.dtype)) for t in spec.inputs),
        consts=tuple(dataclasses.replace(c, dtype=wide(c.dtype)) for c in spec.consts),
        nodes=nodes,
    )


def test_half_precision_cases_are_exact_in_their_type() -> None:
    """Every f16 / bf16 contraction the generator draws gives, in its type, the float32 answer:
    its values and reduction length keep every partial sum an integer the type holds."""
    checked = set()
    for seed in SEEDS:
        spec = spec_for_seed(seed)
        halves = {n.dtype for n in spec.nodes if n.dtype in HALF and n.role in ("main", "sibling")}
        if not halves:
            continue
        checked |= halves
        inputs = make_inputs(spec, seed)
        ours = reference_outputs(build_model(spec), inputs)
        exact = reference_outputs(build_model(_widened(spec)), {k: v.astype(np.float32) if v.dtype.kind == "f" else v for k, v in inputs.items()})
        for a, b in zip(ours, exact):
            assert np.array_equal(a.astype(np.float64), b.astype(np.float64)), (seed, spec.to_json())
    assert checked == set(HALF)


def test_f8_quantization_and_int4_weights_build_valid_models() -> None:
    seen = set()
    for seed in SEEDS:
        spec = spec_for_seed(seed)
        used = used_features(spec)
        types = {n.dtype for n in spec.nodes} | {c.dtype for c in spec.consts}
        if "f8" in used:
            assert types & set(FLOAT8) and spec.opset >= 19
            assert any(n.op == "QuantizeLinear" and n.dtype in FLOAT8 for n in spec.nodes)
        if "int4" in used:
            assert spec.opset >= 21 and any(c.dtype in INT4 for c in spec.consts)
            weight = next(c for c in spec.consts if c.dtype in INT4)
            assert any(n.op == "DequantizeLinear" and n.inputs[0] == weight.name for n in spec.nodes)
        if used & {"f8", "int4"}:
            validate(build_model(spec))
            seen |= used & {"f8", "int4"}
    assert seen == {"f8", "int4"}


def test_f8_quantize_rounds_half_to_even_in_the_reference() -> None:
    """The reference is the spec: x / scale rounded to the nearest f8 value, ties to even (17 and
    19 are ties in e4m3fn, between 16, 18 and 20), saturating at the type's largest value."""
    spec = GraphSpec(
        opset=21,
        features=frozenset({"quant", "f8"}),
        inputs=(Tensor("x", "float32", (5,)),),
        consts=(Const("s", "float32", (), "values", (1.0,)), Const("z", "float8e4m3fn", (), "values", (0.0,))),
        nodes=(
            Node("QuantizeLinear", ("x", "s", "z"), "q", "float8e4m3fn", (5,), role="main"),
            Node("DequantizeLinear", ("q", "s", "z"), "y", "float32", (5,), role="dq"),
        ),
        outputs=("y",),
    )
    model = build_model(spec)
    validate(model)
    (y,) = reference_outputs(model, {"x": np.array([17, 19, -17, 1000, 3], np.float32)})
    assert y.tolist() == [16, 20, -16, float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max), 3]


def _dynamic_specs() -> list[GraphSpec]:
    return [spec for spec in map(spec_for_seed, SEEDS) if spec.dynamic is not None]


def test_dynamic_models_declare_the_symbol_and_run_at_every_size() -> None:
    specs = _dynamic_specs()
    assert len(specs) >= 50
    symbols = set()
    for spec in specs:
        dim = spec.dynamic
        symbols.add(dim.symbol)
        model = build_model(spec)
        validate(model)
        declared = {v.name: v for v in model.graph.input}
        for name, axis in dim.places:
            assert declared[name].type.tensor_type.shape.dim[axis].dim_param == dim.symbol
        assert len(dim.sizes) >= 2 and len(set(dim.sizes)) == len(dim.sizes)
        for size in dim.sizes:
            static = static_model_at(model, dim.symbol, size)
            outputs = reference_outputs(model, make_inputs(spec, 1, size))
            for value, out in zip(static.graph.output, outputs):
                assert out.shape == tuple(d.dim_value for d in value.type.tensor_type.shape.dim), (spec.to_json(), size)
    assert {"N", "M", "W"} <= symbols


def test_sizes_are_awkward_and_the_first_is_the_specs_own() -> None:
    for spec in _dynamic_specs()[:40]:
        (name, axis), *_ = spec.dynamic.places
        assert spec.dynamic.sizes[0] == spec.shape_of(name)[axis]
        assert set(spec.dynamic.sizes[1:]) <= {1, 2, 3, 5, 7, 13, 15, 17, 31, 33, 63, 65}


def _matmul_with_bias(bias_rows: int) -> GraphSpec:
    return GraphSpec(
        opset=21,
        features=frozenset({"gemm", "bias"}),
        inputs=(Tensor("a", "float32", (4, 8)),),
        consts=(Const("b", "float32", (8, 3), "splat", (1.0,)), Const("c", "float32", (bias_rows, 3), "splat", (1.0,))),
        nodes=(Node("Gemm", ("a", "b", "c"), "y", "float32", (4, 3)),),
        outputs=("y",),
    )


def test_a_dimension_that_meets_a_constant_of_its_size_cannot_be_dynamic() -> None:
    """M of a Gemm can be symbolic when its bias broadcasts along M, not when the bias has M rows."""
    assert dynamic_axes(_matmul_with_bias(1), (("a", 0),)) == {"a": {0: "named"}, "y": {0: "named"}}
    assert make_dynamic(_matmul_with_bias(4), lambda options: options[0]) is None
    dynamic = make_dynamic(_matmul_with_bias(1), lambda options: options[0])
    assert dynamic is not None and dynamic.dynamic.symbol == "M" and dynamic.dynamic.sizes[:2] == (4, 1)


def test_older_spec_json_still_reads() -> None:
    spec = spec_for_seed(3)
    doc = spec.to_json()
    assert '"dynamic"' not in doc or spec.dynamic is not None
    assert GraphSpec.from_json(doc) == spec


@pytest.mark.parametrize("seed", [2026006207])
def test_seeds_drawn_before_the_new_features_keep_their_graphs(seed: int) -> None:
    """The corpus names this seed's graph as an original: the newer features draw apart, and a
    dynamic dimension is drawn after the graph, so the graph is the one the seed always had."""
    from fuzz.build import describe

    spec = spec_for_seed(seed)
    assert describe(spec) == "qlinearconv2d k=2x1 2x1x2x16->2 per-channel -> dq(int8)  [opset 23, dynamic W at 16,1,5,15]"
    static = dataclasses.replace(spec, dynamic=None)  # the dynamic dimension is drawn last, on top of the graph
    assert describe(static) == "qlinearconv2d k=2x1 2x1x2x16->2 per-channel -> dq(int8)  [opset 23]"
    assert isinstance(build_model(static), onnx.ModelProto)
