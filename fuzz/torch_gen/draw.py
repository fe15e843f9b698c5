"""Drawing a whole `TorchSpec` from a seed (no torch here): features, input, blocks, type, dynamic dim.

A case's draws come from `random.Random(f"{seed}:torch:{attempt}")`: attempt 0 first, and the
next attempt when `torch.export` rejects what the previous one drew (`fuzz.torch_gen.export`), so
a seed always replays to the same program. The first block is one of the features drawn; with
`chain`, one or two more follow on its output (an image moves to a sequence of its pixels first,
`x.flatten(2).transpose(1, 2)`, where a sequence block follows a conv).
"""

from __future__ import annotations

import random

from fuzz.generation.choosers import RandomChooser
from fuzz.generation.ranges import BASE_DIMS, CHANNELS, SPATIAL
from fuzz.torch_gen import blocks
from fuzz.torch_gen.blocks import IMAGE, MAX_ELEMS, SEQUENCE, Drawing, Shape
from fuzz.torch_gen.features import BLOCK_FEATURES, draw_torch_features
from fuzz.torch_gen.spec import (
    FLOAT,
    POSITIONS,
    Block,
    TorchDynamic,
    TorchInput,
    TorchSpec,
)

MAX_RUN_SIZE = 65  # the largest size a dynamic dimension runs at
SYMBOLS = {(SEQUENCE, 0): "B", (SEQUENCE, 1): "T", (IMAGE, 0): "N", (IMAGE, -1): "W"}


def draw_torch_spec(seed: int, probabilities: dict[str, float] | None = None, attempt: int = 0) -> TorchSpec:
    """The spec of `seed`'s `attempt`-th draw under the swarm `probabilities` (None: base chances).
    Its dynamic dimension's sizes are chosen once the program is exported (their valid range is
    what export infers)."""
    c = RandomChooser(random.Random(f"{seed}:torch:{attempt}"))
    d = Drawing(c, draw_torch_features(c, probabilities))
    kinds = [k for k in BLOCK_FEATURES if k in d.features]
    first = c.pick(kinds)
    layout = IMAGE if first == "conv" and c.flag(0.7) else SEQUENCE
    shape = _input_shape(d, layout)
    input_layout = layout
    inputs = [TorchInput("x", FLOAT, shape)]
    chosen: list[Block] = []
    extra: list[int] = []
    count = 1 + (c.int(1, 2) if d.on("chain") else 0)
    for i in range(count):
        kind = first if i == 0 else c.pick(kinds)
        if layout == IMAGE and kind not in ("conv", "quant"):
            chosen.append(Block("to_sequence"))
            layout, shape = SEQUENCE, (shape[0], _pixels(shape), shape[1])
        kind = _possible(kind, d, chosen, layout)
        block, out = _draw_block(d, kind, shape, layout)
        chosen.append(block)
        if kind == "kv_cache":
            inputs.append(TorchInput("positions", POSITIONS, (shape[1],)))
        after = blocks.epilogue(d, out, out == shape)
        if after is not None:
            chosen.append(after)
        shape = out
        if i < count - 1 and c.flag(0.2):
            extra.append(len(chosen) - 1)
    if count > 1:
        d.used.add("chain")
    dtype, cast_inside = _dtype(d)
    dynamic = _dynamic(d, inputs[0].shape, input_layout, chosen)
    return TorchSpec(seed, d.features, frozenset(d.used), dtype, cast_inside, tuple(inputs), tuple(chosen), tuple(extra),
                     dynamic, attempt)


def _input_shape(d: Drawing, layout: str) -> Shape:
    c = d.c
    if layout == SEQUENCE:
        batch = c.pick((1, 2, 3))
        tokens = d.dim(BASE_DIMS[1:] + (5, 7, 13), 33)
        return batch, tokens, d.dim(CHANNELS[2:] + (48, 96), max(4, min(128, MAX_ELEMS // (batch * tokens * 4))))
    batch, channels = c.pick((1, 2)), d.dim(CHANNELS, 32)
    rank = 1 if d.on("conv1d") else 2
    cap = MAX_ELEMS // (batch * channels * 8)
    spatial = []
    for _ in range(rank):
        size = d.dim(SPATIAL[2:] + (5, 13, 17), max(4, cap if rank == 1 else int(cap**0.5)))
        spatial.append(max(size, 4))
    return batch, channels, *spatial


def _pixels(shape: Shape) -> int:
    count = 1
    for s in shape[2:]:
        count *= s
    return count


def _possible(kind: str, d: Drawing, chosen: list[Block], layout: str) -> str:
    """A KV cache needs the first input's tokens and comes once; elsewhere plain attention stands in."""
    if kind == "kv_cache" and (not d.tokens_from_input or any(b.kind == "kv_cache" for b in chosen) or layout != SEQUENCE):
        return "sdpa"
    return kind


def _draw_block(d: Drawing, kind: str, shape: Shape, layout: str) -> tuple[Block, Shape]:
    if kind == "conv":
        return blocks.conv(d, shape, layout)
    if kind == "quant":
        return blocks.quant(d, shape, layout)
    if kind == "matmul":
        return blocks.linear(d, shape)
    if kind == "int8_linear":
        return blocks.int8_linear(d, shape)
    if kind == "rms_norm":
        return blocks.rms_norm(d, shape)
    if kind == "kv_cache":
        return blocks.kv_cache(d, shape)
    if kind == "views":
        return blocks.views(d, shape)
    return blocks.attention(d, shape)


def _dtype(d: Drawing) -> tuple[str, bool]:
    """The type the program computes in: f32, or a half type its feature turned on (the module and
    its inputs in it, or f32 inputs and outputs with the program casting, as autocast does)."""
    halves = [t for t, f in (("float16", "f16"), ("bfloat16", "bf16")) if f in d.features]
    if not halves or not d.c.flag(0.8):
        return "float32", False
    dtype = d.c.pick(halves)
    d.used.add("f16" if dtype == "float16" else "bf16")
    return dtype, d.c.flag(0.3)


def _dynamic(d: Drawing, shape: Shape, layout: str, chosen: list[Block]) -> TorchDynamic | None:
    """One dimension of the first input exported dynamic: the batch, or the tokens (a sequence) /
    the last spatial size (an image). Sizes come after export, within the range it infers and
    `high` (a KV cache's free slots bound its tokens)."""
    if not d.on("dynamic"):
        return None
    cached = any(block.kind == "kv_cache" for block in chosen)  # its cache has a row per sequence: the batch stays
    axis = d.c.pick((1,) if cached else (0, 1) if layout == SEQUENCE else (0, len(shape) - 1))
    symbol = SYMBOLS[layout, 0 if axis == 0 else 1 if layout == SEQUENCE else -1]
    high = min(MAX_RUN_SIZE, max(2 * shape[axis], 17))
    for block in chosen:
        if block.kind == "kv_cache" and axis == 1:
            high = min(high, block.get("cache_len") - block.get("start"))
    return TorchDynamic(symbol, axis, (shape[axis],), 2, max(high, shape[axis]))
