"""Oracles: everything that runs IREE and judges whether a candidate still shows a failure.

This package is the shared core of `reduce` and `fuzz`; it imports neither of them. Its own
layers, top to bottom (pyproject.toml's import-linter contract, tests/test_layers.py): the entry
points and `cli`, `releases`, `judge_spec`, `registry`, the oracles (`numeric`, `inputs`), the
input formats (`onnx`, `torch`), `compiling` and `script`, the protocol `base`, `data`, then
`toolchain` and `verdict`, and at the bottom `candidate`, `mlir`, `refusals` and `signature`. A
module imports only from layers below its own.

The names below load on first use: a compile worker imports `oracles.toolchain.warm`, and with
eager re-exports every worker would load the oracles, numpy and the MLIR bindings it never
uses (0.2 CPU s each).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oracles.base import Oracle, OracleOptions, OracleSetupError
    from oracles.candidate import Candidate
    from oracles.registry import ORACLES, make_oracle
    from oracles.verdict import Verdict

_HOMES = {
    "ORACLES": "oracles.registry",
    "Candidate": "oracles.candidate",
    "Oracle": "oracles.base",
    "OracleOptions": "oracles.base",
    "OracleSetupError": "oracles.base",
    "Verdict": "oracles.verdict",
    "make_oracle": "oracles.registry",
}

__all__ = ["ORACLES", "Candidate", "Oracle", "OracleOptions", "OracleSetupError", "Verdict", "make_oracle"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'oracles' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
