"""Every oracle by name, in the order `reduce --list-oracles` prints them."""

from __future__ import annotations

from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.compiling.compile_failure import CompileError, Crash, Timeout
from oracles.compiling.ir_phase import (
    DispatchCount,
    IrMatch,
    ReadwriteConstant,
    TransientCopy,
)
from oracles.compiling.lds import LdsLimit
from oracles.numeric.miscompile import Miscompile
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.script import Script

ORACLES: dict[str, type[Oracle]] = {
    oracle.name: oracle
    for oracle in (
        LdsLimit,
        CompileError,
        Crash,
        Timeout,
        TransientCopy,
        ReadwriteConstant,
        DispatchCount,
        IrMatch,
        Miscompile,
        ReferenceMismatch,
        Script,
    )
}


def make_oracle(name: str, options: OracleOptions | None = None) -> Oracle:
    if name not in ORACLES:
        raise OracleSetupError(f"unknown oracle {name!r}; valid: {', '.join(ORACLES)}")
    return ORACLES[name](options)
