"""Dynamic dimensions: a graph input dimension made symbolic, where it flows, and the sizes to run.

A case with a `DynamicDim` is compiled once with `?` for the symbol and run at several concrete
sizes (awkward ones: 1, primes, one off a tile). Which values carry the symbol follows from the
ops: batch (N of a conv, the batch of a batched matmul), M of a matmul or gemm and a conv's
spatial dims pass through elementwise ops unchanged (NAMED); a conv's spatial output depends on
it through the conv's arithmetic (DERIVED, declared unknown). A dimension that meets a constant
of its size (a bias along it, a per-axis scale on it) or a reduction cannot be dynamic; another
graph input of the same size at that axis becomes dynamic with it.
"""

from __future__ import annotations

from fuzz.spec import GraphSpec, Node

NAMED, DERIVED = "named", "derived"
# Sizes a dynamic dim is run at: 1, primes, one off a tile (16, 32, 64).
AWKWARD_SIZES = (1, 2, 3, 5, 7, 13, 15, 17, 31, 33, 63, 65)
SYMBOLS = {"conv_batch": "N", "conv_spatial": "W", "matmul_batch": "B", "matmul_m": "M", "gemm_m": "M", "quant": "D"}
_ELEMENTWISE = frozenset({"Add", "Relu", "Clip", "Cast", "QuantizeLinear", "DequantizeLinear"})
CONVS = {"Conv": (0, 1), "ConvInteger": (0, 1), "QLinearConv": (0, 3)}  # (x, w) positions
_MATMULS = {"MatMul": (0, 1), "MatMulInteger": (0, 1), "QLinearMatMul": (0, 3)}
MAX_ELEMS_AT_SIZE = 1 << 19  # any tensor at any size (the generator's own bound is half of it)


class Infeasible(ValueError):
    """The dimension cannot be dynamic in this graph (it meets a constant, a reduction, a scale)."""


Axes = dict[str, dict[int, str]]  # value name -> {axis: NAMED or DERIVED}


def dynamic_axes(spec: GraphSpec, places: tuple[tuple[str, int], ...] | None = None) -> Axes:
    """Every value's dynamic axes; Infeasible when the symbol meets what cannot follow it."""
    axes, missing = propagate(spec, places if places is not None else spec.dynamic.places)  # type: ignore[union-attr]
    if missing:
        raise Infeasible(f"inputs {sorted(missing)} must carry the dimension too")
    return axes


def propagate(spec: GraphSpec, places: tuple[tuple[str, int], ...]) -> tuple[Axes, set[tuple[str, int]]]:
    """(dynamic axes, graph inputs that would have to become dynamic as well)."""
    flow = _Flow(spec, places)
    for node in spec.nodes:
        out = flow.through(node)
        if out:
            flow.axes[node.output] = out
    return flow.axes, flow.missing


class _Flow:
    """The symbol's spread so far: each value's dynamic axes, and the graph inputs that must follow."""

    def __init__(self, spec: GraphSpec, places: tuple[tuple[str, int], ...]) -> None:
        self.spec = spec
        self.inputs = {t.name for t in spec.inputs}
        self.axes: Axes = {}
        for name, axis in places:
            self.axes.setdefault(name, {})[axis] = NAMED
        base = {spec.shape_of(name)[axis] for name, axis in places}
        if len(base) != 1:
            raise Infeasible("places of different sizes")
        self.size = base.pop()
        self.missing: set[tuple[str, int]] = set()

    def through(self, node: Node) -> dict[int, str]:
        """The dynamic axes of `node`'s output; Infeasible where an operand's cannot follow."""
        if node.op in CONVS:
            return self._conv(node)
        if node.op in _MATMULS:
            return self._matmul(node)
        if node.op == "Gemm":
            return self._gemm(node)
        if node.op in _ELEMENTWISE:
            return self._elementwise(node)
        if any(self.axes.get(n) for n in node.inputs if n):
            raise Infeasible(f"{node.op} {node.output}: no rule for a dynamic operand")
        return {}

    def _partner(self, name: str, axis: int) -> None:
        """`name`'s `axis` is aligned with a dynamic axis: it must follow (or broadcast from 1)."""
        if not name or axis in self.axes.get(name, {}):
            return
        dim = self.spec.shape_of(name)[axis]
        if dim == 1 and self.size != 1:
            return  # broadcasts at every size
        if name in self.inputs and dim == self.size:
            self.missing.add((name, axis))
            return
        raise Infeasible(f"{name} axis {axis} ({dim}) meets the dynamic dimension")

    def _conv(self, node: Node) -> dict[int, str]:
        x = node.inputs[CONVS[node.op][0]]
        if any(self.axes.get(name) for i, name in enumerate(node.inputs) if name and name != x):
            raise Infeasible(f"{node.op} {node.output}: a weight or parameter is dynamic")
        out: dict[int, str] = {}
        for axis, mark in self.axes.get(x, {}).items():
            if axis == 1:
                raise Infeasible(f"{node.op} {node.output}: the reduced channel axis")
            out[axis] = mark if axis == 0 else DERIVED
        return out

    def _matmul(self, node: Node) -> dict[int, str]:
        a, b = (node.inputs[i] for i in _MATMULS[node.op])
        ra, rb = len(self.spec.shape_of(a)), len(self.spec.shape_of(b))
        if self.axes.get(b) or any(self.axes.get(n) for n in node.inputs if n not in (a, b, "")):
            raise Infeasible(f"{node.op} {node.output}: the right operand or a parameter is dynamic")
        out: dict[int, str] = {}
        for axis, mark in self.axes.get(a, {}).items():
            if axis == ra - 1 or ra == 1:
                raise Infeasible(f"{node.op} {node.output}: the reduction axis")
            m_out = len(node.shape) - (2 if rb >= 2 else 1)
            if axis == ra - 2:
                out[m_out] = mark
                continue
            offset = ra - 2 - axis  # batch dims counted from the last one
            if rb - 2 - offset >= 0:
                self._partner(b, rb - 2 - offset)
            out[m_out - offset] = mark
        return out

    def _gemm(self, node: Node) -> dict[int, str]:
        a = node.inputs[0]
        m_axis = 1 if node.attr("transA", 0) else 0
        if any(self.axes.get(n) for n in node.inputs[1:] if n):
            raise Infeasible(f"Gemm {node.output}: B or C is dynamic")
        out: dict[int, str] = {}
        for axis, mark in self.axes.get(a, {}).items():
            if axis != m_axis:
                raise Infeasible(f"Gemm {node.output}: the reduction axis")
            out[0] = mark
            if len(node.inputs) > 2 and len(self.spec.shape_of(node.inputs[2])) == 2:
                self._partner(node.inputs[2], 0)
        return out

    def _elementwise(self, node: Node) -> dict[int, str]:
        """Data operands broadcast (numpy's rules); a per-axis parameter may not lie on a dynamic axis."""
        rank = len(node.shape)
        data = [node.inputs[0]] + ([node.inputs[1]] if node.op == "Add" else [])
        out: dict[int, str] = {}
        for name in data:
            shift = rank - len(self.spec.shape_of(name))
            for axis, mark in self.axes.get(name, {}).items():
                out[axis + shift] = mark if out.get(axis + shift, mark) == mark else DERIVED
        per_axis = node.attr("axis")
        quantizing = node.op in ("QuantizeLinear", "DequantizeLinear")
        per_channel = quantizing and per_axis is not None and len(self.spec.shape_of(node.inputs[1])) == 1
        if per_channel and per_axis % rank in out:
            raise Infeasible(f"{node.op} {node.output}: per-axis parameters on the dynamic axis")
        if any(self.axes.get(n) for n in node.inputs[len(data):] if n):
            raise Infeasible(f"{node.op} {node.output}: a parameter is dynamic")
        for name in data:
            shift = rank - len(self.spec.shape_of(name))
            for axis in out:
                if axis - shift >= 0:
                    self._partner(name, axis - shift)
        return out


def dynamic_roots(spec: GraphSpec) -> list[tuple[str, str, int]]:
    """(kind, graph input, axis) where a dimension could become symbolic: the first block's input."""
    inputs = {t.name for t in spec.inputs}
    found = []
    for node in spec.nodes:
        if node.op in CONVS:
            x = node.inputs[CONVS[node.op][0]]
            found += [("conv_batch", x, 0)] + [("conv_spatial", x, a) for a in range(2, len(spec.shape_of(x)))]
        elif node.op in _MATMULS:
            a = node.inputs[_MATMULS[node.op][0]]
            rank = len(spec.shape_of(a))
            if rank >= 2:
                found += [("matmul_m", a, rank - 2)] + [("matmul_batch", a, i) for i in range(rank - 2)]
        elif node.op == "Gemm":
            found.append(("gemm_m", node.inputs[0], 1 if node.attr("transA", 0) else 0))
        elif node.op == "QuantizeLinear" and node.role == "main":
            found += [("quant", node.inputs[0], a) for a in range(len(node.shape))]
        else:
            continue
        break  # the first block's main op only
    # Follow the chain back to a graph input through Q/DQ and Casts (same shape).
    resolved = []
    for kind, name, axis in found:
        while name not in inputs:
            producer = spec.producer(name)
            if producer is None or producer.op not in _ELEMENTWISE:
                break
            name = producer.inputs[0]
        if name in inputs:
            resolved.append((kind, name, axis))
    return resolved
