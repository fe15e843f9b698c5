"""Drawing each block's parameters from the shape it receives (no torch here).

Every decision goes through the case's chooser in a fixed order, so a seed draws the same
program. Shapes are the example's: (batch, tokens, width) for a sequence, (batch, channels,
*spatial) for an image. Sizes come from the ONNX generator's ranges (`fuzz/generation/ranges.py`):
awkward ones (primes, one off a tile) where `awkward_dims` is on; every tensor stays within
`MAX_ELEMS` so a case compiles and runs in seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fuzz.generation.choosers import Chooser
from fuzz.generation.ranges import AWKWARD_DIMS, BASE_DIMS, CHANNELS
from fuzz.torch_gen.spec import Block

MAX_ELEMS = 1 << 16
HEAD_DIMS = (4, 8, 16, 32)
AWKWARD_HEAD_DIMS = (3, 5, 7, 12, 24)
SCALES = (0.125, 0.25, 0.5, 1.0)
Shape = tuple[int, ...]
IMAGE, SEQUENCE = "image", "sequence"


@dataclass
class Drawing:
    """The program under construction: the chooser, the features drawn, those used so far."""

    c: Chooser
    features: frozenset[str]
    used: set[str] = field(default_factory=set)
    tokens_from_input: bool = True  # the sequence's token axis is still the first input's (a KV cache needs it)

    def on(self, feature: str, p: float = 0.5) -> bool:
        """The feature is drawn and this decision takes it (then it counts as used)."""
        taken = feature in self.features and self.c.flag(p)
        if taken:
            self.used.add(feature)
        return taken

    def dim(self, base: Sequence[int], cap: int) -> int:
        options = AWKWARD_DIMS if self.on("awkward_dims") else base
        return self.c.pick([d for d in options if d <= cap] or [d for d in base if d <= cap] or [1])


def _block(kind: str, **params) -> Block:
    return Block(kind, tuple(sorted(params.items())))


def conv(d: Drawing, shape: Shape, layout: str) -> tuple[Block, Shape]:
    """nn.Conv1d / nn.Conv2d (a sequence goes through a Conv1d over its tokens, transposed there
    and back); groups, depthwise, stride, dilation, padding in the module or asymmetric through F.pad."""
    channels = shape[2] if layout == SEQUENCE else shape[1]
    spatial = [shape[1]] if layout == SEQUENCE else list(shape[2:])
    if d.on("depthwise"):
        groups, out = channels, channels * d.c.pick((1, 2))
    elif (divisors := [g for g in range(2, channels + 1) if channels % g == 0]) and d.on("groups"):
        groups = d.c.pick(divisors)
        out = groups * d.c.pick((1, 2, 3))
    else:
        groups, out = 1, d.dim(CHANNELS, 64)
    kernel, dilation, stride, padding, pads = [], [], [], [], []
    for s in spatial:
        k = 1 if d.on("kernel_1x1") else d.c.pick([v for v in (1, 2, 3, 5) if v <= s] or [1])
        dl = d.c.pick([v for v in (2, 3) if (k - 1) * v + 1 <= s] or [1]) if k > 1 and d.on("dilation") else 1
        eff = (k - 1) * dl + 1
        kernel.append(k), dilation.append(dl), stride.append(d.c.pick((2, 3)) if d.on("stride") else 1)
        padding.append(d.c.int(0, (eff - 1) // 2) if eff > 1 else 0)
        pads.append((d.c.int(0, eff - 1), d.c.int(0, eff - 1)) if d.on("asym_pads") else None)
    outs = [(s + 2 * p + sum(a or (0, 0)) - ((k - 1) * dl + 1)) // st + 1
            for s, k, dl, st, p, a in zip(spatial, kernel, dilation, stride, padding, pads)]
    block = _block("conv", cin=channels, cout=out, groups=groups, kernel=tuple(kernel), stride=tuple(stride),
                   dilation=tuple(dilation), padding=tuple(padding), pads=tuple(p for a in pads for p in (a or (0, 0))),
                   bias=d.on("bias"), on_sequence=layout == SEQUENCE)
    d.used.add("conv1d" if len(spatial) == 1 else "conv")
    d.used.add("conv")
    if layout == SEQUENCE:
        return block, (shape[0], outs[0], out)
    return block, (shape[0], out, *outs)


def linear(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """A projection of the last axis: nn.Linear, `x @ W`, `x @ W.T` (transpose), or a batched
    weight broadcast over the tokens by torch.matmul (broadcast)."""
    cin = shape[-1]
    out = d.dim(BASE_DIMS + (48, 96, 128), 128)
    form = "linear"
    if d.on("transpose"):
        form = "matmul_t"
    elif d.on("broadcast"):
        form = "batched"
    elif d.c.flag(0.3):
        form = "matmul"
    d.used.add("matmul")
    return _block("linear", cin=cin, cout=out, form=form, bias=d.on("bias")), (*shape[:-1], out)


def int8_linear(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """Weight-only int8: an int8 weight buffer and its scales (per output channel with per_axis),
    dequantised in the graph, the way quantisation libraries rewrite nn.Linear."""
    out = d.dim(BASE_DIMS + (48, 96, 128), 128)
    per_channel = d.on("per_axis")
    scales = tuple(d.c.pick(SCALES) / 16 for _ in range(out if per_channel else 1))
    form = d.c.pick(("scale_after", "scale_weight"))
    d.used.add("int8_linear")
    return _block("int8_linear", cin=shape[-1], cout=out, scales=scales, form=form, bias=d.on("bias")), (*shape[:-1], out)


def rms_norm(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """nn.RMSNorm, or the Llama form: upcast to f32, x * rsqrt(mean(x^2) + eps), cast back, weight."""
    d.used.add("rms_norm")
    form = d.c.pick(("module", "llama"))
    return _block("rms_norm", width=shape[-1], form=form, affine=d.c.flag(0.8), eps=d.c.pick((1e-5, 1e-6))), shape


def _heads(d: Drawing, width_cap: int) -> tuple[int, int, int]:
    """(heads, kv heads, head width) within `width_cap` channels: kv heads shared by groups of
    query heads where `gqa` is on (grouped-query attention), one each otherwise."""
    head_dim = d.c.pick(AWKWARD_HEAD_DIMS) if d.on("awkward_dims") else d.c.pick(HEAD_DIMS)
    kv_heads = d.c.pick((1, 2))
    groups = d.c.pick((2, 3, 4)) if d.on("gqa") else 1
    while kv_heads * groups * head_dim > width_cap and (groups > 1 or kv_heads > 1):
        groups, kv_heads = (groups - 1, kv_heads) if groups > 1 else (groups, kv_heads - 1)
    if groups == 1:
        d.used.discard("gqa")
    return kv_heads * groups, kv_heads, head_dim


def attention(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """Self-attention through F.scaled_dot_product_attention: q/k/v projections, grouped-query
    heads (enable_gqa or repeat_interleave), rotary embeddings, a causal flag or a boolean mask
    built in the graph (causal, sliding window, or padding)."""
    heads, kv_heads, head_dim = _heads(d, 128)
    mask = "none"
    if d.on("causal_mask"):
        mask = "causal_flag" if not d.on("bool_mask") else "causal_bool"
    elif d.on("bool_mask"):
        mask = d.c.pick(("window_bool", "padding_bool"))
    block = _block("attention", width=shape[-1], heads=heads, kv_heads=kv_heads, head_dim=head_dim, mask=mask,
                   rotary=d.on("rotary"), gqa_form=d.c.pick(("enable_gqa", "repeat")), qkv_bias=d.on("bias"),
                   window=d.c.int(1, 4), keep=max(1, shape[1] - d.c.int(0, 2)), mask_rank=d.c.pick((2, 4)))
    d.used.add("sdpa")
    return block, (shape[0], shape[1], heads * head_dim)


def kv_cache(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """One step of attention with a KV cache kept in buffers and updated in place at the positions
    given (`cache[:, :, pos] = k` or `cache.index_copy_(2, pos, k)`), attending to every filled slot."""
    heads, kv_heads, head_dim = _heads(d, 128)
    length = shape[1] + d.c.pick((0, 3, 8, 16))
    block = _block("kv_cache", batch=shape[0], width=shape[-1], heads=heads, kv_heads=kv_heads, head_dim=head_dim,
                   cache_len=length, start=d.c.int(0, length - shape[1]), update=d.c.pick(("index_put", "index_copy")), rotary=d.on("rotary"),
                   gqa_form=d.c.pick(("enable_gqa", "repeat")))
    d.used.add("kv_cache")
    return block, (shape[0], shape[1], heads * head_dim)


VIEW_OPS = ("split_heads", "slice_tokens", "stride_tokens", "roll_tokens", "repeat_tokens", "narrow_width", "channels_first")


def views(d: Drawing, shape: Shape) -> tuple[Block, Shape]:
    """Views, permutes and slices of the token axis (dynamic where the case's dim is): heads split
    and merged back, a slice or a strided slice of the tokens, a roll, tokens repeated by expand,
    the width narrowed, a channels-first permute and back."""
    b, t, c = shape
    chosen = []
    for _ in range(d.c.int(1, 3)):
        op = d.c.pick(VIEW_OPS)
        if op == "slice_tokens" and t > 2:
            cut = d.c.int(1, min(3, t - 2))
            chosen.append((op, cut))
            t -= cut
            d.tokens_from_input = False
        elif op == "stride_tokens" and t > 2:
            chosen.append((op, 2))
            t = (t + 1) // 2
            d.tokens_from_input = False
        elif op == "repeat_tokens" and b * t * c * 2 <= MAX_ELEMS:
            chosen.append((op, 2))
            t *= 2
            d.tokens_from_input = False
        elif op == "narrow_width" and c > 2:
            keep = d.c.int(1, c - 1)
            chosen.append((op, keep))
            c = keep
        elif op == "split_heads":
            chosen.append((op, d.c.pick([h for h in (2, 3, 4, 8) if c % h == 0] or [1])))
        elif op in ("roll_tokens", "channels_first"):
            chosen.append((op, d.c.int(1, 3)))
    d.used.add("views")
    return _block("views", ops=tuple(chosen)), (b, t, c)


def quant(d: Drawing, shape: Shape, layout: str) -> tuple[Block, Shape]:
    """Quantize and dequantize as PyTorch users write it: round / clamp / cast to int8 and back by
    hand, `torch.fake_quantize_per_tensor_affine` (QAT), per tensor or per channel (per_axis)."""
    axis = (1 if layout == IMAGE else len(shape) - 1) if d.on("per_axis") else None
    count = 1 if axis is None else shape[axis]
    scales = tuple(d.c.pick(SCALES) for _ in range(count))
    zps = tuple(d.c.pick((0, 0, 1, -3, 5)) for _ in range(count))
    form = d.c.pick(("manual", "manual", "fake")) if axis is None else "manual"
    d.used.add("quant")
    return _block("quant", axis=axis, scales=scales, zps=zps, form=form, unsigned=d.c.flag(0.3)), shape


def epilogue(d: Drawing, shape: Shape, same_as_input: bool) -> Block | None:
    """An activation (relu, gelu, silu), a clamp, a residual add of the block's input."""
    act = d.c.pick(("relu", "gelu", "silu")) if d.on("relu") else None
    clamp = d.c.pick((1.0, 4.0, 6.0)) if d.on("clip") else None
    residual = same_as_input and d.on("branch_add")
    if act is None and clamp is None and not residual:
        return None
    return _block("epilogue", act=act, clamp=clamp, residual=residual)
