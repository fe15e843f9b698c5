"""What follows a block's main op: a bias, an add (residual, sibling or another input), activations."""

from __future__ import annotations

from fuzz.generation.graph import BlockOut, GraphBuilder, Value
from fuzz.spec import HALF


def epilogues(g: GraphBuilder, out: BlockOut) -> Value:
    """The block's value after its drawn epilogues (none on an 8-bit value or a block that forbids them)."""
    v = out.value
    if not out.epilogues or v.dtype not in ("float32", "int32", *HALF):
        return v
    if not out.has_bias and len(v.shape) > 0 and out.channel_axis is not None and g.on("bias"):
        v = _bias_add(g, v, out.channel_axis)
    if g.on("branch_add"):
        v = _branch_add(g, v, out)
    return _activations(g, v)


def _bias_add(g: GraphBuilder, v: Value, channel_axis: int) -> Value:
    """A bias along `channel_axis` (shaped to broadcast there), added on either side."""
    r = len(v.shape)
    size = v.shape[channel_axis]
    shape = (size,) + (1,) * (r - 1 - channel_axis) if channel_axis else (size,)
    b, bmax = g.bias(v.dtype, shape)
    return g.node("Add", (v.name, b) if g.c.flag() else (b, v.name), v.dtype, v.shape, v.bound + bmax, (), "bias")


def _branch_add(g: GraphBuilder, v: Value, out: BlockOut) -> Value:
    """`v` plus the block's input (residual), the main op again (sibling), or another graph input."""
    c = g.c
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
            shape = tuple(1 if c.flag() else d for d in shape)[c.int(0, len(v.shape)) :]
        lim = 100 if v.dtype == "int32" else 2
        other = g.input_as(v.dtype, shape, -lim, lim)
    return g.node("Add", (v.name, other.name), v.dtype, v.shape, v.bound + other.bound, (), "add")


def _activations(g: GraphBuilder, v: Value) -> Value:
    """Relu and Clip, each when drawn, in either order; a Clip may have one bound only."""
    c = g.c
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
