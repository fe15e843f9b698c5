"""PyTorch programs of the kinds users export, with random weights (nothing is downloaded), and
the `.pt2` archives `torch.export` makes of them: what the `.pt2` tests reduce.

- `TinyEncoder`: a token embedding and a pre-norm `nn.TransformerEncoder` (its attention is
  `scaled_dot_product_attention`), a classifier on the first token. IREE 3.13 fails to compile it
  for Vulkan: the attention's `iree_linalg_ext.online_attention` gets a workgroup memref result.
- `TokenScorer`: a half-precision scoring head over a dynamic number of tokens: LayerNorm, a
  projection whose activation is clamped in f32, a per-token score (a broadcast batched matmul),
  a sigmoid. With `--iree-opt-data-tiling=true` on the CPU, IREE 3.13 gets the scores wrong at
  token counts that are no multiple of its tile (15, 3, 1; right at 16).
- `Attention`: one `scaled_dot_product_attention`, scaled by an int argument when `scale` is given
  (an int the program is exported with: a constant input, which the FX importers of IREE 3.13
  import and those of 3.0.0 reject). Fails for Vulkan as the encoder does.
- `TinyGPT`: a GPT of the usual shape: token and position embeddings, pre-norm blocks whose one
  `nn.Linear(C, 3C)` computes q, k and v at once, `.split(C, dim=2)` (a multi-output node: its
  value is a tuple, read through getitems), causal `scaled_dot_product_attention`, an output
  projection and a GELU MLP. In half precision IREE 3.13 fails it for Vulkan as the encoder.
- `KVCacheStep`: one decode step of attention with a KV cache kept in buffers and written in place
  at the position given (`cache[:, :, pos] = k`); at the stream phase the update's scatter indices
  are assembled in a transient by copies.

torch is imported here: only the `.pt2` tests import this module.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F


class TinyEncoder(nn.Module):
    def __init__(self, vocab: int = 1000, width: int = 64, heads: int = 4, layers: int = 2, tokens: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(1, tokens, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.classify = nn.Linear(width, 2)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids) + self.position[:, : ids.shape[1]]
        return self.classify(self.encoder(x)[:, 0])


class TokenScorer(nn.Module):
    def __init__(self, width: int = 16, hidden: int = 16) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width).half()
        self.project = nn.Parameter(torch.randn(width, hidden).half())
        self.score = nn.Parameter(torch.randn(1, hidden, 1).half())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.matmul(self.norm(x), self.project).float().clamp(0, 6).half()
        return torch.sigmoid(torch.matmul(hidden, self.score).float())


class Attention(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: int = 1) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v) * scale


class GPTBlock(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.project = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(width, dim=2)
        q, k, v = (t.view(batch, tokens, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.project(attended.transpose(1, 2).contiguous().view(batch, tokens, width))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 64, width: int = 32, heads: int = 2, tokens: int = 8, layers: int = 2) -> None:
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, width), nn.Embedding(tokens, width)
        self.blocks = nn.ModuleList(GPTBlock(width, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class KVCacheStep(nn.Module):
    def __init__(self, width: int = 256, heads: int = 8, head_width: int = 32, positions: int = 64) -> None:
        super().__init__()
        self.heads, self.head_width = heads, head_width
        self.norm = nn.RMSNorm(width)
        self.q, self.k, self.v, self.out = (nn.Linear(width, width, bias=False) for _ in range(4))
        self.register_buffer("cache_k", torch.zeros(1, heads, positions, head_width))
        self.register_buffer("cache_v", torch.zeros(1, heads, positions, head_width))

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(1, 1, self.heads, self.head_width).transpose(1, 2)

    def forward(self, x: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        q, k, v = self._heads(self.q(h)), self._heads(self.k(h)), self._heads(self.v(h))
        self.cache_k[:, :, position] = k
        self.cache_v[:, :, position] = v
        seen = (torch.arange(self.cache_k.shape[2]) <= position).view(1, 1, 1, -1)
        attended = F.scaled_dot_product_attention(q, self.cache_k, self.cache_v, attn_mask=seen)
        return self.out(attended.transpose(1, 2).reshape(1, 1, -1))


def save_encoder(path: Path) -> Path:
    torch.manual_seed(0)
    program = torch.export.export(TinyEncoder().eval(), (torch.randint(0, 1000, (1, 32)),))
    torch.export.save(program, path)
    return path


def save_scorer(path: Path, width: int = 16, hidden: int = 16) -> Path:
    torch.manual_seed(0)
    tokens = torch.export.Dim("tokens", min=1, max=1024)
    program = torch.export.export(TokenScorer(width, hidden).eval(), (torch.randn(2, 15, width).half(),),
                                  dynamic_shapes=({1: tokens},))
    torch.export.save(program, path)
    return path


def save_attention(path: Path, scale: int | None = None) -> Path:
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 4, 16, 32) for _ in range(3))
    program = torch.export.export(Attention().eval(), (q, k, v) if scale is None else (q, k, v, scale))
    torch.export.save(program, path)
    return path


def save_gpt(path: Path, layers: int = 2, width: int = 32) -> Path:
    torch.manual_seed(0)
    ids = torch.randint(0, 64, (1, 8))
    program = torch.export.export(TinyGPT(width=width, layers=layers).eval().half(), (ids,), strict=False)
    torch.export.save(program, path)
    return path


def save_kv_cache_step(path: Path) -> Path:
    torch.manual_seed(0)
    program = torch.export.export(KVCacheStep().eval(), (torch.randn(1, 1, 256), torch.tensor([3])))
    torch.export.save(program, path)
    return path
