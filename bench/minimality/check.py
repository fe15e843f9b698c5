"""The 1-minimality check: every single edit of a result judged, uncached, by the reduction's oracle.

Judging goes through the oracle alone (no verdict cache, no reduction problem): the check must not
trust anything the reduction remembered. A candidate that does not import or verify is no
candidate and does not count; the first one that still fails ends the check with its edit named.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from oracles import Candidate, Oracle
from oracles.candidate import CandidateRejected
from oracles.formats import Format
from oracles.onnx.importer import is_import_failure
from reducer.formats.registry import format_for
from reducer.search.rejudge import judge_settled

KINDS = {"deletion": "deletions", "bypass": "bypasses", "halving": "halvings"}  # kind -> its plural


class NoCandidate(CandidateRejected):
    """The edit gives no candidate here (no type to stand in with, nothing to halve)."""


@dataclass(frozen=True)
class Edit:
    """One single edit of the result: its kind (one of KINDS), what it does, and how to make it."""

    kind: str
    label: str
    make: Callable[[], Candidate]  # raises CandidateRejected when the edit gives no valid candidate


@dataclass
class Minimality:
    """The check's answer: 1-minimal or not (None: the result itself does not fail judged again)."""

    minimal: bool | None = True
    judged: Counter = field(default_factory=Counter)  # kind -> candidates judged
    rejected: int = 0  # candidates that did not import or verify
    smaller: str = ""  # the first edit whose candidate still fails
    detail: str = ""  # its verdict, or why the check could not run
    seconds: float = 0.0
    not_covered: str = ""  # edits this result's format cannot have here (halvings of builtin tensors)
    found: Candidate | None = None  # the smaller candidate that still fails

    def cell(self) -> str:
        """The bench tables' column: 'yes (...)', 'NO: <edit>' or 'error: ...'."""
        if self.minimal is None:
            return f"error: {self.detail}"
        counts = ", ".join(f"{self.judged[kind]} {plural}" for kind, plural in KINDS.items())
        if not self.minimal:
            return f"NO: {self.smaller} still fails ({sum(self.judged.values())} judged)"
        gap = f"; {self.not_covered}" if self.not_covered else ""
        return f"yes ({counts} judged, {self.rejected} invalid{gap})"


def judge_for(oracle: Oracle, original: Candidate) -> Oracle | None:
    """`oracle` for the original's format, calibrated to the original's failure (judged once,
    uncached, as the reduction judged it first); None when the original does not fail."""
    judge = format_for(original.suffix).judging_oracle(oracle)
    reference = judge_settled(judge, original)
    return judge.calibrated(reference) if reference.interesting else None


def check(result: Candidate, judge: Oracle, edits: Iterable[Edit] | None = None) -> Minimality:
    """Whether `result` is 1-minimal under `judge` (the reduction's oracle, calibrated to the
    original's failure, wrapped for the result's format): the result must still fail, then each
    single edit of it must not."""
    start = time.monotonic()
    again = judge_settled(judge, result)
    if not again.interesting:
        return Minimality(None, detail=f"the result does not fail judged again: {again.detail}",
                          seconds=time.monotonic() - start)
    found = Minimality(not_covered=not_covered(result))
    for edit in single_edits(result) if edits is None else edits:
        try:
            candidate = edit.make()
        except CandidateRejected:
            found.rejected += 1
            continue
        verdict = judge_settled(judge, candidate)
        if is_import_failure(verdict):
            found.rejected += 1
            continue
        found.judged[edit.kind] += 1
        if verdict.interesting:
            found.minimal, found.smaller, found.detail, found.found = False, edit.label, verdict.detail, candidate
            break
    found.seconds = time.monotonic() - start
    return found


def single_edits(result: Candidate) -> Iterator[Edit]:
    """Every single edit of `result`, deletions first, then bypasses, then halvings."""
    if result.format is Format.ONNX:
        from bench.minimality import onnx_edits

        yield from onnx_edits.edits(result)
    elif result.format is Format.PT2:
        from bench.minimality import fx_edits  # torch loads only for a .pt2

        yield from fx_edits.edits(result)
    else:
        from bench.minimality import mlir_edits

        yield from mlir_edits.edits(result)


def not_covered(result: Candidate) -> str:
    """What the check cannot try on this result (said beside a yes)."""
    if result.format is Format.MLIR:
        from bench.minimality import mlir_edits

        return mlir_edits.not_covered(result)
    return ""
