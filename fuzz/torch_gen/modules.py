"""The `nn.Module`s a PyTorch case is made of, written as PyTorch users write them.

Each block class takes its spec's parameters (`fuzz.torch_gen.spec.Block`) and computes in the
type of what it is given (`x.dtype`), so the same module moved to f64 (`.double()`) is the f64
reference of a half-precision program. Buffers a program updates in place (a KV cache) start as
zeros, as IREE's import makes them (`oracles/torch/importer.py`, `GlobalState`).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from fuzz.torch_gen.spec import Block


class Conv(nn.Module):
    def __init__(self, b: Block) -> None:
        super().__init__()
        rank = len(b.get("kernel"))
        conv = nn.Conv1d if rank == 1 else nn.Conv2d
        self.conv = conv(b.get("cin"), b.get("cout"), b.get("kernel"), stride=b.get("stride"), padding=b.get("padding"),
                         dilation=b.get("dilation"), groups=b.get("groups"), bias=b.get("bias"))
        pads = b.get("pads")  # (begin, end) per spatial dim, first dim first; F.pad wants the last dim first
        self.pads = tuple(p for i in reversed(range(rank)) for p in pads[2 * i: 2 * i + 2]) if any(pads) else None
        self.on_sequence = b.get("on_sequence")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.on_sequence:  # (batch, tokens, width): a Conv1d over the tokens
            x = x.transpose(1, 2)
        if self.pads is not None:
            x = F.pad(x, self.pads)
        y = self.conv(x)
        return y.transpose(1, 2) if self.on_sequence else y


class Linear(nn.Module):
    def __init__(self, b: Block) -> None:
        super().__init__()
        self.form = b.get("form")
        cin, cout = b.get("cin"), b.get("cout")
        if self.form == "linear":
            self.proj = nn.Linear(cin, cout, bias=b.get("bias"))
            return
        shape = {"matmul": (cin, cout), "matmul_t": (cout, cin), "batched": (1, cin, cout)}[self.form]
        self.weight = nn.Parameter(torch.randn(shape) / math.sqrt(cin))
        self.bias = nn.Parameter(torch.randn(cout) / 4) if b.get("bias") else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.form == "linear":
            return self.proj(x)
        y = x @ self.weight.T if self.form == "matmul_t" else torch.matmul(x, self.weight)
        return y + self.bias if self.bias is not None else y


class Int8Linear(nn.Module):
    """Weight-only int8, dequantised in the graph: the weight is an int8 buffer and its scales."""

    def __init__(self, b: Block) -> None:
        super().__init__()
        self.register_buffer("weight", torch.randint(-127, 128, (b.get("cout"), b.get("cin")), dtype=torch.int8))
        self.register_buffer("scales", torch.tensor(b.get("scales")))
        self.scale_after = b.get("form") == "scale_after"
        self.bias = nn.Parameter(torch.randn(b.get("cout")) / 4) if b.get("bias") else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scales = self.scales.to(x.dtype)
        if self.scale_after:
            y = F.linear(x, self.weight.to(x.dtype)) * scales
        else:
            y = F.linear(x, self.weight.to(x.dtype) * scales[:, None])
        return y + self.bias if self.bias is not None else y


class LlamaRMSNorm(nn.Module):
    def __init__(self, width: int, eps: float, affine: bool) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width)) if affine else None
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype) if self.weight is not None else h.to(x.dtype)


def rms_norm(b: Block) -> nn.Module:
    if b.get("form") == "module":
        return nn.RMSNorm(b.get("width"), eps=b.get("eps"), elementwise_affine=b.get("affine"))
    return LlamaRMSNorm(b.get("width"), b.get("eps"), b.get("affine"))


def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Rotary embeddings (the half-split form of Llama / GPT-NeoX) at `positions`."""
    half = x.shape[-1] // 2
    inverse = 1.0 / (10000 ** (torch.arange(0, half, dtype=torch.float32) / max(half, 1)))
    angles = positions.to(torch.float32)[:, None] * inverse[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2, rest = x[..., :half], x[..., half: 2 * half], x[..., 2 * half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin, rest), dim=-1)


class Attention(nn.Module):
    """q / k / v projections, heads, rotary embeddings, F.scaled_dot_product_attention, the output
    projection; grouped-query heads through enable_gqa or repeat_interleave of the kv heads."""

    def __init__(self, b: Block) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = b.get("heads"), b.get("kv_heads"), b.get("head_dim")
        width, inner, kv = b.get("width"), self.heads * self.head_dim, self.kv_heads * self.head_dim
        bias = bool(b.get("qkv_bias"))
        self.q, self.k, self.v = nn.Linear(width, inner, bias=bias), nn.Linear(width, kv, bias=bias), nn.Linear(width, kv, bias=bias)
        self.rotary, self.gqa_form = b.get("rotary"), b.get("gqa_form")
        self.mask, self.window, self.keep = b.get("mask"), b.get("window"), b.get("keep")
        self.mask_rank = b.get("mask_rank", 2)  # a (tokens, tokens) mask broadcast, or (1, 1, tokens, tokens) as transformers builds it

    def split(self, x: torch.Tensor, heads: int) -> torch.Tensor:
        batch, tokens, _ = x.shape
        return x.view(batch, tokens, heads, self.head_dim).transpose(1, 2)

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None, causal: bool) -> torch.Tensor:
        grouped = self.heads != self.kv_heads
        if grouped and self.gqa_form == "repeat":
            k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
            v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        gqa = grouped and self.gqa_form == "enable_gqa"
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=gqa)
        batch, _, tokens, _ = y.shape
        return y.transpose(1, 2).reshape(batch, tokens, self.heads * self.head_dim)

    def bool_mask(self, tokens: int, device: torch.device) -> torch.Tensor | None:
        """The boolean mask the graph builds (True: attend): causal, a sliding window, or padding."""
        if self.mask in ("none", "causal_flag"):
            return None
        rows, cols = torch.arange(tokens, device=device)[:, None], torch.arange(tokens, device=device)[None, :]
        if self.mask == "causal_bool":
            mask = cols <= rows
        elif self.mask == "window_bool":
            mask = (rows - cols).abs() <= self.window
        else:
            mask = (cols < self.keep).expand(tokens, tokens)
        return mask[None, None] if self.mask_rank == 4 else mask

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = x.shape[1]
        q, k, v = self.split(self.q(x), self.heads), self.split(self.k(x), self.kv_heads), self.split(self.v(x), self.kv_heads)
        if self.rotary:
            positions = torch.arange(tokens, device=x.device)
            q, k = rotate(q, positions), rotate(k, positions)
        return self.attend(q, k, v, self.bool_mask(tokens, x.device), self.mask == "causal_flag")


class KVCache(Attention):
    """One step of attention with a KV cache in buffers (one row per sequence of the batch), written
    in place at `positions`; the queries attend to every slot filled up to their own position."""

    def __init__(self, b: Block) -> None:
        super().__init__(Block("attention", (*b.params, ("mask", "none"), ("window", 1), ("keep", 1), ("qkv_bias", False))))
        length = b.get("cache_len")
        self.register_buffer("cache_k", torch.zeros(b.get("batch"), self.kv_heads, length, self.head_dim))
        self.register_buffer("cache_v", torch.zeros(b.get("batch"), self.kv_heads, length, self.head_dim))
        self.update = b.get("update")

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split(self.q(x), self.heads), self.split(self.k(x), self.kv_heads), self.split(self.v(x), self.kv_heads)
        if self.rotary:
            q, k = rotate(q, positions), rotate(k, positions)
        for cache, new in ((self.cache_k, k), (self.cache_v, v)):
            new = new.to(cache.dtype)
            if self.update == "index_copy":
                cache.index_copy_(2, positions, new)
            else:
                cache[:, :, positions] = new
        seen = torch.arange(self.cache_k.shape[2], device=x.device)[None, :] <= positions[:, None]
        return self.attend(q, self.cache_k.to(q.dtype), self.cache_v.to(q.dtype), seen[None, None], False)


class Views(nn.Module):
    """Views, permutes and slices of (batch, tokens, width), written with the sizes read off `x`."""

    def __init__(self, b: Block) -> None:
        super().__init__()
        self.ops = b.get("ops")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for op, n in self.ops:
            batch, tokens, width = x.shape
            if op == "split_heads":  # heads split off and merged back through a permute
                x = x.view(batch, tokens, n, width // n).permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3).reshape(batch, tokens, width)
            elif op == "slice_tokens":
                x = x[:, n:]
            elif op == "stride_tokens":
                x = x[:, ::n]
            elif op == "roll_tokens":
                x = torch.cat((x[:, n % tokens:], x[:, : n % tokens]), dim=1)
            elif op == "repeat_tokens":
                x = x.unsqueeze(2).expand(batch, tokens, n, width).reshape(batch, tokens * n, width)
            elif op == "narrow_width":
                x = x.narrow(2, 0, n)
            elif op == "channels_first":
                x = x.permute(0, 2, 1).flip(-1).permute(0, 2, 1) * n
        return x


class Quant(nn.Module):
    """Quantize to int8 / uint8 and dequantize: by hand (round, clamp, cast and back), or
    torch.fake_quantize_per_tensor_affine; per tensor, or per channel along `axis`."""

    def __init__(self, b: Block, rank: int) -> None:
        super().__init__()
        self.axis, self.form = b.get("axis"), b.get("form")
        self.low, self.high = (0, 255) if b.get("unsigned") else (-128, 127)
        self.qtype = torch.uint8 if b.get("unsigned") else torch.int8
        shape = [1] * rank
        if self.axis is not None:
            shape[self.axis] = -1
        self.register_buffer("scale", torch.tensor(b.get("scales")).view(shape))
        self.register_buffer("zero_point", torch.tensor(b.get("zps"), dtype=torch.int32).view(shape))
        self.scalar = (b.get("scales")[0], b.get("zps")[0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.form == "fake":
            return torch.fake_quantize_per_tensor_affine(x, self.scalar[0], self.scalar[1], self.low, self.high)
        scale, zero = self.scale.to(x.dtype), self.zero_point.to(x.dtype)
        q = torch.clamp(torch.round(x / scale) + zero, self.low, self.high).to(self.qtype)
        return (q.to(x.dtype) - zero) * scale


class Epilogue(nn.Module):
    def __init__(self, b: Block) -> None:
        super().__init__()
        self.act, self.clamp, self.residual = b.get("act"), b.get("clamp"), b.get("residual")

    def forward(self, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        if self.act is not None:
            y = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}[self.act](y)
        if self.clamp is not None:
            y = y.clamp(-self.clamp, self.clamp)
        return y + x if self.residual else y


class ToSequence(nn.Module):
    """An image as the sequence of its pixels: (batch, channels, *spatial) -> (batch, pixels, channels)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.flatten(2).transpose(1, 2)
