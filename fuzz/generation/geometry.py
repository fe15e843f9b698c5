"""Conv and matmul shapes: fresh ones drawn within the bounds, or fitted to a chained input.

A shape that would break a bound (`fuzz.generation.ranges`) falls back to one that always fits
rather than being redrawn, so a seed's draws stay a fixed sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from fuzz.generation.graph import GraphBuilder, Shape
from fuzz.generation.ranges import (
    BASE_DIMS,
    CHANNELS,
    LONG,
    MAX_ELEMS,
    MAX_IM2COL,
    MAX_K,
    MAX_MACS,
    SPATIAL,
)


@dataclass
class ConvGeometry:
    x: Shape
    w: Shape
    out: Shape
    group: int
    kernel: Shape
    strides: Shape
    dilations: Shape
    pads: Shape
    k: int  # reduction length

    def attrs(self, g: GraphBuilder) -> list[tuple]:
        """The Conv attributes; one at its default value is still written now and then."""
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


def conv_geometry(g: GraphBuilder, given: Shape | None) -> ConvGeometry:
    """A conv's shapes and attributes on a fresh input, or on `given` (a chained value's shape)."""
    n, ch, spatial, group = _fresh_conv_input(g) if given is None else _chained_conv_input(g, given)
    rank = len(spatial)
    kernel, dilations, strides, pads = _conv_window(g, spatial)
    geom = _conv_shape(n, ch, spatial, group, kernel, dilations, strides, pads)
    if _over_budget(geom):
        geom = _conv_shape(n, ch, spatial, group, [1] * rank, [1] * rank, strides, [0] * (2 * rank))  # always fits
    return _with_output_channels(g, geom)


def _chained_conv_input(g: GraphBuilder, given: Shape) -> tuple[int, int, list[int], int]:
    """(batch, channels, spatial dims, groups) of a conv on a chained value."""
    n, ch, spatial = given[0], given[1], list(given[2:])
    if g.on("depthwise"):
        group = ch
    elif g.on("groups"):
        group = g.c.pick([d for d in range(1, min(ch, 64) + 1) if ch % d == 0 and d > 1] or [1])
    else:
        group = 1
    return n, ch, spatial, group


def _fresh_conv_input(g: GraphBuilder) -> tuple[int, int, list[int], int]:
    """(batch, channels, spatial dims, groups) of a conv on a graph input, within `MAX_ELEMS`."""
    c = g.c
    rank = 1 if g.on("conv1d") else 2
    n = c.pick((1, 2))
    cap = MAX_ELEMS // n
    depthwise = g.on("depthwise")
    if not depthwise and g.on("groups"):
        group = c.pick((2, 3, 4, 8, 32))
        ch = group * g.dim((1, 2, 3, 4, 8), max(1, cap // group // 4))
    else:
        ch = g.dim(CHANNELS, max(1, cap // 4), large=True)
        group = ch if depthwise else 1
    cap //= ch
    if rank == 2 and g.on("aspect"):
        short = c.pick((1, 2, 3))
        longest = [d for d in LONG if d * short <= cap] or [1]
        spatial = [short, c.pick(longest)]
        if c.flag():
            spatial.reverse()
        return n, ch, spatial, group
    spatial = []
    for _ in range(rank):
        s = g.dim(SPATIAL, cap)
        spatial.append(s)
        cap //= s
    return n, ch, spatial, group


def _conv_window(g: GraphBuilder, spatial: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """(kernel, dilations, strides, pads) per spatial dim; the kernel never reaches past the input."""
    c = g.c
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
    return kernel, dilations, strides, begin + end


def _conv_shape(n: int, ch: int, spatial: list[int], group: int, kernel: list[int], dilations: list[int],
                strides: list[int], pads: list[int]) -> ConvGeometry:  # fmt: skip
    """The geometry before the output channels are drawn (`w` and the output's channels left 0)."""
    rank = len(spatial)
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    out = [(s + pads[i] + pads[i + rank] - e) // st + 1 for i, (s, e, st) in enumerate(zip(spatial, eff, strides))]
    k = ch // group * prod(kernel)
    return ConvGeometry((n, ch, *spatial), (0,), (n, 0, *out), group, tuple(kernel), tuple(strides), tuple(dilations), tuple(pads), k)


def _over_budget(geom: ConvGeometry) -> bool:
    """Whether the reduction, the reference's im2col, a tensor or the multiply-adds exceed their bounds."""
    n, ch = geom.x[0], geom.x[1]
    group = geom.group
    per = n * prod(geom.out[2:])
    eff_k = ch // group * prod((k - 1) * d + 1 for k, d in zip(geom.kernel, geom.dilations))
    return (
        geom.k > MAX_K
        or eff_k * per * group > MAX_IM2COL
        or per * group > MAX_ELEMS
        or group * geom.k > MAX_ELEMS
        or per * geom.k * group > MAX_MACS
    )


def _with_output_channels(g: GraphBuilder, geom: ConvGeometry) -> ConvGeometry:
    """`geom` with its output channels drawn within what the spatial output leaves of the bounds."""
    c = g.c
    n, ch, group = geom.x[0], geom.x[1], geom.group
    per = n * prod(geom.out[2:])
    cap = min(MAX_ELEMS // per, MAX_ELEMS // geom.k, MAX_MACS // (per * geom.k))
    if group == ch:
        m = ch * c.pick([v for v in (1, 2, 3) if ch * v <= cap] or [1])
    else:
        m = group * g.dim(CHANNELS, max(1, cap // group), large=True)
    geom.w = (m, ch // group, *geom.kernel)
    geom.out = (n, m, *geom.out[2:])
    return geom


def matmul_shape(a: Shape, b: Shape) -> Shape:
    """The output shape of ONNX MatMul (numpy's rules: 1-D operands, broadcast batch dims)."""
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


def matmul_geometry(g: GraphBuilder, given: Shape | None, batch: bool, allow_1d: bool) -> tuple[Shape, Shape]:
    """(A, B) shapes of a matmul on a fresh input, or on `given` (a chained value's shape)."""
    if given is not None:
        return _chained_matmul_operands(g, given, batch, allow_1d)
    c = g.c
    bt: list[int] = []
    if batch:
        for _ in range(c.pick((1, 2))):
            bt.append(g.dim((1, 2, 3, 4, 8), max(1, 16 // prod(bt))))
    nb = prod(bt)
    mode = c.pick(("m1", "n1", "k1", "a1d", "b1d") if allow_1d else ("m1", "n1", "k1")) if g.on("vector") else ""
    if g.on("aspect"):
        if c.flag():
            m, k = c.pick((1, 2)), g.dim(LONG, MAX_K, long=True)
        else:
            k, m = c.pick((1, 2, 3)), g.dim(LONG, MAX_ELEMS // nb // 3, long=True)
    else:
        m = g.dim(BASE_DIMS, MAX_ELEMS // nb)
        k = g.dim(BASE_DIMS, min(MAX_K, MAX_ELEMS // (nb * m)))
    m = 1 if mode in ("m1", "a1d") else m
    k = 1 if mode == "k1" else min(k, max(1, MAX_ELEMS // (nb * m)))
    cap = max(1, min(MAX_ELEMS // (nb * k), MAX_ELEMS // (nb * m), MAX_MACS // (nb * m * k)))
    nn = 1 if mode in ("n1", "b1d") else g.dim(CHANNELS, cap, large=True)
    a: Shape = (*bt, m, k) if mode != "a1d" else (k,)
    b: Shape = (*bt, k, nn) if mode != "b1d" else (k,)
    if batch and mode not in ("a1d", "b1d") and g.on("broadcast"):
        which = c.pick(("a", "b", "rank"))
        if which == "rank":
            b = b[-2:]
        else:
            ones = tuple(1 if c.flag() else d for d in bt)
            a, b = ((*ones, m, k), b) if which == "a" else (a, (*ones, k, nn))
    return a, b


def _chained_matmul_operands(g: GraphBuilder, a: Shape, batch: bool, allow_1d: bool) -> tuple[Shape, Shape]:
    """(A, B) on a chained value `a`: B's batch dims follow A's (or broadcast), one shared if too big."""
    c = g.c
    k = a[-1]
    rows = prod(a) // k
    if len(a) == 1 and allow_1d and g.on("vector", 0.3):
        return a, (k,)
    bb: list[int] = []
    if len(a) >= 3 and batch:
        bb = list(a[:-2])
        if g.on("broadcast"):
            bb = [1 if c.flag() else d for d in bb][c.int(0, len(bb)) :]
        if prod(bb) * k > MAX_ELEMS:
            bb = []  # a batched weight would be too big: share one
    cap = max(1, min(MAX_ELEMS // (prod(bb) * k), MAX_ELEMS // max(rows, 1), MAX_MACS // (rows * k)))
    return a, (*bb, k, g.dim(CHANNELS, cap, large=True))
