"""The PyTorch front end's swarm feature catalogue: what a case may turn on, and each one's chance.

Names shared with the ONNX catalogue (`fuzz/generation/features.py`) mean the same thing here
(conv, matmul, quantize/dequantize, half types, dynamic dims, awkward sizes, groups, ...); the
PyTorch-side features are what ONNX graphs rarely carry: scaled dot-product attention with causal
or boolean masks and grouped-query heads, rotary embeddings, RMSNorm, an in-place KV-cache update,
views / permutes / slices of dynamic sizes, weight-only int8 linears. Features are drawn in
catalogue order from the case's stream: add new ones at the end, so a seed keeps its program
wherever they are off.
"""

from __future__ import annotations

from fuzz.generation.choosers import Chooser

# Blocks a program is made of (a case has at least one).
BLOCK_FEATURES = ("conv", "matmul", "quant", "sdpa", "rms_norm", "kv_cache", "views", "int8_linear")
# How blocks are shaped and finished, as in the ONNX catalogue.
SHARED_FEATURES = (
    "conv1d", "groups", "depthwise", "stride", "dilation", "asym_pads", "kernel_1x1", "transpose",
    "broadcast", "per_axis", "awkward_dims", "chain", "bias", "relu", "clip", "branch_add",
    "f16", "bf16", "dynamic",
)  # fmt: skip
# Attention's own switches.
ATTENTION_FEATURES = ("causal_mask", "bool_mask", "gqa", "rotary")
TORCH_FEATURES = BLOCK_FEATURES + SHARED_FEATURES + ATTENTION_FEATURES
# What the issue lists as PyTorch-side: each must be drawn in a campaign's first minutes.
TORCH_SIDE = ("sdpa", "causal_mask", "bool_mask", "gqa", "rotary", "rms_norm", "kv_cache", "views", "int8_linear", "bf16")
TORCH_BASE_PROBABILITY = {**{f: 0.5 for f in TORCH_FEATURES}, "f16": 0.3, "bf16": 0.3, "dynamic": 0.4}


def draw_torch_features(c: Chooser, probabilities: dict[str, float] | None) -> frozenset[str]:
    """The swarm subset: each feature on with its chance (the campaign's feedback, else the base
    one); a case always has at least one block feature."""
    p = probabilities or {}
    features = {f for f in TORCH_FEATURES if c.flag(p.get(f, TORCH_BASE_PROBABILITY[f]))}
    if not features & set(BLOCK_FEATURES):
        features.add(c.pick(BLOCK_FEATURES))
    return frozenset(features)
