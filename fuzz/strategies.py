"""Draw `GraphSpec`s: Hypothesis strategies with swarm testing, and seeded replay.

Each case first draws a subset of `FEATURES` (swarm testing: a case that never enables `stride`
explores unstrided convs harder), then builds one block (conv / matmul family, float or quantized),
its epilogues and, with `chain`, a second block on the first one's output. Every decision goes
through a small chooser, driven either by Hypothesis (`graph_specs()`, which shrinks) or by
`random.Random(seed)` (`spec_for_seed`, stable across Hypothesis versions and fast).

Bounds that keep one case at about a second of compile-and-run on a CPU and the reference exact:
every tensor has at most `MAX_ELEMS` elements, reductions at most `MAX_K` terms, a block at most
`MAX_MACS` multiply-adds; float tensors hold integers (or dyadic fractions from power-of-two scales)
whose sums stay below 2**24, where float32 is exact whatever the summation order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from fuzz.dynamic_sizes import make_dynamic
from fuzz.spec import CAST_TO, FLOAT8, HALF, Const, GraphSpec, Node, Tensor

MAX_ELEMS = 1 << 18
MAX_K = 4096
MAX_MACS = 1 << 26
MAX_IM2COL = 1 << 24  # the reference's im2col work (elements), summed over groups
RESCALE_ABOVE = 512  # a float value feeding a second block is clipped to this bound first

OP_FEATURES = (
    "conv", "matmul", "gemm", "batch_matmul", "quant", "qdq_conv", "qdq_matmul",
    "qlinear_conv", "qlinear_matmul", "conv_integer", "matmul_integer",
)  # fmt: skip
SHAPE_FEATURES = (
    "conv1d", "groups", "depthwise", "stride", "dilation", "asym_pads", "kernel_1x1", "kernel_full",
    "splat_weights", "dynamic_weights", "transpose", "broadcast", "vector", "per_axis",
    "awkward_dims", "large_channels", "aspect", "chain",
)  # fmt: skip
EPILOGUE_FEATURES = ("bias", "relu", "clip", "branch_add")
FEATURES = OP_FEATURES + SHAPE_FEATURES + EPILOGUE_FEATURES
# Drawn after (and, replaying a seed, apart from) the features above, so older seeds keep their
# graphs where these are off: element types, and a dynamic input dimension.
TYPE_FEATURES = ("f16", "bf16", "f8", "int4")
# `uint8`: activations and outputs (the quantized ones included) may be unsigned 8-bit; weights
# are drawn either way whatever it says.
NEW_FEATURES = (*TYPE_FEATURES, "dynamic", "uint8")
ALL_FEATURES = FEATURES + NEW_FEATURES
# The chance each feature is on in a case before any feedback (swarm testing: 0.5 each). int4
# weights never legalize in IREE 3.13 (a corpus entry); f8 fails on the GPU targets that lack it.
# `uint8` is on in every case until feedback lowers it (it was no feature before: seeds keep their graphs).
BASE_PROBABILITY = {**{f: 0.5 for f in FEATURES}, "f16": 0.35, "bf16": 0.25, "f8": 0.2, "int4": 0.1, "dynamic": 0.3, "uint8": 1.0}
HALF_KINDS = ("conv", "matmul", "batch_matmul", "gemm")
# The largest integer a half type holds exactly with every smaller one: sums stay exact below it.
HALF_EXACT = {"float16": 2048, "bfloat16": 256}
QUANTIZED = frozenset(OP_FEATURES[4:])
CONV_KINDS = ("conv", "qdq_conv", "qlinear_conv", "conv_integer")

_BASE_DIMS = (1, 2, 3, 4, 8, 16, 32, 64)
_AWKWARD_DIMS = (1, 3, 5, 7, 13, 15, 17, 31, 33, 55, 56, 63, 65, 112, 127, 129)
_CHANNELS = (1, 2, 3, 4, 8, 16, 32, 64)
_LARGE_CHANNELS = (256, 384, 512, 1024, 2048)
_SPATIAL = (1, 2, 4, 7, 8, 14, 16, 28, 32)
_LONG = (256, 500, 1024, 2048, 4096)
_SCALES = (0.25, 0.5, 1.0, 2.0)
_ACT_ZP = {"int8": (0, 1, -1, 5, -3, 100, -128, 127), "uint8": (0, 1, 10, 128, 200, 255)}
_W_ZP = {"int8": (0, 1, -1, 3, -5), "uint8": (128, 127, 130, 120), "int4": (0, 1, -1, 3), "uint4": (8, 7, 9)}
_W_RANGE = {"int8": (-8, 7), "uint8": (120, 135), "int4": (-8, 7), "uint4": (0, 15)}
_QRANGE = {"int8": (-128, 127), "uint8": (0, 255)}


# ---- choosers -------------------------------------------------------------------------------


class _HypothesisChooser:
    def __init__(self, draw: Callable) -> None:
        self._draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def pick(self, options: Sequence):
        options = list(options)
        return options[0] if len(options) == 1 else self._draw(st.sampled_from(options))

    def flag(self, p: float = 0.5) -> bool:
        if p == 0.5:
            return self._draw(st.booleans())
        return self._draw(st.integers(0, 99)) >= round(100 * (1 - p))  # shrinks towards False


class _RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)

    def pick(self, options: Sequence):
        options = list(options)
        return options[self._rng.randrange(len(options))]

    def flag(self, p: float = 0.5) -> bool:
        return self._rng.random() < p


# ---- graph under construction ---------------------------------------------------------------


@dataclass(frozen=True)
class _Value:
    name: str
    dtype: str
    shape: tuple[int, ...]
    bound: float  # max |element| (for integers in float tensors: the exactness budget)


@dataclass
class _Out:
    value: _Value
    channel_axis: int | None  # where a bias broadcasts (None: the last axis)
    source: _Value  # the block's input, for residual adds
    sibling: Callable[[], _Value] | None = None  # the main op again with fresh weights
    has_bias: bool = False
    finish: Callable[[_Value], _Value] | None = None  # after the epilogues (requantization)
    epilogues: bool = True


def _prod(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _pow2_near(x: float) -> float:
    return 2.0 ** max(-4, min(12, round(math.log2(max(x, 1e-3)))))


def _matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    n = max(len(a2), len(b2)) - 2
    pa, pb = (1,) * (n - len(a2) + 2) + a2[:-2], (1,) * (n - len(b2) + 2) + b2[:-2]
    batch = tuple(max(x, y) for x, y in zip(pa, pb))
    out = batch + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


class _Graph:
    def __init__(self, chooser, features: frozenset[str]) -> None:
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
            options = _LARGE_CHANNELS
        elif long:
            options = _LONG
        elif "awkward_dims" in self.f and self.c.flag():
            options = _AWKWARD_DIMS
        fit = [d for d in options if d <= cap] or [d for d in base if d <= cap] or [1]
        return self.c.pick(fit)

    # tensors
    def input(self, dtype: str, shape: tuple[int, ...], low: int, high: int) -> _Value:
        name = self._fresh("in")
        self.inputs.append(Tensor(name, dtype, tuple(shape), low, high))
        return _Value(name, dtype, tuple(shape), float(max(abs(low), abs(high))))

    def const(self, dtype: str, shape: tuple[int, ...], values: Sequence[float], prefix: str = "c") -> str:
        name = self._fresh(prefix)
        self.consts.append(Const(name, dtype, tuple(shape), "values", tuple(values)))
        return name

    def scalar(self, dtype: str, value: float) -> str:
        return self.const(dtype, (), (value,))

    def random_const(self, dtype: str, shape: tuple[int, ...], low: int, high: int, prefix: str = "w") -> str:
        name = self._fresh(prefix)
        self.consts.append(Const(name, dtype, tuple(shape), "random", (), low, high, self.c.int(0, 2**31 - 1)))
        return name

    def input_as(self, dtype: str, shape: tuple[int, ...], low: int, high: int) -> _Value:
        """A graph input in `dtype`; a half type may come as float32 and a Cast (bfloat16 always:
        the runtime's callers hand it float32)."""
        if dtype not in HALF or (dtype == "float16" and self.c.flag()):
            return self.input(dtype, shape, low, high)
        x = self.input("float32", shape, low, high)
        return self.cast(x, dtype)

    def cast(self, v: _Value, dtype: str) -> _Value:
        return self.node("Cast", (v.name,), dtype, v.shape, v.bound, (("to", CAST_TO[dtype]),), "cast")

    def float_weight(self, shape: tuple[int, ...], dtype: str = "float32", r: int | None = None) -> tuple[str, float]:
        """A float weight: random small integers (within `r`), or a splat with `splat_weights`."""
        if self.on("splat_weights"):
            value = self.c.pick((1.0, -1.0, 0.5, 2.0) if r is None else (1.0, -1.0))
            name = self._fresh("w")
            self.consts.append(Const(name, dtype, tuple(shape), "splat", (value,)))
            return name, abs(value)
        r = r or self.c.pick((2, 1))
        return self.random_const(dtype, shape, -r, r), float(r)

    def weight_or_input(self, shape: tuple[int, ...], dtype: str = "float32", r: int | None = None) -> tuple[str, float]:
        if self.on("dynamic_weights"):
            return self.input_as(dtype, shape, -(r or 2), r or 2).name, float(r or 2)
        return self.float_weight(shape, dtype, r)

    def bias(self, dtype: str, shape: tuple[int, ...]) -> tuple[str, float]:
        if dtype in HALF:
            return self.random_const(dtype, shape, -2, 2, "b"), 2.0
        if dtype == "float32" and self.on("splat_weights", 0.3):
            value = self.c.pick((1.0, -3.0, 0.5))
            name = self._fresh("b")
            self.consts.append(Const(name, dtype, tuple(shape), "splat", (value,)))
            return name, abs(value)
        r = 8 if dtype == "float32" else 100
        return self.random_const(dtype, shape, -r, r, "b"), float(r)

    def node(self, op: str, inputs: Sequence[str], dtype: str, shape: tuple[int, ...], bound: float,
             attrs: Sequence[tuple] = (), role: str = "main") -> _Value:  # fmt: skip
        name = self._fresh("t")
        self.nodes.append(Node(op, tuple(inputs), name, dtype, tuple(shape), tuple(attrs), role))
        return _Value(name, dtype, tuple(shape), bound)

    # quantization
    def scales(self, n: int | None, base: float | None = None) -> tuple[str, list[float]]:
        """A power-of-two scale constant: per-tensor (n None, a scalar) or per-axis (n values)."""
        if base is None:
            values = [self.c.pick(_SCALES) for _ in range(1 if n is None else n)]
        elif n is None:
            values = [base]
        else:
            values = [base * self.c.pick((1.0, 0.5, 2.0)) for _ in range(n)]
        return self.const("float32", () if n is None else (n,), values, "s"), values

    def zero_points(self, dtype: str, n: int | None, options: Sequence[int]) -> tuple[str, list[int]]:
        values = [self.c.pick(options) for _ in range(1 if n is None else n)]
        return self.const(dtype, () if n is None else (n,), values, "z"), values

    def quantize(self, x: _Value, axis: int | None = None, role: str = "q", scale: float | None = None,
                 dtype: str | None = None) -> tuple[_Value, str, str, list[float], list[int]]:  # fmt: skip
        if dtype is None and self.on("f8"):
            dtype = self.c.pick(FLOAT8)
            self.min_opset = max(self.min_opset, 19)
        dtype = dtype or self.activation_type(("int8", "uint8"))
        n = None if axis is None else x.shape[axis]
        s, scales = self.scales(n, scale)
        z, zps = self.zero_points(dtype, n, _ACT_ZP.get(dtype, (0,)))
        attrs = [("axis", axis)] if axis is not None else []
        q = self.node("QuantizeLinear", (x.name, s, z), dtype, x.shape, 0.0, attrs, role)
        return q, s, z, scales, zps

    def dequantize(self, q: _Value, s: str, z: str | None, scales: Sequence[float], axis: int | None = None,
                   spread: float = 255.0) -> _Value:  # fmt: skip
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
        pick is drawn either way, as it was before the feature existed)."""
        dtype = self.c.pick(options)
        return dtype if "uint8" in self.f else "int8"

    def int_weight(self, dtype: str, shape: tuple[int, ...], n: int | None) -> tuple[str, str | None, list[int]]:
        """A quantized weight: values within 16 of the zero points, so integer sums stay exact."""
        lo, hi = _W_RANGE[dtype]
        w = self.random_const(dtype, shape, lo, hi)
        z, zps = self.zero_points(dtype, n, _W_ZP[dtype])
        return w, z, zps

    def int_input(self, dtype: str, shape: tuple[int, ...], zp: int, k: int) -> _Value:
        lo, hi = _QRANGE[dtype]
        if k > 64:  # keep |x - zp| <= 16 so int32 sums (and a float dequantization) stay exact
            lo, hi = max(lo, zp - 16), min(hi, zp + 15)
        v = self.input(dtype, shape, lo, hi)
        return _Value(v.name, dtype, v.shape, float(max(abs(lo - zp), abs(hi - zp))))


# ---- geometry -------------------------------------------------------------------------------


@dataclass
class _ConvGeom:
    x: tuple[int, ...]
    w: tuple[int, ...]
    out: tuple[int, ...]
    group: int
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads: tuple[int, ...]
    k: int  # reduction length

    def attrs(self, g: _Graph) -> list[tuple]:
        attrs: list[tuple] = [("kernel_shape", self.kernel)]
        if self.group != 1 or g.c.flag(0.2):
            attrs.append(("group", self.group))
        if any(s != 1 for s in self.strides) or g.c.flag(0.2):
            attrs.append(("strides", self.strides))
        if any(d != 1 for d in self.dilations) or g.c.flag(0.2):
            attrs.append(("dilations", self.dilations))
        if any(self.pads) or g.c.flag(0.2):
            attrs.append(("pads", self.pads))
        return attrs


def _conv_geometry(g: _Graph, given: tuple[int, ...] | None) -> _ConvGeom:
    c = g.c
    if given is not None:
        n, ch, spatial = given[0], given[1], list(given[2:])
        if g.on("depthwise"):
            group = ch
        elif g.on("groups"):
            group = c.pick([d for d in range(1, min(ch, 64) + 1) if ch % d == 0 and d > 1] or [1])
        else:
            group = 1
    else:
        rank = 1 if g.on("conv1d") else 2
        n = c.pick((1, 2))
        cap = MAX_ELEMS // n
        depthwise = g.on("depthwise")
        if not depthwise and g.on("groups"):
            group = c.pick((2, 3, 4, 8, 32))
            ch = group * g.dim((1, 2, 3, 4, 8), max(1, cap // group // 4))
        else:
            ch = g.dim(_CHANNELS, max(1, cap // 4), large=True)
            group = ch if depthwise else 1
        cap //= ch
        if rank == 2 and g.on("aspect"):
            short = c.pick((1, 2, 3))
            longest = [d for d in _LONG if d * short <= cap] or [1]
            spatial = [short, c.pick(longest)]
            if c.flag():
                spatial.reverse()
        else:
            spatial = []
            for _ in range(rank):
                s = g.dim(_SPATIAL, cap)
                spatial.append(s)
                cap //= s
    rank = len(spatial)

    def geometry(kernel, dilations, strides, pads) -> _ConvGeom:
        eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        out = [(s + pads[i] + pads[i + rank] - e) // st + 1 for i, (s, e, st) in enumerate(zip(spatial, eff, strides))]
        k = ch // group * _prod(kernel)
        return _ConvGeom((n, ch, *spatial), (0,), (n, 0, *out), group, tuple(kernel), tuple(strides), tuple(dilations), tuple(pads), k)

    kernel, dilations, strides, begin, end = [], [], [], [], []
    for s in spatial:
        if g.on("kernel_full", 0.3):
            k, d = s, 1
        elif g.on("kernel_1x1"):
            k, d = 1, 1
        else:
            k = c.pick([v for v in (1, 2, 3, 5, 7) if v <= s])
            d = c.pick([v for v in (1, 2, 3) if (k - 1) * v + 1 <= s]) if g.on("dilation") else 1
        eff = (k - 1) * d + 1
        strides.append(c.pick((1, 2, 3, 4)) if g.on("stride") else 1)
        if g.on("asym_pads"):
            begin.append(c.int(0, eff - 1))
            end.append(c.int(0, eff - 1))
        else:
            p = c.int(0, (eff - 1) // 2)
            begin.append(p)
            end.append(p)
        kernel.append(k)
        dilations.append(d)
    geom = geometry(kernel, dilations, strides, begin + end)
    per = n * _prod(geom.out[2:])
    eff_k = ch // group * _prod((k - 1) * d + 1 for k, d in zip(kernel, dilations))
    if geom.k > MAX_K or eff_k * per * group > MAX_IM2COL or per * group > MAX_ELEMS or group * geom.k > MAX_ELEMS or per * geom.k * group > MAX_MACS:
        geom = geometry([1] * rank, [1] * rank, strides, [0] * (2 * rank))  # always fits
        per = n * _prod(geom.out[2:])
    cap = min(MAX_ELEMS // per, MAX_ELEMS // geom.k, MAX_MACS // (per * geom.k))
    if group == ch:
        m = ch * c.pick([v for v in (1, 2, 3) if ch * v <= cap] or [1])
    else:
        m = group * g.dim(_CHANNELS, max(1, cap // group), large=True)
    geom.w = (m, ch // group, *geom.kernel)
    geom.out = (n, m, *geom.out[2:])
    return geom


def _mm_geometry(g: _Graph, given: tuple[int, ...] | None, batch: bool, allow_1d: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    c = g.c
    if given is not None:
        a = given
        k = a[-1]
        rows = _prod(a) // k
        if len(a) == 1 and allow_1d and g.on("vector", 0.3):
            return a, (k,)
        bb: list[int] = []
        if len(a) >= 3 and batch:
            bb = list(a[:-2])
            if g.on("broadcast"):
                bb = [1 if c.flag() else d for d in bb][c.int(0, len(bb)) :]
            if _prod(bb) * k > MAX_ELEMS:
                bb = []  # a batched weight would be too big: share one
        cap = max(1, min(MAX_ELEMS // (_prod(bb) * k), MAX_ELEMS // max(rows, 1), MAX_MACS // (rows * k)))
        return a, (*bb, k, g.dim(_CHANNELS, cap, large=True))
    bt: list[int] = []
    if batch:
        for _ in range(c.pick((1, 2))):
            bt.append(g.dim((1, 2, 3, 4, 8), max(1, 16 // _prod(bt))))
    nb = _prod(bt)
    mode = c.pick(("m1", "n1", "k1", "a1d", "b1d") if allow_1d else ("m1", "n1", "k1")) if g.on("vector") else ""
    if g.on("aspect"):
        if c.flag():
            m, k = c.pick((1, 2)), g.dim(_LONG, MAX_K, long=True)
        else:
            k, m = c.pick((1, 2, 3)), g.dim(_LONG, MAX_ELEMS // nb // 3, long=True)
    else:
        m = g.dim(_BASE_DIMS, MAX_ELEMS // nb)
        k = g.dim(_BASE_DIMS, min(MAX_K, MAX_ELEMS // (nb * m)))
    m = 1 if mode in ("m1", "a1d") else m
    k = 1 if mode == "k1" else min(k, max(1, MAX_ELEMS // (nb * m)))
    cap = max(1, min(MAX_ELEMS // (nb * k), MAX_ELEMS // (nb * m), MAX_MACS // (nb * m * k)))
    nn = 1 if mode in ("n1", "b1d") else g.dim(_CHANNELS, cap, large=True)
    a: tuple[int, ...] = (*bt, m, k) if mode != "a1d" else (k,)
    b: tuple[int, ...] = (*bt, k, nn) if mode != "b1d" else (k,)
    if batch and mode not in ("a1d", "b1d") and g.on("broadcast"):
        which = c.pick(("a", "b", "rank"))
        if which == "rank":
            b = b[-2:]
        else:
            ones = tuple(1 if c.flag() else d for d in bt)
            a, b = ((*ones, m, k), b) if which == "a" else (a, (*ones, k, nn))
    return a, b


# ---- blocks ---------------------------------------------------------------------------------


def _float_in(g: _Graph, given: _Value | None, shape: tuple[int, ...], r: int = 2) -> _Value:
    return given if given is not None else g.input("float32", shape, -r, r)


def _half_ranges(ftype: str, k: int, given: _Value | None) -> tuple[int, int] | None:
    """(input range, weight range) that keep a half-precision contraction exact, or None.

    Every partial sum must stay an integer the type holds exactly, with room left for a bias and
    a residual or sibling add. A chained input, clipped to the range, may hold multiples of 1/16
    (dequantized values): that costs four more bits."""
    limit = (HALF_EXACT[ftype] - 4) // 2
    grain = 16 if given is not None else 1
    return next(((rx, rw) for rx, rw in ((2, 2), (2, 1), (1, 1)) if rx * rw * k * grain <= limit), None)


def _half_in(g: _Graph, given: _Value | None, shape: tuple[int, ...], ftype: str, r: int) -> _Value:
    """The block's input in `ftype`: a graph input, or the chained value clipped to +-r and cast."""
    if given is None:
        return g.input_as(ftype, shape, -r, r)
    if given.bound > r:
        lo, hi = g.scalar("float32", -r), g.scalar("float32", r)
        given = g.node("Clip", (given.name, lo, hi), "float32", given.shape, float(r), (), "rescale")
    return g.cast(given, ftype)


def _cast_back(g: _Graph, ftype: str, last: bool) -> Callable[[_Value], _Value] | None:
    """The finish of a half-precision block: back to float32 (a last f16 value may stay f16)."""
    if ftype == "float32":
        return None

    def finish(v: _Value) -> _Value:
        if ftype == "float16" and last and g.c.flag(0.4):
            return v
        return g.cast(v, "float32")

    return finish


def _conv_block(g: _Graph, kind: str, given: _Value | None, last: bool, ftype: str = "float32") -> _Out:
    c = g.c
    geo = _conv_geometry(g, given.shape if given else None)
    attrs = geo.attrs(g)
    m = geo.w[0]
    rank = len(geo.out)
    if kind == "conv":
        ranges = _half_ranges(ftype, geo.k, given) if ftype != "float32" else None
        if ranges is None:
            ftype = "float32"
        if ftype == "bfloat16":
            g.min_opset = max(g.min_opset, 22)  # Conv takes bfloat16 from opset 22
        x = _float_in(g, given, geo.x) if ranges is None else _half_in(g, given, geo.x, ftype, ranges[0])
        w, wmax = g.float_weight(geo.w, ftype, ranges[1] if ranges else None)
        inputs = [x.name, w]
        bound = x.bound * wmax * geo.k
        if g.on("bias"):
            b, bmax = g.bias(ftype, (m,))
            inputs.append(b)
            bound += bmax
        y = g.node("Conv", inputs, ftype, geo.out, bound, attrs)

        def sibling() -> _Value:
            w2, wmax2 = g.float_weight(geo.w, ftype, ranges[1] if ranges else None)
            return g.node("Conv", [x.name, w2], ftype, geo.out, x.bound * wmax2 * geo.k, attrs, "sibling")

        return _Out(y, 1, x, sibling, len(inputs) == 3, finish=_cast_back(g, ftype, last))
    if kind == "qdq_conv":
        x = _float_in(g, given, geo.x, 4)
        axis = 1 if g.on("per_axis") else None
        xq, s, z, sx, _ = g.quantize(x, axis, scale=None if given is None else g.act_scale(x.bound))
        xd = g.dequantize(xq, s, z, sx, axis, 16.0 if given is None else 255.0)
        wdt = _qdq_weight_type(g)
        per_channel = g.on("per_axis")
        w, wz, _ = g.int_weight(wdt, geo.w, m if per_channel else None)
        ws, wsc = g.scales(m if per_channel else None)
        wd = g.dequantize(_Value(w, wdt, geo.w, 0.0), ws, wz, wsc, 0 if per_channel else None, 16.0)
        inputs = [xd.name, wd.name]
        bound = xd.bound * wd.bound * geo.k
        if g.on("bias"):
            b, bmax = g.bias("float32", (m,))
            inputs.append(b)
            bound += bmax
        y = g.node("Conv", inputs, "float32", geo.out, bound, attrs)
        typical = max(sx) * max(wsc) * 8 * 8 * math.sqrt(geo.k)
        return _Out(y, 1, x, None, len(inputs) == 3, finish=lambda v: _requantize(g, v, typical))
    # qlinear_conv / conv_integer: integer activations, from a graph input or a QuantizeLinear
    xdt = g.activation_type(("uint8", "int8"))
    if given is not None or c.flag(0.3):
        x = _float_in(g, given, geo.x, 4)
        xq, xs, xz, xsc, xzp = g.quantize(x, None, scale=g.act_scale(x.bound), dtype=xdt)
        xq = _Value(xq.name, xdt, xq.shape, 255.0)
    else:
        xs, xsc = g.scales(None)
        xz, xzp = g.zero_points(xdt, None, _ACT_ZP[xdt])
        xq = g.int_input(xdt, geo.x, xzp[0], geo.k)
    wdt = c.pick(("int8", "uint8"))
    # the reference broadcasts per-channel weight parameters for 2-D convs only
    per_channel = rank == 4 and g.on("per_axis")
    w, wz, _ = g.int_weight(wdt, geo.w, m if per_channel else None)
    if kind == "conv_integer":
        inputs = [xq.name, w, xz if (c.flag(0.8) or xzp[0] != 0) else "", wz]
        y = g.node("ConvInteger", inputs, "int32", geo.out, xq.bound * 16 * geo.k, attrs)
        return _Out(y, 1, xq, None, False, finish=_int32_dequantizer(g, c, last, max(xsc) / 16))
    ws, wsc = g.scales(m if per_channel else None)
    ydt = g.activation_type(("uint8", "int8"))
    sy = _pow2_near(max(xsc) * max(wsc) * 8 * 8 * math.sqrt(geo.k) / 32) * c.pick((1.0, 0.5, 2.0))
    ys, yz = g.scalar("float32", sy), g.scalar(ydt, c.pick(_ACT_ZP[ydt]))
    inputs = [xq.name, xs, xz, w, ws, wz, ys, yz]
    if g.on("bias"):
        inputs.append(g.random_const("int32", (m,), -64, 64, "b"))
    y = g.node("QLinearConv", inputs, ydt, geo.out, 255.0, attrs)
    if last and c.flag(0.3):
        return _Out(y, 1, xq, None, True, epilogues=False)
    return _Out(g.dequantize(y, ys, yz, [sy]), 1, xq, None, len(inputs) == 9)


def _qdq_weight_type(g: _Graph) -> str:
    """A dequantized weight's storage type: 8-bit, or with `int4` a 4-bit one (opset 21+)."""
    if g.on("int4"):
        g.min_opset = max(g.min_opset, 21)
        return g.c.pick(("int4", "uint4"))
    return g.c.pick(("int8", "uint8"))


def _int32_dequantizer(g: _Graph, c, last: bool, scale: float) -> Callable[[_Value], _Value]:
    """The finish of an integer conv / matmul: its int32 accumulator dequantized (a last node may stay int32)."""

    def finish(v: _Value) -> _Value:
        if last and c.flag(0.3):
            return v
        s = g.scalar("float32", _pow2_near(scale))
        return g.dequantize(v, s, None, [_pow2_near(scale)], None, v.bound)

    return finish


def _requantize(g: _Graph, v: _Value, typical: float) -> _Value:
    s = _pow2_near(typical / 32) * g.c.pick((1.0, 0.5, 2.0))
    q, qs, qz, _, _ = g.quantize(v, None, scale=s)
    return g.dequantize(q, qs, qz, [s])


def _matmul_block(g: _Graph, kind: str, given: _Value | None, last: bool, ftype: str = "float32") -> _Out:
    c = g.c
    if kind == "gemm":
        return _gemm_block(g, given, last, ftype)
    quantized = kind not in ("matmul", "batch_matmul")
    a_shape, b_shape = _mm_geometry(g, given.shape if given else None, kind == "batch_matmul" or given is not None, not quantized)
    out = _matmul_shape(a_shape, b_shape)
    k = a_shape[-1]
    axis = None if len(out) == 0 else len(out) - 1
    if kind in ("matmul", "batch_matmul"):
        ranges = _half_ranges(ftype, k, given) if ftype != "float32" else None
        if ranges is None:
            ftype = "float32"
        a = _float_in(g, given, a_shape) if ranges is None else _half_in(g, given, a_shape, ftype, ranges[0])
        rw = ranges[1] if ranges else None
        b, bmax = g.weight_or_input(b_shape, ftype, rw)
        y = g.node("MatMul", (a.name, b), ftype, out, a.bound * bmax * k)

        def sibling() -> _Value:
            b2, bmax2 = g.float_weight(b_shape, ftype, rw)
            return g.node("MatMul", (a.name, b2), ftype, out, a.bound * bmax2 * k, (), "sibling")

        return _Out(y, axis, a, sibling if b in {x.name for x in g.consts} else None, finish=_cast_back(g, ftype, last))
    per_column = len(b_shape) >= 2 and g.on("per_axis")
    n = b_shape[-1] if per_column else None
    if kind == "qdq_matmul":
        a = _float_in(g, given, a_shape, 4)
        a_axis = c.pick(range(-len(a_shape), len(a_shape))) if g.on("per_axis") else None
        aq, s, z, sa, _ = g.quantize(a, a_axis, scale=None if given is None else g.act_scale(a.bound))
        ad = g.dequantize(aq, s, z, sa, a_axis, 16.0 if given is None else 255.0)
        wdt = _qdq_weight_type(g)
        w, wz, _ = g.int_weight(wdt, b_shape, n)
        ws, wsc = g.scales(n)
        wd = g.dequantize(_Value(w, wdt, b_shape, 0.0), ws, wz, wsc, -1 if n else None, 16.0)
        y = g.node("MatMul", (ad.name, wd.name), "float32", out, ad.bound * wd.bound * k)
        typical = max(sa) * max(wsc) * 8 * 8 * math.sqrt(k)
        return _Out(y, axis, a, None, finish=lambda v: _requantize(g, v, typical))
    xdt = g.activation_type(("uint8", "int8"))
    if given is not None or c.flag(0.3):
        a = _float_in(g, given, a_shape, 4)
        aq, xs, xz, xsc, xzp = g.quantize(a, None, scale=g.act_scale(a.bound), dtype=xdt)
        aq = _Value(aq.name, xdt, aq.shape, 255.0)
    else:
        xs, xsc = g.scales(None)
        xz, xzp = g.zero_points(xdt, None, _ACT_ZP[xdt])
        aq = g.int_input(xdt, a_shape, xzp[0], k)
    wdt = c.pick(("int8", "uint8"))
    w, wz, _ = g.int_weight(wdt, b_shape, n)
    if kind == "matmul_integer":
        inputs = [aq.name, w, xz, wz] if (c.flag(0.8) or xzp[0] != 0) else [aq.name, w, "", wz]
        y = g.node("MatMulInteger", inputs, "int32", out, aq.bound * 16 * k)
        return _Out(y, axis, aq, None, finish=_int32_dequantizer(g, c, last, max(xsc) / 16))
    ws, wsc = g.scales(n)
    ydt = g.activation_type(("uint8", "int8"))
    sy = _pow2_near(max(xsc) * max(wsc) * 8 * 8 * math.sqrt(k) / 32) * c.pick((1.0, 0.5, 2.0))
    ys, yz = g.scalar("float32", sy), g.scalar(ydt, c.pick(_ACT_ZP[ydt]))
    y = g.node("QLinearMatMul", (aq.name, xs, xz, w, ws, wz, ys, yz), ydt, out, 255.0)
    if last and c.flag(0.3):
        return _Out(y, axis, aq, None, epilogues=False)
    return _Out(g.dequantize(y, ys, yz, [sy]), axis, aq)


def _gemm_block(g: _Graph, given: _Value | None, last: bool = True, ftype: str = "float32") -> _Out:
    c = g.c
    trans_a, trans_b = g.on("transpose"), g.on("transpose")
    if given is not None:
        r0, r1 = given.shape
        m, k = (r1, r0) if trans_a else (r0, r1)
    else:
        m = g.dim(_BASE_DIMS, MAX_ELEMS)
        k = g.dim(_BASE_DIMS, min(MAX_K, MAX_ELEMS // m))
    cap = max(1, min(MAX_ELEMS // k, MAX_ELEMS // m, MAX_MACS // (m * k)))
    n = 1 if g.on("vector", 0.3) else g.dim(_CHANNELS, cap, large=True)
    ranges = _half_ranges(ftype, k, given) if ftype != "float32" else None
    if ranges is None:
        ftype = "float32"
    a_shape = (k, m) if trans_a else (m, k)
    a = _float_in(g, given, a_shape) if ranges is None else _half_in(g, given, a_shape, ftype, ranges[0])
    b_shape = (n, k) if trans_b else (k, n)
    rw = ranges[1] if ranges else None
    b, bmax = g.weight_or_input(b_shape, ftype, rw)
    alpha = c.pick((1.0, 0.5, 2.0)) if c.flag(0.3) else 1.0
    if ranges is not None:
        alpha = min(alpha, 1.0)  # alpha 2 would double the exactness budget
    attrs: list[tuple] = []
    for key, on in (("transA", trans_a), ("transB", trans_b)):
        if on or c.flag(0.2):
            attrs.append((key, int(on)))
    if alpha != 1.0:
        attrs.append(("alpha", alpha))
    inputs = [a.name, b]
    bound = alpha * a.bound * bmax * k
    if g.on("bias"):
        shape = c.pick(((m, n), (n,), (1, n), (m, 1), (), (1, 1))) if "broadcast" in g.f else (m, n)
        bias, bb = g.bias(ftype, shape)
        beta = c.pick((1.0, 0.5, 2.0)) if c.flag(0.3) else 1.0
        if beta != 1.0:
            attrs.append(("beta", beta))
        inputs.append(bias)
        bound += beta * bb
    y = g.node("Gemm", inputs, ftype, (m, n), bound, attrs)

    def sibling() -> _Value:
        b2, bmax2 = g.float_weight(b_shape, ftype, rw)
        return g.node("Gemm", [a.name, b2], ftype, (m, n), alpha * a.bound * bmax2 * k, [x for x in attrs if x[0] != "beta"], "sibling")

    return _Out(y, 1, a, sibling if b in {x.name for x in g.consts} else None, len(inputs) == 3, finish=_cast_back(g, ftype, last))


def _quant_block(g: _Graph, given: _Value | None, last: bool) -> _Out:
    c = g.c
    if given is None:
        shape: list[int] = []
        cap = MAX_ELEMS
        for _ in range(c.pick((4, 2, 3, 1))):
            shape.append(g.dim(_BASE_DIMS, cap))
            cap //= shape[-1]
        x = g.input("float32", tuple(shape), -4, 4)
    else:
        x = given
    axis = c.int(-len(x.shape), len(x.shape) - 1) if g.on("per_axis") else None
    q, s, z, scales, _ = g.quantize(x, axis, role="main", scale=None if given is None else g.act_scale(x.bound))
    if last and c.flag(0.3):
        return _Out(q, None, x, epilogues=False)
    return _Out(g.dequantize(q, s, z, scales, axis), None, x)


# ---- epilogues and the whole graph ----------------------------------------------------------


def _epilogues(g: _Graph, out: _Out) -> _Value:
    c = g.c
    v = out.value
    if not out.epilogues or v.dtype not in ("float32", "int32", *HALF):
        return v
    r = len(v.shape)
    if not out.has_bias and r > 0 and out.channel_axis is not None and g.on("bias"):
        size = v.shape[out.channel_axis]
        shape = (size,) + (1,) * (r - 1 - out.channel_axis) if out.channel_axis else (size,)
        b, bmax = g.bias(v.dtype, shape)
        v = g.node("Add", (v.name, b) if c.flag() else (b, v.name), v.dtype, v.shape, v.bound + bmax, (), "bias")
    if g.on("branch_add"):
        options = ["input"]
        if out.source.shape == v.shape and out.source.dtype == v.dtype:
            options.append("residual")
        if out.sibling is not None and v.dtype != "int32":
            options.append("sibling")
        how = c.pick(options)
        if how == "residual":
            other = out.source
        elif how == "sibling":
            other = out.sibling()  # type: ignore[misc]
        else:
            shape = v.shape
            if g.on("broadcast"):
                shape = tuple(1 if c.flag() else d for d in shape)[c.int(0, r) :]
            lim = 100 if v.dtype == "int32" else 2
            other = g.input_as(v.dtype, shape, -lim, lim)
        v = g.node("Add", (v.name, other.name), v.dtype, v.shape, v.bound + other.bound, (), "add")
    acts = [a for a in ("relu", "clip") if g.on(a)]
    if len(acts) == 2 and c.flag():
        acts.reverse()
    for act in acts:
        if act == "relu":
            v = g.node("Relu", (v.name,), v.dtype, v.shape, v.bound, (), "relu")
            continue
        lo, hi = ((-50, 0), (50, 1000)) if v.dtype == "int32" else ((-4.0, -1.0, 0.0), (1.0, 4.0, 6.0, 100.0))
        which = c.pick(("both", "min", "max"))
        lo_v, hi_v = c.pick(lo), c.pick(hi)
        inputs = [v.name, g.scalar(v.dtype, lo_v) if which != "max" else "", g.scalar(v.dtype, hi_v) if which != "min" else ""]
        while inputs[-1] == "":
            inputs.pop()
        bound = min(v.bound, max(abs(lo_v), abs(hi_v))) if which == "both" else v.bound
        v = g.node("Clip", inputs, v.dtype, v.shape, bound, (), "clip")
    return v


def _compatible(kind: str, v: _Value) -> bool:
    r = len(v.shape)
    if v.dtype != "float32" or r == 0:
        return False
    if kind in CONV_KINDS:
        return r in (3, 4) and min(v.shape) >= 1
    if kind == "gemm":
        return r == 2 and v.shape[-1] <= MAX_K and v.shape[0] <= MAX_K
    if kind == "quant":
        return True
    return v.shape[-1] <= MAX_K and (r >= 2 or kind in ("matmul", "batch_matmul"))


def _ftype(g: _Graph, kind: str) -> str:
    """The element type of a float contraction: float32, or a half type its feature turned on."""
    options = [t for t, f in (("float16", "f16"), ("bfloat16", "bf16")) if f in g.f]
    if kind not in HALF_KINDS or not options or not g.c.flag(0.7):
        return "float32"
    return g.c.pick(options)


def _features(c, extra, probabilities: dict[str, float] | None) -> set[str]:
    """The swarm subset: each feature on with its probability (0.5, or the campaign's feedback).
    The newer features come from `extra`, a stream of their own, so a seed drawn before they
    existed keeps its older features."""
    p = probabilities or {}
    features = {f for f in FEATURES if c.flag(p.get(f, 0.5))}
    features |= {f for f in NEW_FEATURES if extra.flag(p.get(f, BASE_PROBABILITY[f]))}
    if not features & set(OP_FEATURES):
        features.add(c.pick(OP_FEATURES))
    return features


def _generate(c, extra=None, probabilities: dict[str, float] | None = None) -> GraphSpec:
    features = _features(c, extra or c, probabilities)
    g = _Graph(c, frozenset(features))
    kinds = [k for k in OP_FEATURES if k in features]
    blocks = 2 if g.on("chain") else 1
    value: _Value | None = None
    outputs: list[str] = []
    used: set[str] = set()
    for i in range(blocks):
        options = kinds if value is None else [k for k in kinds if _compatible(k, value)]
        if not options:
            break
        kind = c.pick(options)
        used.add(kind)
        last = i == blocks - 1
        if value is not None and kind in ("conv", "matmul", "batch_matmul", "gemm") and value.bound > RESCALE_ABOVE:
            r = c.pick((16.0, 64.0))
            lo, hi = g.scalar("float32", -r), g.scalar("float32", r)
            value = g.node("Clip", (value.name, lo, hi), "float32", value.shape, r, (), "rescale")
        if kind in CONV_KINDS:
            out = _conv_block(g, kind, value, last, _ftype(g, kind))
        elif kind == "quant":
            out = _quant_block(g, value, last)
        else:
            out = _matmul_block(g, kind, value, last, _ftype(g, kind))
        value = _epilogues(g, out)
        if out.finish is not None:
            value = out.finish(value)
        if not last and c.flag(0.2):
            outputs.append(value.name)
    assert value is not None
    outputs = list(dict.fromkeys([*outputs, value.name]))
    low = max(21 if used & QUANTIZED else 17, g.min_opset)
    opset = c.pick(range(low, 24))
    spec = GraphSpec(opset, frozenset(features), tuple(g.inputs), tuple(g.consts), tuple(g.nodes), tuple(outputs))
    if g.on("dynamic", 1.0 if (probabilities or {}).get("dynamic") == 1.0 else 0.8):  # --require dynamic: every case
        spec = make_dynamic(spec, c.pick) or spec
    return spec


@st.composite
def graph_specs(draw) -> GraphSpec:
    """A `GraphSpec` under a freshly drawn swarm feature subset (shrinks like any strategy)."""
    return _generate(_HypothesisChooser(draw))


def spec_for_seed(seed: int, probabilities: dict[str, float] | None = None) -> GraphSpec:
    """The spec for an integer seed: deterministic, the same across runs, machines and Hypothesis
    versions. `probabilities`: each feature's chance to be on (a campaign's swarm feedback); the
    spec records the subset it was drawn under, so a finding replays from its spec."""
    return _generate(_RandomChooser(random.Random(seed)), _RandomChooser(random.Random(f"{seed}:new-features")), probabilities)
