"""What a plain value is, per role: the ladders the plain-values pass walks down.

An engineer reads a repro by its numbers: a scale of 1 or a power of two makes the arithmetic
exact, a zero point of 1 or 4 is one that can be carried in the head, data of small integers can
be summed by hand. Each constant a quantized or arithmetic op reads gets a role from where it is
read and a ladder of replacements, plainest first; its level is the rung it already stands on
(one past the last when it is on none). Levels depend only on the value, never on the history,
so a search that only lowers levels ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCALE, OUTPUT_SCALE, ZERO_POINT, DATA = "scale", "output scale", "zero point", "data"

# ONNX input positions by role (`torch.operator "onnx.X"` operands are the same). A tensor read
# anywhere else (a Reshape's shape, a Slice's bounds) is no target: its value is structure.
_OUTPUT_SCALES = {"QuantizeLinear": (1,), "QLinearConv": (6,), "QLinearMatMul": (6,)}
_SCALES = {"DequantizeLinear": (1,), "QLinearConv": (1, 4), "QLinearMatMul": (1, 4)}
_ZERO_POINTS = {
    "QuantizeLinear": (2,), "DequantizeLinear": (2,), "QLinearConv": (2, 5, 7), "QLinearMatMul": (2, 5, 7),
    "MatMulInteger": (2, 3), "ConvInteger": (2, 3),
}  # fmt: skip
_DATA = {
    "QuantizeLinear": (0,), "DequantizeLinear": (0,), "QLinearConv": (0, 3, 8), "QLinearMatMul": (0, 3),
    "MatMulInteger": (0, 1), "ConvInteger": (0, 1), "Conv": (0, 1, 2), "ConvTranspose": (0, 1, 2), "MatMul": (0, 1),
    "Gemm": (0, 1, 2),
}  # fmt: skip
_ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "Max", "Min", "Sum", "Mean"})
# Roles in priority order: a scale that is also data somewhere stays a scale.
ROLES = (OUTPUT_SCALE, SCALE, ZERO_POINT, DATA)
ZERO_POINT_RUNGS = (0, 1, 2, 4, 8, 16, 32, 64)


def role_at(op_type: str, position: int) -> str | None:
    """The role of input `position` of an ONNX op, or None where its value is not data."""
    for role, table in ((OUTPUT_SCALE, _OUTPUT_SCALES), (SCALE, _SCALES), (ZERO_POINT, _ZERO_POINTS), (DATA, _DATA)):
        if position in table.get(op_type, ()):
            return role
    return DATA if op_type in _ELEMENTWISE else None


def role_of(uses: list[tuple[str, int]]) -> str | None:
    """The role of a tensor read at (op type, input position) `uses`: None when any read is no data."""
    roles = [role_at(op, position) for op, position in uses]
    if not roles or None in roles:
        return None
    return next(role for role in ROLES if role in roles)


@dataclass(frozen=True)
class Ladder:
    """The rungs for one value: `rungs[i]` is level i + 1 (None: it needs the value, unknown here)."""

    level: int
    rungs: tuple[np.ndarray | None, ...]

    def at(self, level: int) -> np.ndarray | None:
        return self.rungs[level - 1] if 1 <= level <= len(self.rungs) else None


def _is_pow2(v: np.ndarray) -> bool:
    with np.errstate(divide="ignore", invalid="ignore"):
        return bool(v.size) and bool(np.all((v > 0) & (np.log2(v) == np.round(np.log2(v)))))


def _pow2(v: np.ndarray, down: bool) -> np.ndarray | None:
    if not np.all(np.isfinite(v) & (v > 0)):
        return None
    exponent = np.floor(np.log2(v)) if down else np.round(np.log2(v))
    return np.exp2(exponent).astype(v.dtype)


def _fits(value: int, dtype: np.dtype) -> bool:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min <= value <= info.max
    return True


def _small(v: np.ndarray) -> np.ndarray:
    """Small integers in the value's pattern: [0, 4] unsigned, [-4, 4] otherwise."""
    if v.dtype.kind == "u":
        return (v % 5).astype(v.dtype)
    if v.dtype.kind == "i":
        return (((v.astype(np.int64) + 4) % 9) - 4).astype(v.dtype)
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return (np.round(v / top * 4) if top > 0 else v).astype(v.dtype)


def ladder(role: str, value: np.ndarray | None, dtype: np.dtype, shape: tuple[int, ...]) -> Ladder:
    """The rungs of a value in `role` (plainest first) and the level it stands on.

    Scales: all 1, then each a power of two (an output scale rounded down: a smaller output
    scale shows the error in more LSBs, never fewer). Zero points: 0, 1, 2, 4, ... 64 throughout.
    Data: zeros, ones, signs (-1, 0, 1), small integers in the value's pattern.
    """
    dtype = np.dtype(dtype)
    full = lambda c: np.full(shape, c, dtype=dtype)
    v = None if value is None else np.asarray(value, dtype=dtype).reshape(shape)
    if role in (SCALE, OUTPUT_SCALE):
        rungs = (full(1), None if v is None else _pow2(v, down=role == OUTPUT_SCALE))
        if v is None:
            level = 3
        else:
            level = 1 if np.all(v == 1) else 2 if _is_pow2(v) else 3
        return Ladder(level, rungs)
    if role == ZERO_POINT:
        rungs = tuple(full(c) if _fits(c, dtype) else None for c in ZERO_POINT_RUNGS)
        level = len(rungs) + 1
        if v is not None and v.size and np.all(v == v.flat[0]) and int(v.flat[0]) in ZERO_POINT_RUNGS:
            level = ZERO_POINT_RUNGS.index(int(v.flat[0])) + 1
        return Ladder(level, rungs)
    signs = None if v is None else (np.minimum(v, 1) if dtype.kind == "u" else np.sign(v)).astype(dtype)
    rungs = (full(0), full(1), signs, None if v is None else _small(v))
    if v is None:
        level = 5
    elif not np.any(v):
        level = 1
    elif np.all(v == 1):
        level = 2
    elif np.all(np.isin(v, (-1, 0, 1))):
        level = 3
    elif np.all((np.abs(v) <= 4) & (v == np.round(v))):
        level = 4
    else:
        level = 5
    return Ladder(level, rungs)
