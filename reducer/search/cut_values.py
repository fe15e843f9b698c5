"""Fills in the values of the arguments a cut made: what the parent computes there on its data.

An edit (in the edit worker) reports each new argument's source, a value of the parent
(reducer/passes/support/argument_data.py); the oracle's reference computes every such value of the
parent once (`Oracle.values_at`: the reference pipeline, compiled once with every value returned,
oracles/data/intermediates.py; onnx.reference on the lifted graph for `reference-mismatch` on
torch-onnx IR), and each new argument carries its value under `at:argI`. Only the current parent
is kept: the best only moves forward.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from oracles.candidate import Candidate
from oracles.data.carried import INTERMEDIATE, pack
from oracles.data.intermediates import Position
from reducer.proposal import Proposal


class CutValues:
    def __init__(self, compute: Callable[[Candidate], dict[Position, np.ndarray] | str], log: Callable[[str], None]) -> None:
        self._compute, self._log = compute, log
        self._parent: str | None = None
        self._values: dict[Position, np.ndarray] = {}
        self.compiles = 0

    def fill(self, proposal: Proposal, parent: Proposal) -> Proposal:
        """`proposal` with its cut arguments' values from `parent`; as it is when it has none."""
        if not proposal.cuts:
            return proposal
        if self._parent != parent.candidate.key:
            self._parent = parent.candidate.key
            self.compiles += 1
            found = self._compute(parent.candidate)
            if isinstance(found, str):
                self._log(f"cut arguments get seeded values: {found}")
                found = {}
            self._values = found
        values = {f"{INTERMEDIATE}arg{i}": self._values[(k, r)] for i, k, r in proposal.cuts if (k, r) in self._values}
        return Proposal(replace(proposal.candidate, data=proposal.candidate.data + pack(values)), proposal.ops)
