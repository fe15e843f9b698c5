"""Oracles: everything that runs IREE and judges whether a candidate still shows a failure.

This package is the shared core of `reduce` and `fuzz`; it imports neither of them.
"""

from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.candidate import Candidate
from oracles.registry import ORACLES, make_oracle
from oracles.verdict import Verdict

__all__ = [
    "ORACLES",
    "Candidate",
    "Oracle",
    "OracleOptions",
    "OracleSetupError",
    "Verdict",
    "make_oracle",
]
