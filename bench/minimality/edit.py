"""One single edit of a result, shared by the check and the per-format edit modules (which the
check imports): kept apart so neither imports the other back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from oracles import Candidate
from oracles.candidate import CandidateRejected

KINDS = {"deletion": "deletions", "bypass": "bypasses", "halving": "halvings"}  # kind -> its plural


class NoCandidate(CandidateRejected):
    """The edit gives no candidate here (no type to stand in with, nothing to halve)."""


@dataclass(frozen=True)
class Edit:
    """One single edit of the result: its kind (one of KINDS), what it does, and how to make it."""

    kind: str
    label: str
    make: Callable[[], Candidate]  # raises CandidateRejected when the edit gives no valid candidate
