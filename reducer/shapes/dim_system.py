"""Tensor dimension sizes as integer affine expressions of a few free sizes.

Ops tie dimensions together: a matmul's K on both operands, an elementwise result to its
operands, a convolution's input to its output, kernel, stride and dilation. Each tie is a linear
equation between sizes with integer coefficients whose constant is read off the current sizes
(a convolution's slack, a pad's amounts), so the current IR always satisfies it. Eliminating one
variable per equation (Gaussian elimination with unit pivots only, so every expression keeps
integer coefficients) leaves a few free sizes; every dimension is an affine expression of them.
Setting free sizes and evaluating every expression gives a new, consistent set of sizes.

An equation with no unit coefficient left (2a = 3b + c) fixes its variables at their current
sizes instead: the arithmetic stays exact, at the price of those dimensions not shrinking.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class _Expr:
    """const + sum(coef * size of the free place named by each key)."""

    coefs: dict[int, int] = field(default_factory=dict)
    const: int = 0


class DimSystem:
    """Places (dimensions) with current sizes, and the linear ties between them.

    Every place starts as its own free variable. A variable is named by the place that made it
    and its value is that place's current size, so while it is free that place's expression is
    the variable itself.
    """

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self._exprs: list[_Expr] = []
        self._users: dict[int, set[int]] = {}  # variable -> places whose expression uses it

    def add_place(self, size: int) -> int:
        place = len(self.sizes)
        self.sizes.append(size)
        self._exprs.append(_Expr({place: 1}))
        self._users[place] = {place}
        return place

    def equal(self, a: int, b: int) -> None:
        """Same size; the later variable goes, so a class is named by its earliest place."""
        self.tie([(a, 1), (b, -1)], latest=True)

    def fix(self, place: int) -> None:
        """The place keeps its current size."""
        self.tie([(place, 1)])

    def tie(self, terms: Sequence[tuple[int, int]], latest: bool = False) -> None:
        """sum(coef * size(place)) stays what it is now.

        The variable eliminated is one of the first term's (rules list the derived dim first: a
        convolution's input before its output and kernel), or with `latest` the latest of all.
        """
        coefs: dict[int, int] = {}
        const = 0
        for place, coef in terms:
            expr = self._exprs[place]
            for var, c in expr.coefs.items():
                coefs[var] = coefs.get(var, 0) + coef * c
            const += coef * (expr.const - self.sizes[place])
        coefs = {var: c for var, c in coefs.items() if c}
        if not coefs:
            return  # already implied
        units = [var for var, c in coefs.items() if abs(c) == 1]
        pivot = (max(units) if units else None) if latest else self._pivot(terms, coefs)
        if pivot is None:
            for var in list(coefs):
                self._substitute(var, _Expr({}, self.sizes[var]))
            return
        sign = coefs.pop(pivot)  # pivot = -(rest + const) / sign, sign is +-1
        self._substitute(pivot, _Expr({var: -c * sign for var, c in coefs.items()}, -const * sign))

    def _pivot(self, terms: Sequence[tuple[int, int]], coefs: dict[int, int]) -> int | None:
        """The latest variable with a unit coefficient of the first term that has one."""
        for place, _ in terms:
            units = [var for var in self._exprs[place].coefs if abs(coefs.get(var, 0)) == 1]
            if units:
                return max(units)
        return None  # every variable left has a coefficient of 2 or more

    def _substitute(self, var: int, by: _Expr) -> None:
        for place in self._users.pop(var, set()):
            expr = self._exprs[place]
            c = expr.coefs.pop(var)
            expr.const += c * by.const
            for other, d in by.coefs.items():
                total = expr.coefs.get(other, 0) + c * d
                if total:
                    expr.coefs[other] = total
                    self._users[other].add(place)
                else:
                    expr.coefs.pop(other, None)
                    self._users[other].discard(place)

    def free(self) -> list[int]:
        """The places whose size is still a free variable, in creation order."""
        return sorted(self._users)

    def only_shrinks(self, variables: Iterable[int]) -> bool:
        """Whether lowering these free variables together lowers or keeps every place.

        A place whose coefficients on them sum below zero would grow (a kernel that absorbs
        what its input loses): such a shrink is no reduction.
        """
        variables = set(variables)
        places = set().union(*(self._users.get(var, set()) for var in variables))
        return all(sum(c for var, c in self._exprs[p].coefs.items() if var in variables) >= 0 for p in places)

    def evaluate(self, values: Mapping[int, int]) -> list[int]:
        """Every place's size with the given free variables set (the others at their sizes)."""
        result = []
        for expr in self._exprs:
            total = expr.const
            for var, c in expr.coefs.items():
                total += c * values.get(var, self.sizes[var])
            result.append(total)
        return result

