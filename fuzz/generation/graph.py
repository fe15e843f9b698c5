"""The graph under construction: fresh names, inputs, constants, nodes and their bounds.

Every value carries a bound on its elements' magnitude, which the blocks use to keep sums exact.
The builder draws through its chooser only, in a fixed order, so a seed replays its graph.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fuzz.generation.choosers import Chooser
from fuzz.generation.ranges import (
    ACT_ZP,
    AWKWARD_DIMS,
    LARGE_CHANNELS,
    LONG,
    QRANGE,
    SCALES,
    W_RANGE,
    W_ZP,
)
from fuzz.spec import CAST_TO, FLOAT8, HALF, Const, Node, Tensor

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Value:
    name: str
    dtype: str
    shape: Shape
    bound: float  # max |element| (for integers in float tensors: the exactness budget)


@dataclass
class BlockOut:
    """What a block hands the epilogues: its value and how to extend it."""

    value: Value
    channel_axis: int | None  # where a bias broadcasts (None: the last axis)
    source: Value  # the block's input, for residual adds
    sibling: Callable[[], Value] | None = None  # the main op again with fresh weights
    has_bias: bool = False
    finish: Callable[[Value], Value] | None = None  # after the epilogues (requantization)
    epilogues: bool = True


class GraphBuilder:
    def __init__(self, chooser: Chooser, features: frozenset[str]) -> None:
        self.c = chooser
        self.f = features
        self.inputs: list[Tensor] = []
        self.consts: list[Const] = []
        self.nodes: list[Node] = []
        self._n = 0
        self.min_opset = 17  # raised by what the graph uses (bf16 Conv: 22, int4: 21, f8: 19)

    def on(self, feature: str, p: float = 0.5) -> bool:
        return feature in self.f and self.c.flag(p)

    def _fresh(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def dim(self, base: Sequence[int], cap: int, large: bool = False, long: bool = False) -> int:
        options: Sequence[int] = base
        if large and "large_channels" in self.f and self.c.flag(0.3):
            options = LARGE_CHANNELS
        elif long:
            options = LONG
        elif "awkward_dims" in self.f and self.c.flag():
            options = AWKWARD_DIMS
        fit = [d for d in options if d <= cap] or [d for d in base if d <= cap] or [1]
        return self.c.pick(fit)

    # tensors
    def input(self, dtype: str, shape: Shape, low: int, high: int) -> Value:
        name = self._fresh("in")
        self.inputs.append(Tensor(name, dtype, tuple(shape), low, high))
        return Value(name, dtype, tuple(shape), float(max(abs(low), abs(high))))

    def const(self, dtype: str, shape: Shape, values: Sequence[float], prefix: str = "c") -> str:
        name = self._fresh(prefix)
        self.consts.append(Const(name, dtype, tuple(shape), "values", tuple(values)))
        return name

    def is_const(self, name: str) -> bool:
        return name in {x.name for x in self.consts}

    def scalar(self, dtype: str, value: float) -> str:
        return self.const(dtype, (), (value,))

    def random_const(self, dtype: str, shape: Shape, low: int, high: int, prefix: str = "w") -> str:
        name = self._fresh(prefix)
        self.consts.append(Const(name, dtype, tuple(shape), "random", (), low, high, self.c.int(0, 2**31 - 1)))
        return name

    def splat(self, dtype: str, shape: Shape, value: float, prefix: str) -> str:
        name = self._fresh(prefix)
        self.consts.append(Const(name, dtype, tuple(shape), "splat", (value,)))
        return name

    def input_as(self, dtype: str, shape: Shape, low: int, high: int) -> Value:
        """A graph input in `dtype`; a half type may come as float32 and a Cast (bfloat16 always:
        the runtime's callers hand it float32)."""
        if dtype not in HALF or (dtype == "float16" and self.c.flag()):
            return self.input(dtype, shape, low, high)
        x = self.input("float32", shape, low, high)
        return self.cast(x, dtype)

    def cast(self, v: Value, dtype: str) -> Value:
        return self.node("Cast", (v.name,), dtype, v.shape, v.bound, (("to", CAST_TO[dtype]),), "cast")

    def float_weight(self, shape: Shape, dtype: str = "float32", r: int | None = None) -> tuple[str, float]:
        """A float weight: random small integers (within `r`), or a splat with `splat_weights`."""
        if self.on("splat_weights"):
            value = self.c.pick((1.0, -1.0, 0.5, 2.0) if r is None else (1.0, -1.0))
            return self.splat(dtype, shape, value, "w"), abs(value)
        r = r or self.c.pick((2, 1))
        return self.random_const(dtype, shape, -r, r), float(r)

    def weight_or_input(self, shape: Shape, dtype: str = "float32", r: int | None = None) -> tuple[str, float]:
        if self.on("dynamic_weights"):
            return self.input_as(dtype, shape, -(r or 2), r or 2).name, float(r or 2)
        return self.float_weight(shape, dtype, r)

    def bias(self, dtype: str, shape: Shape) -> tuple[str, float]:
        if dtype in HALF:
            return self.random_const(dtype, shape, -2, 2, "b"), 2.0
        if dtype == "float32" and self.on("splat_weights", 0.3):
            value = self.c.pick((1.0, -3.0, 0.5))
            return self.splat(dtype, shape, value, "b"), abs(value)
        r = 8 if dtype == "float32" else 100
        return self.random_const(dtype, shape, -r, r, "b"), float(r)

    def node(self, op: str, inputs: Sequence[str], dtype: str, shape: Shape, bound: float,
             attrs: Sequence[tuple] = (), role: str = "main") -> Value:  # fmt: skip
        name = self._fresh("t")
        self.nodes.append(Node(op, tuple(inputs), name, dtype, tuple(shape), tuple(attrs), role))
        return Value(name, dtype, tuple(shape), bound)

    # quantization
    def scales(self, n: int | None, base: float | None = None) -> tuple[str, list[float]]:
        """A power-of-two scale constant: per-tensor (n None, a scalar) or per-axis (n values)."""
        if base is None:
            values = [self.c.pick(SCALES) for _ in range(1 if n is None else n)]
        elif n is None:
            values = [base]
        else:
            values = [base * self.c.pick((1.0, 0.5, 2.0)) for _ in range(n)]
        return self.const("float32", () if n is None else (n,), values, "s"), values

    def zero_points(self, dtype: str, n: int | None, options: Sequence[int]) -> tuple[str, list[int]]:
        values = [self.c.pick(options) for _ in range(1 if n is None else n)]
        return self.const(dtype, () if n is None else (n,), values, "z"), values

    def quantize(self, x: Value, axis: int | None = None, role: str = "q", scale: float | None = None,
                 dtype: str | None = None) -> tuple[Value, str, str, list[float], list[int]]:  # fmt: skip
        if dtype is None and self.on("f8"):
            dtype = self.c.pick(FLOAT8)
            self.min_opset = max(self.min_opset, 19)
        dtype = dtype or self.activation_type(("int8", "uint8"))
        n = None if axis is None else x.shape[axis]
        s, scales = self.scales(n, scale)
        z, zps = self.zero_points(dtype, n, ACT_ZP.get(dtype, (0,)))
        attrs = [("axis", axis)] if axis is not None else []
        q = self.node("QuantizeLinear", (x.name, s, z), dtype, x.shape, 0.0, attrs, role)
        return q, s, z, scales, zps

    def dequantize(self, q: Value, s: str, z: str | None, scales: Sequence[float], axis: int | None = None,
                   spread: float = 255.0) -> Value:  # fmt: skip
        attrs = [("axis", axis)] if axis is not None else []
        inputs = (q.name, s) if z is None else (q.name, s, z)
        if q.dtype in FLOAT8:  # rounding to f8 may land one step (at most an eighth) further out
            spread *= 1.25
        return self.node("DequantizeLinear", inputs, "float32", q.shape, spread * max(scales), attrs, "dq")

    def act_scale(self, bound: float) -> float:
        e = max(-2, min(8, round(math.log2(max(bound, 1.0))) // 2 - 1))
        return 2.0 ** (e + self.c.pick((0, -1, 1)))

    def activation_type(self, options: tuple[str, str]) -> str:
        """An 8-bit activation or output type: int8 or uint8, int8 alone when `uint8` is off (the
        pick is drawn either way, so the feature changes no other draw)."""
        dtype = self.c.pick(options)
        return dtype if "uint8" in self.f else "int8"

    def int_weight(self, dtype: str, shape: Shape, n: int | None) -> tuple[str, str, list[int]]:
        """A quantized weight: values within 16 of the zero points, so integer sums stay exact."""
        lo, hi = W_RANGE[dtype]
        w = self.random_const(dtype, shape, lo, hi)
        z, zps = self.zero_points(dtype, n, W_ZP[dtype])
        return w, z, zps

    def int_input(self, dtype: str, shape: Shape, zp: int, k: int) -> Value:
        lo, hi = QRANGE[dtype]
        if k > 64:  # keep |x - zp| <= 16 so int32 sums (and a float dequantization) stay exact
            lo, hi = max(lo, zp - 16), min(hi, zp + 15)
        v = self.input(dtype, shape, lo, hi)
        return Value(v.name, dtype, v.shape, float(max(abs(lo - zp), abs(hi - zp))))
