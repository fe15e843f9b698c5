"""The two sources every generation decision goes through, behind one small interface.

Hypothesis (`graph_specs`) shrinks a failing case; `random.Random(seed)` (`spec_for_seed`) is fast
and draws the same spec for a seed across Hypothesis versions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from hypothesis import strategies as st


class Chooser(Protocol):
    def int(self, lo: int, hi: int) -> int: ...

    def pick(self, options: Sequence) -> Any: ...

    def flag(self, p: float = 0.5) -> bool: ...


class HypothesisChooser:
    def __init__(self, draw: Callable) -> None:
        self._draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def pick(self, options: Sequence) -> Any:
        options = list(options)
        return options[0] if len(options) == 1 else self._draw(st.sampled_from(options))

    def flag(self, p: float = 0.5) -> bool:
        if p == 0.5:
            return self._draw(st.booleans())
        return self._draw(st.integers(0, 99)) >= round(100 * (1 - p))  # shrinks towards False


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)

    def pick(self, options: Sequence) -> Any:
        options = list(options)
        return options[self._rng.randrange(len(options))]

    def flag(self, p: float = 0.5) -> bool:
        return self._rng.random() < p
