"""Frozen, JSON-round-trippable descriptions of the small ONNX graphs the fuzzer generates.

A `GraphSpec` fully determines a model (`fuzz.build.build_model`): graph inputs with their value
ranges, initializers (explicit values, a splat, or seeded random integers), single-output nodes with
their declared output shape and dtype, the opset, and the swarm feature subset the case was drawn
under. A finding stores `spec.to_json()` and replays it with `GraphSpec.from_json()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FORMAT_VERSION = 1
HALF = ("float16", "bfloat16")  # half-precision contractions (Casts around them)
FLOAT8 = ("float8e4m3fn", "float8e5m2", "float8e4m3fnuz", "float8e5m2fnuz")  # f8 QuantizeLinear (opset 19+)
INT4 = ("int4", "uint4")  # int4 weights through DequantizeLinear (opset 21+)
CAST_TO = {"float32": 1, "float16": 10, "bfloat16": 16}  # onnx.TensorProto element types a Cast goes to
Attr = tuple[str, Any]  # value: int, float, or tuple of ints


@dataclass(frozen=True)
class Tensor:
    """A graph input; `make_inputs` fills it with integers drawn uniformly from [low, high]."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    low: int = -2
    high: int = 2


@dataclass(frozen=True)
class Const:
    """An initializer. fill "values": `values` in row-major order; "splat": `values[0]` everywhere;
    "random": integers uniform in [low, high] from `numpy.random.default_rng(seed)`."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    fill: str
    values: tuple[float, ...] = ()
    low: int = 0
    high: int = 0
    seed: int = 0


@dataclass(frozen=True)
class Node:
    """One single-output ONNX node; `shape`/`dtype` are its output's, declared in the model.

    `role` says what the node is for ("main", "bias", "relu", "clip", "add", "q", "dq", "rescale"),
    which `describe` and `used_features` read; "" in an input list is an omitted optional input."""

    op: str
    inputs: tuple[str, ...]
    output: str
    dtype: str
    shape: tuple[int, ...]
    attrs: tuple[Attr, ...] = ()
    role: str = "main"

    def attr(self, key: str, default: Any = None) -> Any:
        return dict(self.attrs).get(key, default)


@dataclass(frozen=True)
class DynamicDim:
    """A symbolic input dimension (`dim_param`): the model is compiled once with `?` there and run
    at each of `sizes`. `places` are the graph inputs' (name, axis) that carry it; the spec's own
    static shapes are the model at `sizes[0]`."""

    symbol: str
    places: tuple[tuple[str, int], ...]
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class GraphSpec:
    opset: int
    features: frozenset[str]
    inputs: tuple[Tensor, ...]
    consts: tuple[Const, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[str, ...]
    dynamic: DynamicDim | None = None
    _index: dict = field(default=None, init=False, repr=False, compare=False, hash=False)  # type: ignore[assignment]

    def shape_of(self, name: str) -> tuple[int, ...]:
        return self._lookup()[name][0]

    def dtype_of(self, name: str) -> str:
        return self._lookup()[name][1]

    def producer(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.output == name), None)

    def const(self, name: str) -> Const | None:
        return next((c for c in self.consts if c.name == name), None)

    def _lookup(self) -> dict[str, tuple[tuple[int, ...], str]]:
        if self._index is None:
            index = {t.name: (t.shape, t.dtype) for t in (*self.inputs, *self.consts)}
            index.update({n.output: (n.shape, n.dtype) for n in self.nodes})
            object.__setattr__(self, "_index", index)
        return self._index

    def to_json(self) -> str:
        def attrs(node: Node) -> list:
            return [[k, list(v) if isinstance(v, tuple) else v] for k, v in node.attrs]

        doc = {
            "version": FORMAT_VERSION,
            "opset": self.opset,
            "features": sorted(self.features),
            "inputs": [[t.name, t.dtype, list(t.shape), t.low, t.high] for t in self.inputs],
            "consts": [[c.name, c.dtype, list(c.shape), c.fill, list(c.values), c.low, c.high, c.seed] for c in self.consts],
            "nodes": [[n.op, list(n.inputs), n.output, n.dtype, list(n.shape), attrs(n), n.role] for n in self.nodes],
            "outputs": list(self.outputs),
        }
        if self.dynamic is not None:  # absent in static specs: older spec JSON reads unchanged
            d = self.dynamic
            doc["dynamic"] = [d.symbol, [list(p) for p in d.places], list(d.sizes)]
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GraphSpec:
        doc = json.loads(text)
        if doc.get("version") != FORMAT_VERSION:
            raise ValueError(f"unsupported GraphSpec format version {doc.get('version')!r}")
        return cls(
            opset=doc["opset"],
            features=frozenset(doc["features"]),
            inputs=tuple(Tensor(n, d, tuple(s), lo, hi) for n, d, s, lo, hi in doc["inputs"]),
            consts=tuple(Const(n, d, tuple(s), f, tuple(v), lo, hi, sd) for n, d, s, f, v, lo, hi, sd in doc["consts"]),
            nodes=tuple(
                Node(op, tuple(ins), out, d, tuple(s), tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in a), r)
                for op, ins, out, d, s, a, r in doc["nodes"]
            ),
            outputs=tuple(doc["outputs"]),
            dynamic=_dynamic_from(doc.get("dynamic")),
        )


def _dynamic_from(value: list | None) -> DynamicDim | None:
    if value is None:
        return None
    symbol, places, sizes = value
    return DynamicDim(symbol, tuple((name, axis) for name, axis in places), tuple(sizes))


_TILE_NEIGHBOURS = {15, 17, 31, 33, 63, 65, 127, 129}
_PRIMES = {2, 3, 5, 7, 11, 13, 17, 31, 127}


_CONV_OPS = {"Conv": "conv", "QLinearConv": "qlinear_conv", "ConvInteger": "conv_integer"}
_MATMUL_OPS = {"MatMul": "matmul", "Gemm": "gemm", "QLinearMatMul": "qlinear_matmul", "MatMulInteger": "matmul_integer"}
_EPILOGUE_ROLES = {"bias": "bias", "relu": "relu", "clip": "clip", "add": "branch_add", "rescale": "rescale"}


def used_features(spec: GraphSpec) -> frozenset[str]:
    """What the spec's nodes actually exercise (as opposed to `spec.features`, what was enabled)."""
    used: set[str] = {f"opset{spec.opset}"}
    for node in spec.nodes:
        used |= _node_features(spec, node)
    used |= _type_features(spec)
    if spec.dynamic is not None:
        used.add("dynamic")
    if sum(n.role == "main" for n in spec.nodes) > 1:
        used.add("chain")
    return frozenset(used | _size_features(spec))


def _node_features(spec: GraphSpec, node: Node) -> set[str]:
    used: set[str] = set()
    if node.role in _EPILOGUE_ROLES:
        used.add(_EPILOGUE_ROLES[node.role])
    if node.op in _CONV_OPS:
        used |= _conv_features(spec, node)
    elif node.op in _MATMUL_OPS:
        used |= _matmul_features(spec, node)
    elif node.op in ("QuantizeLinear", "DequantizeLinear"):
        used |= _quantization_features(spec, node)
    elif node.op == "Add" and node.role == "add" and spec.shape_of(node.inputs[1]) != node.shape:
        used.add("broadcast")
    return used


def _conv_features(spec: GraphSpec, node: Node) -> set[str]:
    op = node.op
    w = spec.shape_of(node.inputs[1 if op != "QLinearConv" else 3])
    x = spec.shape_of(node.inputs[0])
    kernel, g = w[2:], node.attr("group", 1)
    used = {_CONV_OPS[op], f"conv{len(kernel)}d"}
    if g > 1:
        used.add("depthwise" if g == x[1] else "groups")
    if any(s > 1 for s in node.attr("strides", ())):
        used.add("stride")
    if any(d > 1 for d in node.attr("dilations", ())):
        used.add("dilation")
    pads = node.attr("pads", ())
    if any(p != q for p, q in zip(pads[: len(kernel)], pads[len(kernel):])):
        used.add("asym_pads")
    if all(k == 1 for k in kernel):
        used.add("kernel_1x1")
    if any(k == s and k > 1 for k, s in zip(kernel, x[2:])):
        used.add("kernel_full")
    if op == "Conv" and node.role == "main":
        if _dequantized(spec, node.inputs[1]):
            used.add("qdq_conv")
        if spec.const(node.inputs[1]) and spec.const(node.inputs[1]).fill == "splat":
            used.add("splat_weights")
    return used


def _matmul_features(spec: GraphSpec, node: Node) -> set[str]:
    op = node.op
    a = spec.shape_of(node.inputs[0])
    b = spec.shape_of(node.inputs[3 if op == "QLinearMatMul" else 1])
    used = {_MATMUL_OPS[op]}
    if max(len(a), len(b)) > 2:
        used.add("batch_matmul")
        if a[:-2] != b[:-2]:
            used.add("broadcast")
    if len(a) == 1 or len(b) == 1 or 1 in node.shape[-2:] or (len(a) >= 1 and a[-1] == 1):
        used.add("vector")
    if op == "Gemm":
        if node.attr("transA", 0) or node.attr("transB", 0):
            used.add("transpose")
        if len(node.inputs) > 2 and spec.shape_of(node.inputs[2]) != node.shape:
            used.add("broadcast")
    if op == "MatMul" and node.role == "main" and _dequantized(spec, node.inputs[1]):
        used.add("qdq_matmul")
    weight = spec.const(node.inputs[1])
    if op in ("MatMul", "Gemm") and weight is None and not spec.producer(node.inputs[1]):
        used.add("dynamic_weights")
    if op in ("MatMul", "Gemm") and weight is not None and weight.fill == "splat":
        used.add("splat_weights")
    return used


def _dequantized(spec: GraphSpec, name: str) -> bool:
    """Whether `name` comes out of a DequantizeLinear (a QDQ block's weight)."""
    producer = spec.producer(name)
    return producer is not None and producer.op == "DequantizeLinear"


def _quantization_features(spec: GraphSpec, node: Node) -> set[str]:
    scale = spec.shape_of(node.inputs[1])
    used = {"quant", "per_axis" if scale and scale[0] > 1 else "per_tensor"}
    zp = spec.const(node.inputs[2]) if len(node.inputs) > 2 else None
    if zp is not None and any(v != 0 for v in zp.values):
        used.add("nonzero_zp")
    return used


def _type_features(spec: GraphSpec) -> set[str]:
    """The element-type features: a half, f8 or int4 value anywhere, a uint8 activation or output."""
    dtypes = {n.dtype for n in spec.nodes} | {t.dtype for t in (*spec.inputs, *spec.consts)}
    used = {f for f, types in (("f16", {"float16"}), ("bf16", {"bfloat16"}), ("f8", set(FLOAT8)), ("int4", set(INT4))) if dtypes & types}
    if any(n.dtype == "uint8" and n.op in ("QuantizeLinear", "QLinearConv", "QLinearMatMul") for n in spec.nodes) or any(
        t.dtype == "uint8" for t in spec.inputs
    ):
        used.add("uint8")
    return used


def _size_features(spec: GraphSpec) -> set[str]:
    """The size features: awkward dims, large channels, and long-and-thin (aspect) shapes."""
    used: set[str] = set()
    shapes = [t.shape for t in spec.inputs] + [n.shape for n in spec.nodes]
    dims = {d for s in shapes for d in s}
    if dims & (_TILE_NEIGHBOURS | {55, 56, 112} | (_PRIMES - {2, 3})):
        used.add("awkward_dims")
    if any(n.op in _CONV_OPS and max(n.shape[1], spec.shape_of(n.inputs[0])[1]) >= 256 for n in spec.nodes) or any(
        n.op in ("MatMul", "Gemm") and n.shape and n.shape[-1] >= 1024 for n in spec.nodes
    ):
        used.add("large_channels")
    if any(len(s) >= 2 and min(s[-2:]) <= 2 and max(s[-2:]) >= 256 for s in shapes):
        used.add("aspect")
    return used
