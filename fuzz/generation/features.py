"""The swarm feature catalogue: what a case may turn on, each feature's starting chance, its draw.

Swarm testing: each case first draws a subset of the features (a case that never enables `stride`
explores unstrided convs harder), then builds under it.
"""

from __future__ import annotations

from fuzz.generation.choosers import Chooser

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
TYPE_FEATURES = ("f16", "bf16", "f8", "int4")
# Drawn from a random stream of their own, after the features above: adding one to this list
# changes no draw of the main stream, so every seed keeps its graph wherever the feature is off.
# `uint8`: activations and outputs (the quantized ones included) may be unsigned 8-bit; weights
# are drawn either way whatever it says.
OWN_STREAM_FEATURES = (*TYPE_FEATURES, "dynamic", "uint8")
ALL_FEATURES = FEATURES + OWN_STREAM_FEATURES
# The chance each feature is on in a case before any feedback (swarm testing: 0.5 each). int4
# weights never legalize in IREE 3.13 (a corpus entry); f8 fails on the GPU targets that lack it.
# `uint8` starts on in every case (feedback lowers it): on, the 8-bit type picks stand as drawn.
BASE_PROBABILITY = {**{f: 0.5 for f in FEATURES}, "f16": 0.35, "bf16": 0.25, "f8": 0.2, "int4": 0.1, "dynamic": 0.3, "uint8": 1.0}
HALF_KINDS = ("conv", "matmul", "batch_matmul", "gemm")
QUANTIZED = frozenset(OP_FEATURES[4:])
CONV_KINDS = ("conv", "qdq_conv", "qlinear_conv", "conv_integer")


def draw_features(c: Chooser, own_stream: Chooser, probabilities: dict[str, float] | None) -> set[str]:
    """The swarm subset: each feature on with its probability (0.5, or the campaign's feedback).
    `OWN_STREAM_FEATURES` come from `own_stream`, so the main stream's draws never depend on them;
    a case always has at least one op feature."""
    p = probabilities or {}
    features = {f for f in FEATURES if c.flag(p.get(f, 0.5))}
    features |= {f for f in OWN_STREAM_FEATURES if own_stream.flag(p.get(f, BASE_PROBABILITY[f]))}
    if not features & set(OP_FEATURES):
        features.add(c.pick(OP_FEATURES))
    return features
