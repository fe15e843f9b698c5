"""What every step of a reduction passes around: a candidate with its size (ops, then bytes).

At the bottom of `reducer/`: the search, the passes, localisation, the formats and the storage of
a reduction's state all speak of proposals.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from oracles import Candidate


@dataclass(frozen=True)
class Proposal:
    """A changed candidate and its op count (the first key of the reducer's size order)."""

    candidate: Candidate
    ops: int
    # New arguments whose values the parent computes (argument_data.py): filled in before judging.
    cuts: tuple[tuple[int, int, int], ...] = ()

    @property
    def cost(self) -> tuple[int, int]:
        return (self.ops, content_size(self.candidate) + sum(len(f) + 1 for f in self.candidate.flags))


def content_size(candidate: Candidate) -> int:
    """The second key of the size order: text bytes; for a binary input (ONNX) its non-zero bytes.

    Zeroing a weight keeps a serialised model's length, so raw length alone would never count it
    as smaller; every other edit of a binary removes bytes, and with them non-zero ones (field tags).
    """
    if candidate.binary is None:
        return candidate.size
    return len(candidate.binary) - candidate.binary.count(0)


def recording(proposals: Iterable[Proposal], into: list[Proposal]) -> Iterator[Proposal]:
    """Yields the proposals as they come (each is judged while the next is made), keeping each in
    `into`: what a caller pairs with the verdicts afterwards."""
    for proposal in proposals:
        into.append(proposal)
        yield proposal
