"""Draw whole `GraphSpec`s: Hypothesis strategies with swarm testing, and seeded replay.

Each case first draws its swarm feature subset (`fuzz.generation.features`), then builds one
block (conv / matmul family, float or quantized), its epilogues and, with `chain`, a second
block on the first one's output. Every decision goes through a chooser, driven either by
Hypothesis (`graph_specs()`, which shrinks) or by `random.Random(seed)` (`spec_for_seed`,
stable across Hypothesis versions and fast).
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from fuzz.dynamic_sizes import make_dynamic
from fuzz.generation.choosers import Chooser, HypothesisChooser, RandomChooser
from fuzz.generation.conv_block import conv_block
from fuzz.generation.epilogues import epilogues
from fuzz.generation.features import CONV_KINDS, HALF_KINDS, OP_FEATURES, QUANTIZED, draw_features
from fuzz.generation.graph import BlockOut, GraphBuilder, Value
from fuzz.generation.matmul_block import matmul_block
from fuzz.generation.quant_block import quant_block
from fuzz.generation.ranges import MAX_K, RESCALE_ABOVE
from fuzz.spec import GraphSpec


def _compatible(kind: str, v: Value) -> bool:
    """Whether a block of `kind` can take `v` as its input (the second block of a chain)."""
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


def _ftype(g: GraphBuilder, kind: str) -> str:
    """The element type of a float contraction: float32, or a half type its feature turned on."""
    options = [t for t, f in (("float16", "f16"), ("bfloat16", "bf16")) if f in g.f]
    if kind not in HALF_KINDS or not options or not g.c.flag(0.7):
        return "float32"
    return g.c.pick(options)


def _block(g: GraphBuilder, kind: str, value: Value | None, last: bool) -> BlockOut:
    """One block of `kind`; a large chained value is clipped first where a float block sums it."""
    if value is not None and kind in ("conv", "matmul", "batch_matmul", "gemm") and value.bound > RESCALE_ABOVE:
        r = g.c.pick((16.0, 64.0))
        lo, hi = g.scalar("float32", -r), g.scalar("float32", r)
        value = g.node("Clip", (value.name, lo, hi), "float32", value.shape, r, (), "rescale")
    if kind in CONV_KINDS:
        return conv_block(g, kind, value, last, _ftype(g, kind))
    if kind == "quant":
        return quant_block(g, value, last)
    return matmul_block(g, kind, value, last, _ftype(g, kind))


def _generate(c: Chooser, own_stream: Chooser | None = None, probabilities: dict[str, float] | None = None) -> GraphSpec:
    features = draw_features(c, own_stream or c, probabilities)
    g = GraphBuilder(c, frozenset(features))
    kinds = [k for k in OP_FEATURES if k in features]
    blocks = 2 if g.on("chain") else 1
    value: Value | None = None
    outputs: list[str] = []
    used: set[str] = set()
    for i in range(blocks):
        options = kinds if value is None else [k for k in kinds if _compatible(k, value)]
        if not options:
            break
        kind = c.pick(options)
        used.add(kind)
        last = i == blocks - 1
        out = _block(g, kind, value, last)
        value = epilogues(g, out)
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
    return _generate(HypothesisChooser(draw))


def spec_for_seed(seed: int, probabilities: dict[str, float] | None = None) -> GraphSpec:
    """The spec for an integer seed: deterministic, the same across runs, machines and Hypothesis
    versions. `probabilities`: each feature's chance to be on (a campaign's swarm feedback); the
    spec records the subset it was drawn under, so a finding replays from its spec."""
    own_stream = RandomChooser(random.Random(f"{seed}:new-features"))  # the stream's name is part of every seed's graph
    return _generate(RandomChooser(random.Random(seed)), own_stream, probabilities)
