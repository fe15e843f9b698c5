"""What is wrong in a wrong answer, and whether a candidate is wrong the same way.

"Any difference beyond tolerance" lets a reduction slip from the user's failure to another one:
from 2,048 of 2,048 elements wrong by thousands to 1 of 81 wrong by 2 LSB at a rounding edge,
from a magnitude error to a NaN, from one output to another. Calibration therefore records, for
each output that differs and each kind of difference in it, how many elements are wrong and by
how much; a calibrated oracle keeps a candidate only when it is wrong the original's way.

Kinds, per element beyond tolerance: `nan-inf` (NaN or Inf against a finite value), `sign`
(finite, opposite signs), `saturated` (an integer result whose expected value is its type's
minimum or maximum: clipping is involved, as when a reduction sets every scale to 1 and a
different overflow or clamping bug shows), `magnitude` (the rest); `shape` when the shapes differ. The error is
the largest of those elements', in LSBs for integer results (quantized ones included) and as a
relative error for floats (relative to the output's mean magnitude where the expected element is
smaller); `rel` is also kept for integers, to compare across the two units.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import numpy as np

from oracles import refusals

NAN_INF, SIGN, SATURATED, MAGNITUDE, SHAPE = "nan-inf", "sign", "saturated", "magnitude", "shape"
LSB, REL = "LSB", "rel"
# metrics keys of a wrong answer's verdict
WRONG_KEY, OUTPUTS_KEY = "wrong", "outputs"


@dataclass(frozen=True)
class WrongOutput:
    """One kind of wrong element in one output: how many, and the largest error among them."""

    output: int
    kind: str
    wrong: int
    total: int
    error: float  # in `unit`; inf for nan-inf and shape
    unit: str
    rel: float  # the same error relative to the expected value's magnitude

    @property
    def fraction(self) -> float:
        return self.wrong / self.total if self.total else 0.0

    def __str__(self) -> str:
        if math.isinf(self.error):
            size = ""
        else:
            size = f", up to {_number(self.error)} LSB" if self.unit == LSB else f", relative error up to {_number(self.error)}"
        return f"output {self.output} {self.kind} on {self.wrong}/{self.total} elements ({self.fraction:.0%}){size}"


def _number(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.3g}"


def classify(index: int, expected: np.ndarray, actual: np.ndarray, mismatch: np.ndarray, integer: bool) -> list[WrongOutput]:
    """The kinds of wrong elements in one output (`actual` read as `expected`'s type), most first."""
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    total = int(mismatch.size)
    with np.errstate(invalid="ignore", over="ignore"):
        nonfinite = mismatch & (np.isfinite(e) != np.isfinite(a))
        finite = mismatch & np.isfinite(e) & np.isfinite(a)
        sign = finite & (np.sign(e) * np.sign(a) < 0)
        saturated = finite & ~sign & _at_bounds(expected)
        magnitude = mismatch & ~nonfinite & ~sign & ~saturated
        diff = np.where(finite, np.abs(e - a), 0.0)
        rel = diff / np.maximum(np.abs(np.where(finite, e, 0.0)), _floor(e, integer))
    found = []
    for kind, mask in ((NAN_INF, nonfinite), (SIGN, sign), (SATURATED, saturated), (MAGNITUDE, magnitude)):
        count = int(np.count_nonzero(mask))
        if not count:
            continue
        if kind == NAN_INF:
            error = largest_rel = math.inf
        else:
            largest_rel = float(rel[mask].max())
            error = float(diff[mask].max()) if integer else largest_rel
        found.append(WrongOutput(index, kind, count, total, error, LSB if integer else REL, largest_rel))
    return sorted(found, key=lambda w: -w.wrong)


def _at_bounds(expected: np.ndarray) -> np.ndarray:
    """Integer elements at their type's minimum or maximum (a clipped, saturated result)."""
    if expected.dtype.kind not in "iu":
        return np.zeros(expected.shape, bool)
    info = np.iinfo(expected.dtype)
    return (expected == info.min) | (expected == info.max)


def _floor(expected: np.ndarray, integer: bool) -> float:
    """The magnitude below which an error counts relative to the output's typical size, not to
    the element's (an expected 0 would make any difference infinitely relative): 1 for integers,
    the output's mean finite magnitude for floats."""
    if integer:
        return 1.0
    finite = np.abs(expected[np.isfinite(expected)])
    mean = float(finite.mean()) if finite.size else 0.0
    return mean if mean > 0 else 1.0


def shape_difference(index: int, total: int) -> WrongOutput:
    return WrongOutput(index, SHAPE, total, total, math.inf, REL, math.inf)


def primary(wrong: list[WrongOutput]) -> WrongOutput | None:
    """The headline of a wrong answer: NaN or Inf wherever it shows, else the kind with the most
    wrong elements (then the largest error)."""
    if not wrong:
        return None
    return max(wrong, key=lambda w: (w.kind == NAN_INF, w.fraction, w.rel))


def encode(wrong: list[WrongOutput]) -> str:
    """Plain text for a verdict's metrics (cached and compared as data)."""
    return json.dumps([asdict(w) for w in wrong], sort_keys=True)


def decode(text: object) -> list[WrongOutput]:
    if not isinstance(text, str) or not text:
        return []
    try:
        return [WrongOutput(**fields) for fields in json.loads(text)]
    except (ValueError, TypeError):
        return []


def check_share(share: float) -> str | None:
    """Why `share` is no usable --wrong-share, or None."""
    if not (isinstance(share, (int, float)) and 0.0 <= share <= 1.0):
        return refusals.WRONG_SHARE_RANGE.say(share=share)
    return None


def _holds(seen: WrongOutput, original: WrongOutput, share: float) -> bool:
    if seen.kind != original.kind or seen.fraction < share * original.fraction:
        return False
    if original.kind in (NAN_INF, SHAPE):
        return True
    if seen.unit == original.unit:
        return seen.error >= share * original.error
    return seen.rel >= share * original.rel


def same_failure(original: list[WrongOutput], original_outputs: int, seen: list[WrongOutput], outputs: int, share: float) -> str | None:
    """None when `seen` shows the original's wrong answer, else why not (one line).

    The candidate must show the original's headline kind with a wrong fraction and an error of at
    least `share` of the original's: on the same output while the output count is the original's,
    on any output once passes have cut or dropped outputs (then no index corresponds).
    """
    headline = primary(original)
    if headline is None:
        return None
    where = [w for w in seen if outputs != original_outputs or w.output == headline.output]
    if any(_holds(w, headline, share) for w in where):
        return None
    shown = "; ".join(map(str, seen)) or "nothing"
    need = f"at least {share:.0%} of the original's fraction" + ("" if headline.kind in (NAN_INF, SHAPE) else " and error")
    return f"wrong differently: {shown}; the original: {headline} ({need})"


def calibrated_mismatch(reference_metrics: dict | None, seen: list[WrongOutput], outputs: int, share: float) -> str | None:
    """`same_failure` against what a calibration verdict's metrics recorded (None: nothing to pin)."""
    if not reference_metrics:
        return None
    original = decode(reference_metrics.get(WRONG_KEY))
    if not original:
        return None
    return same_failure(original, int(reference_metrics.get(OUTPUTS_KEY, outputs)), seen, outputs, share)


def same_headline_kind(original_metrics: dict, metrics: dict) -> bool:
    """Whether two verdicts' wrong answers headline the same kind: a pin may move to another
    share of a failure, never to another kind of failure (a NaN is not a wrong magnitude)."""
    original = primary(decode(original_metrics.get(WRONG_KEY)))
    seen = primary(decode(metrics.get(WRONG_KEY)))
    return original is not None and seen is not None and original.kind == seen.kind


def at_least_as_wrong(best_metrics: dict, metrics: dict) -> bool:
    """Whether a verdict's wrong answer is the best's with no smaller fraction and error (share 1).

    For a pass that only makes values plainer: it must not buy plainness with a fainter error.
    Verdicts without a wrong-answer profile (other oracles) always are.
    """
    best = decode(best_metrics.get(WRONG_KEY))
    if not best:
        return True
    seen = decode(metrics.get(WRONG_KEY))
    return same_failure(best, int(best_metrics.get(OUTPUTS_KEY, 1)), seen, int(metrics.get(OUTPUTS_KEY, 1)), 1.0) is None
