"""What the search asks of a pass, and how it searches a pass's targets; nothing about formats.

Like llvm-reduce's delta passes, a pass never holds IR between calls: it re-reads the current
best, enumerates its targets in a deterministic order, and edits only the chosen indices. The
engine decides which indices to try (ddmin chunks, a bisection, or a shrink of each size).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from enum import Enum
from typing import ClassVar, Protocol

from iree.compiler import ir

from oracles import Verdict
from reducer.proposal import Proposal


class Search(str, Enum):
    DDMIN = "ddmin"  # any subset of targets may go together: delta debugging in chunks
    BISECT = "bisect"  # one target at a time, ordered so that once one works every later one usually does
    SHRINK = "shrink"  # targets are sizes, each made as small as the failure allows


class ReductionPass(ABC):
    """Lists the targets of one kind of edit and applies a chosen subset of them (ddmin, bisect).

    Its name, search and inputs are declared in reducer/passes/registry.py, not here.
    """

    @abstractmethod
    def count(self, current: Proposal, ctx: ir.Context) -> int:
        """How many targets the current best has."""

    @abstractmethod
    def apply(self, current: Proposal, chosen: Sequence[int], ctx: ir.Context) -> Proposal | None:
        """The candidate with the chosen targets reduced, or None if the edit cannot be made or
        changes nothing; raises CandidateRejected (oracles/candidate.py) when a tool (verifier,
        checker, exporter, importer) rejects what it made: the problem counts that edit as failed."""


# Changes a candidate's representation (a serialised ONNX model -> its imported MLIR, or None when
# it does not import): the problem runs it under the oracle's limits and counts it.
Convert = Callable[[bytes], "str | None"]


class ShrinkPass(ABC):
    """Targets are sizes (tensor dimensions), each made as small as the failure allows."""

    # (the best's verdict, a candidate's verdict) -> whether the candidate keeps what the best
    # shows; None: being interesting is enough.
    keeps: ClassVar[Callable[[Verdict, Verdict], bool] | None] = None

    @abstractmethod
    def dimensions(self, current: Proposal, ctx: ir.Context) -> list[tuple[str, int]]:
        """(stable key, current size) of each dimension target."""

    @abstractmethod
    def resize(self, current: Proposal, key: str, size: int, ctx: ir.Context, convert: Convert) -> Proposal | None:
        """The candidate with dimension `key` set to `size`, or None if it cannot be made;
        CandidateRejected as `ReductionPass.apply`."""


class ScheduledPass(Protocol):
    """A pass as the engine runs it: its name, how its targets are searched, and the pass."""

    name: str
    search: Search
    impl: ReductionPass | ShrinkPass
