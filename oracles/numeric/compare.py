"""Comparing outputs with a tolerance derived from the dtype, the reduction length and quantization."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from oracles.data.arrays import BFLOAT16, ml_dtypes
from oracles.numeric.wrong_answer import (
    OUTPUTS_KEY,
    WRONG_KEY,
    WrongOutput,
    calibrated_mismatch,
    classify,
    encode,
    primary,
    shape_difference,
)
from oracles.verdict import Verdict

# ---------------------------------------------------------------------------------------------
# Comparison


def tolerance_for(dtype: np.dtype, reduction_length: int = 1, quantized: bool = False) -> tuple[float, float]:
    """(atol, rtol) for comparing two results of one computation in `dtype`.

    f64/f32: 1e-9 / 1e-5 (about 80 f32 ulps, room for different exp/tanh approximations),
    scaled by sqrt(reduction_length) for different summation orders. f16 1e-2 and bf16 5e-2
    (about 10 and 6 ulps), scaled by reduction_length ** 0.25. Integers and booleans are exact,
    except that 8-bit integers may be 1 LSB apart when `quantized` (requantization rounding).
    """
    dtype = np.dtype(dtype)
    k = max(int(reduction_length), 1)
    if dtype == np.bool_:
        return 0.0, 0.0
    if dtype.kind in "iu":
        return (1.0, 0.0) if quantized and dtype.itemsize == 1 else (0.0, 0.0)
    if BFLOAT16 is not None and dtype == BFLOAT16:
        base = 5e-2 * k**0.25
        return base, base
    if dtype == np.float16:
        base = 1e-2 * k**0.25
        return base, base
    if dtype == np.float64:
        base = 1e-9 * math.sqrt(k)
        return base, base
    if dtype == np.float32:
        base = 1e-5 * math.sqrt(k)
        return base, base
    if ml_dtypes is not None:  # f8 and other narrow floats
        try:
            eps = float(ml_dtypes.finfo(dtype).eps)
            return 4 * eps, 4 * eps
        except (ValueError, TypeError):
            pass
    raise ValueError(f"no tolerance for dtype {dtype}")


@dataclass
class Comparison:
    """How far `actual` is from `expected`; `first_mismatch` is the first output beyond tolerance."""

    matches: bool
    max_abs: float
    max_rel: float
    mismatch_fraction: float
    description: str
    first_mismatch: int | None = None
    examples: list[str] = field(default_factory=list)  # a few differing elements, for reports
    wrong: list[WrongOutput] = field(default_factory=list)  # what is wrong, per output and kind
    outputs: int = 0

    def metrics(self) -> dict[str, float | int | str]:
        """What a verdict keeps of it: sizes, and what is wrong (what calibration pins)."""
        kept: dict[str, float | int | str] = {
            "max_abs": self.max_abs, "max_rel": self.max_rel, "mismatch_fraction": self.mismatch_fraction,
        }  # fmt: skip
        if self.wrong:
            kept[WRONG_KEY], kept[OUTPUTS_KEY] = encode(self.wrong), self.outputs
        return kept

    def headline(self) -> str:
        """The wrong answer in a few words: '; wrong: output 0 magnitude on 8/8 elements (100%), up to 14 LSB'."""
        top = primary(self.wrong)
        return f"; wrong: {top}" if top is not None else ""

    def differs_from(self, reference: Verdict | None, share: float) -> str | None:
        """None when this mismatch is the calibrated original's wrong answer (or nothing is pinned),
        else why it is not."""
        return calibrated_mismatch(reference.metrics if reference is not None else None, self.wrong, self.outputs, share)

    def verdict(self, reference: Verdict | None, share: float, signature: str, against: str, function: str) -> Verdict:
        """The verdict of an oracle that compares IREE's outputs of @`function` with `against`'s
        (a reference: onnx.reference, PyTorch eager): interesting when they differ the original's
        way (`reference`, the calibrated verdict; None: any difference)."""
        metrics = self.metrics()
        if self.matches:
            return Verdict(False, "", f"IREE matches {against} on @{function}: {self.description}", metrics)
        examples = "; ".join(self.examples[:3])
        slipped = self.differs_from(reference, share)
        if slipped:
            return Verdict(False, "", f"IREE differs from {against} on @{function}, {slipped}", metrics, "\n".join(self.examples))
        detail = f"IREE differs from {against} on @{function}: {self.description}{self.headline()}"
        return Verdict(True, signature, detail + (f" ({examples})" if examples else ""), metrics, "\n".join(self.examples))


@dataclass
class _OneOutput:
    mismatches: int
    total: int
    max_abs: float
    max_rel: float
    atol: float
    rtol: float
    note: str = ""
    examples: list[str] = field(default_factory=list)
    wrong: list[WrongOutput] = field(default_factory=list)


def _int_like(array: np.ndarray) -> bool:
    return array.dtype == np.bool_ or array.dtype.kind in "iu"


def _examples(mask: np.ndarray, expected: np.ndarray, actual: np.ndarray, index: int, limit: int = 5) -> list[str]:
    found = []
    for position in np.argwhere(mask)[:limit]:
        where = tuple(int(p) for p in position)
        found.append(f"output {index}{list(where)}: expected {_scalar(expected[where])} got {_scalar(actual[where])}")
    return found


def _scalar(value) -> str:
    value = np.asarray(value)
    if value.dtype == np.bool_ or value.dtype.kind in "iu":
        return str(value.item())
    return f"{float(value):.7g}"


def _compare_one(
    expected: np.ndarray, actual: np.ndarray, index: int, tolerance: tuple[float, float], nan_equal: bool
) -> _OneOutput:
    atol, rtol = tolerance
    if expected.shape != actual.shape:
        total = max(expected.size, actual.size, 1)
        note = f"shape {expected.shape} vs {actual.shape}"
        return _OneOutput(total, total, math.inf, math.inf, atol, rtol, note, wrong=[shape_difference(index, total)])
    total = expected.size
    if total == 0:
        return _OneOutput(0, 0, 0.0, 0.0, atol, rtol)
    if _int_like(expected) and _int_like(actual):
        if expected.dtype.itemsize == actual.dtype.itemsize:
            # Same width: compare bits (IREE integers are signless; a ui8 may come back as i8),
            # and measure distances in the expected's interpretation.
            unsigned = np.dtype(f"uint{8 * expected.itemsize}")
            equal = expected.view(unsigned) == actual.view(unsigned)
            as_expected = actual.view(np.uint8).astype(bool) if expected.dtype == np.bool_ else actual.view(expected.dtype)
        else:
            as_expected = actual
            equal = expected.astype(np.int64) == actual.astype(np.int64)
        diff = np.abs(expected.astype(np.float64) - as_expected.astype(np.float64))
        mismatch = ~equal if atol == 0 else (~equal & (diff > atol))
        magnitude = np.maximum(np.abs(expected.astype(np.float64)), 1.0)
        rel = diff / magnitude
        shown = as_expected
        integer = True
    else:
        e = expected.astype(np.float64)
        a = actual.astype(np.float64)
        e_nan, a_nan = np.isnan(e), np.isnan(a)
        same_special = (e_nan & a_nan) if nan_equal else np.zeros_like(e_nan)
        same_special |= np.isinf(e) & (e == a)
        finite = np.isfinite(e) & np.isfinite(a)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(finite, np.abs(e - a), np.where(same_special, 0.0, math.inf))
            mismatch = ~same_special & ~(finite & (diff <= atol + rtol * np.abs(e)))
        floor = atol if atol > 0 else float(np.finfo(np.float32).tiny)
        with np.errstate(invalid="ignore", over="ignore"):
            rel = np.where(np.isfinite(diff), diff / np.maximum(np.abs(np.where(finite, e, 0.0)), floor), diff)
        shown = actual
        integer = False
    count = int(np.count_nonzero(mismatch))
    return _OneOutput(
        count,
        total,
        float(diff.max()),
        float(np.nan_to_num(rel, nan=math.inf).max()),
        atol,
        rtol,
        examples=_examples(mismatch, expected, shown, index) if count else [],
        wrong=classify(index, expected, shown, mismatch, integer) if count else [],
    )


def compare_outputs(
    expected: Sequence[np.ndarray],
    actual: Sequence[np.ndarray],
    *,
    reduction_length: int = 1,
    quantized: bool = False,
    atol: float | None = None,
    rtol: float | None = None,
    nan_equal: bool = True,
    computed_in: Sequence[np.dtype] = (),
) -> Comparison:
    """Compares result lists element-wise with `tolerance_for` each output's dtype (or atol/rtol);
    a float output of a program that computes in narrower floats (`computed_in`: an f32 result of
    f16 matmuls) is compared at the loosest of their tolerances.

    Integers of one width compare bit-exactly (signedness may differ between the two sides);
    NaN equals NaN when `nan_equal`, an infinity only the same infinity; NaN against a number,
    or a shape difference, is a mismatch with max_abs inf.
    """
    if len(expected) != len(actual):
        count = f"{len(expected)} outputs vs {len(actual)}"
        return Comparison(False, math.inf, math.inf, 1.0, count, 0, wrong=[shape_difference(0, 1)], outputs=len(actual))
    results: list[_OneOutput] = []
    for index, (e, a) in enumerate(zip(expected, actual)):
        e, a = np.asarray(e), np.asarray(a)
        kinds = (e.dtype, a.dtype, *(computed_in if e.dtype.kind == "f" or e.dtype == BFLOAT16 else ()))
        tolerances = [tolerance_for(d, reduction_length, quantized) for d in kinds]
        loosest = max(tolerances)
        tolerance = (loosest[0] if atol is None else atol, loosest[1] if rtol is None else rtol)
        results.append(_compare_one(e, a, index, tolerance, nan_equal))
    total = sum(r.total for r in results)
    mismatches = sum(r.mismatches for r in results)
    max_abs = max((r.max_abs for r in results), default=0.0)
    max_rel = max((r.max_rel for r in results), default=0.0)
    fraction = mismatches / total if total else 0.0
    bad = [i for i, r in enumerate(results) if r.mismatches]
    if not bad:
        description = f"{len(results)} output(s) match (max_abs {max_abs:.3g}, max_rel {max_rel:.3g})"
        return Comparison(True, max_abs, max_rel, 0.0, description, outputs=len(results))
    first = results[bad[0]]
    what = first.note or (
        f"{first.mismatches}/{first.total} elements beyond atol {first.atol:.3g} rtol {first.rtol:.3g}"
    )
    description = f"output {bad[0]} differs: {what}; max_abs {max_abs:.3g}, max_rel {max_rel:.3g}"
    if len(bad) > 1:
        description += f" (outputs {', '.join(map(str, bad))} differ)"
    examples = [example for r in results for example in r.examples][:5]
    wrong = [w for r in results for w in r.wrong]
    return Comparison(False, max_abs, max_rel, fraction, description, bad[0], examples, wrong, len(results))


