"""A `TorchSpec` built: the program as an `nn.Module`, its inputs at each size, its dynamic shapes.

Weights come from `torch.manual_seed(spec.seed)` and are rounded to multiples of 1/32, inputs
from a numpy generator seeded by the seed and the size (multiples of 1/8 in [-2, 2]; a KV
cache's positions count up from its block's `start`): the same spec builds the same program and
data on any machine. A half-precision program is the f32 one moved to the type, so its f64
reference (`reference_module`) holds the very same weights.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn

from fuzz.torch_gen import modules
from fuzz.torch_gen.spec import FLOAT, Block, TorchSpec

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


class Program(nn.Module):
    """The blocks in order on one value; an epilogue's residual adds the input of the block before it."""

    def __init__(self, spec: TorchSpec) -> None:
        super().__init__()
        self.kinds = [block.kind for block in spec.blocks]
        self.blocks = nn.ModuleList(_module(block, spec) for block in spec.blocks)
        self.extra = frozenset(spec.extra_outputs)
        self.cast_inside = spec.cast_inside
        # Its type moves with the module (.to(dtype), .double()): what a cast inside goes to.
        self.register_buffer("compute", torch.zeros(()), persistent=False)

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None):
        outputs_type = x.dtype
        if self.cast_inside:  # autocast-like: f32 in and out, the program's own type inside
            x = x.to(self.compute.dtype)
        before, results = x, []
        for index, (kind, block) in enumerate(zip(self.kinds, self.blocks)):
            if kind == "epilogue":
                x = block(x, before)
            else:
                before = x
                x = block(x, positions) if kind == "kv_cache" else block(x)
            if index in self.extra:
                results.append(x)
        results.append(x)
        if self.cast_inside:
            results = [r.to(outputs_type) for r in results]
        return tuple(results) if len(results) > 1 else results[0]


def _module(block: Block, spec: TorchSpec) -> nn.Module:
    kind = block.kind
    if kind == "quant":
        return modules.Quant(block, _rank_at(spec, block))
    if kind == "rms_norm":
        return modules.rms_norm(block)
    table = {"conv": modules.Conv, "linear": modules.Linear, "int8_linear": modules.Int8Linear, "attention": modules.Attention,
             "kv_cache": modules.KVCache, "views": modules.Views, "epilogue": modules.Epilogue}
    if kind == "to_sequence":
        return modules.ToSequence()
    return table[kind](block)


def _rank_at(spec: TorchSpec, block: Block) -> int:
    """The rank of the value a block receives: the input's, 3 once an image became a sequence."""
    before = spec.blocks[: spec.blocks.index(block)]
    return 3 if any(earlier.kind == "to_sequence" for earlier in before) else len(spec.inputs[0].shape)


def build_module(spec: TorchSpec) -> nn.Module:
    """The program with its weights, in its type, in eval mode."""
    torch.manual_seed(spec.seed % (1 << 31))
    program = Program(spec)
    with torch.no_grad():
        for parameter in program.parameters():
            parameter.copy_(torch.round(parameter * 32) / 32)
    return program.to(DTYPES[spec.dtype]).eval()


def reference_module(module: nn.Module) -> nn.Module:
    """The same program in f64: the reference where a half type's answers disagree."""
    return copy.deepcopy(module).double()


def input_arrays(spec: TorchSpec, size: int | None = None) -> list[np.ndarray]:
    """The program's inputs at `size` of its dynamic dimension (None: the example's), as numpy arrays."""
    rng = np.random.default_rng([spec.seed % (1 << 31), size or 0])
    arrays = []
    for value in spec.inputs:
        shape = list(value.shape)
        if value.kind == FLOAT:
            if spec.dynamic is not None and size is not None:
                shape[spec.dynamic.axis] = size
            array = (rng.integers(-16, 17, shape) / 8).astype(np.float32)
            arrays.append(array if spec.cast_inside or spec.dtype == "float32" else _half(array, spec.dtype))
        else:  # a KV cache's positions: one per token, counting up from its start
            tokens = size if spec.dynamic is not None and size is not None and spec.dynamic.axis == 1 else shape[0]
            start = next(b.get("start") for b in spec.blocks if b.kind == "kv_cache")
            arrays.append(np.arange(start, start + tokens, dtype=np.int64))
    return arrays


def _half(array: np.ndarray, dtype: str) -> np.ndarray:
    from oracles.torch.eager import to_numpy

    return to_numpy(torch.from_numpy(array).to(DTYPES[dtype]))


def dynamic_shapes(spec: TorchSpec) -> tuple | None:
    """What torch.export is told: Dim.DYNAMIC at the dynamic axis (export infers its range), and
    on the positions where the tokens are dynamic."""
    if spec.dynamic is None:
        return None
    shapes = []
    for value in spec.inputs:
        if value.kind == FLOAT:
            shapes.append({spec.dynamic.axis: torch.export.Dim.DYNAMIC})
        else:
            shapes.append({0: torch.export.Dim.DYNAMIC} if spec.dynamic.axis == 1 else None)
    return tuple(shapes)
