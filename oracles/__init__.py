"""Oracles: everything that runs IREE and judges whether a candidate still shows a failure.

This package is the shared core of `reduce` and `fuzz`; it imports neither of them.
"""

from oracles.candidate import Candidate
from oracles.verdict import Verdict
from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.registry import ORACLES, make_oracle

__all__ = [
    "Candidate",
    "Verdict",
    "Oracle",
    "OracleOptions",
    "OracleSetupError",
    "ORACLES",
    "make_oracle",
]
