"""`TorchSpec`: a frozen, JSON-round-trippable description of one PyTorch case.

A spec fully determines the program (`fuzz.torch_gen.build`): its inputs at their example size,
the blocks it applies in order (each an `nn.Module` of `fuzz.torch_gen.modules` with its
parameters), the element type it computes in, the dynamic dimension it is exported with and the
sizes it runs at, the seed its weights and inputs come from. A finding stores `spec.to_json()`
(with the exported program's ops beside it) and rebuilds the same program from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FRONTEND = "torch"  # what a case's spec JSON says it is (an ONNX spec says nothing)
FORMAT_VERSION = 1
FLOAT, POSITIONS = "float", "positions"  # input kinds: activations, and a KV cache's write positions


def frontend_of(spec_json: str) -> str:
    """'torch' or 'onnx': which front end a stored case's spec belongs to."""
    return FRONTEND if json.loads(spec_json).get("frontend") == FRONTEND else "onnx"


@dataclass(frozen=True)
class Block:
    """One block of the program: its kind (`fuzz.torch_gen.modules.BLOCKS`) and parameters."""

    kind: str
    params: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


@dataclass(frozen=True)
class TorchInput:
    name: str
    kind: str  # FLOAT or POSITIONS
    shape: tuple[int, ...]


@dataclass(frozen=True)
class TorchDynamic:
    """One input dimension exported as `torch.export.Dim(symbol, min=low, max=high)`: the program is
    compiled once with `?` there and run at each of `sizes` (the first is the example's)."""

    symbol: str
    axis: int  # of the first input; a positions input follows it where the dim is its length
    sizes: tuple[int, ...]
    low: int
    high: int


@dataclass(frozen=True)
class TorchSpec:
    seed: int
    features: frozenset[str]  # drawn
    used: frozenset[str]  # what the blocks exercise
    dtype: str  # float32, float16 or bfloat16
    cast_inside: bool  # half types: the inputs and outputs stay f32 and the program casts (autocast-like)
    inputs: tuple[TorchInput, ...]
    blocks: tuple[Block, ...]
    extra_outputs: tuple[int, ...] = ()  # blocks whose output is returned too
    dynamic: TorchDynamic | None = None
    attempt: int = 0  # draws of the seed torch.export rejected before this one
    ops: tuple[str, ...] = field(default=(), compare=False)  # the exported program's ops, once exported

    def to_json(self) -> str:
        return json.dumps({
            "frontend": FRONTEND, "version": FORMAT_VERSION, "seed": self.seed, "attempt": self.attempt,
            "features": sorted(self.features), "used": sorted(self.used), "dtype": self.dtype, "cast_inside": self.cast_inside,
            "inputs": [[i.name, i.kind, list(i.shape)] for i in self.inputs],
            "blocks": [[b.kind, {k: _plain(v) for k, v in b.params}] for b in self.blocks],
            "extra_outputs": list(self.extra_outputs),
            "dynamic": None if self.dynamic is None else [self.dynamic.symbol, self.dynamic.axis, list(self.dynamic.sizes),
                                                          self.dynamic.low, self.dynamic.high],
            "ops": list(self.ops),
        })  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> TorchSpec:
        doc = json.loads(text)
        if doc.get("frontend") != FRONTEND or doc.get("version") != FORMAT_VERSION:
            raise ValueError(f"not a version-{FORMAT_VERSION} PyTorch case spec")
        dynamic = doc["dynamic"]
        return cls(
            seed=doc["seed"], features=frozenset(doc["features"]), used=frozenset(doc["used"]), dtype=doc["dtype"],
            cast_inside=doc["cast_inside"], inputs=tuple(TorchInput(n, k, tuple(s)) for n, k, s in doc["inputs"]),
            blocks=tuple(Block(kind, tuple((k, _frozen(v)) for k, v in params.items())) for kind, params in doc["blocks"]),
            extra_outputs=tuple(doc["extra_outputs"]),
            dynamic=None if dynamic is None else TorchDynamic(dynamic[0], dynamic[1], tuple(dynamic[2]), dynamic[3], dynamic[4]),
            attempt=doc["attempt"], ops=tuple(doc.get("ops", ())),
        )  # fmt: skip


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _frozen(value: Any) -> Any:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value
