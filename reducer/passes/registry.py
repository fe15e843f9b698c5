"""Every reduction pass, in the order the reducer runs them (to a fixpoint).

Cheap, large cuts first; data and attribute polish later; flags last, once the IR is small and
each compile is cheap.
"""

from __future__ import annotations

from reducer.passes.attributes import DropAttributes
from reducer.passes.base import ReductionPass
from reducer.passes.canonicalize import Canonicalize
from reducer.passes.constants import SplatConstants
from reducer.passes.cut import CutAtValue
from reducer.passes.flags import ReduceFlags
from reducer.passes.replace_ops import ReplaceWithArgument, ReplaceWithConstant, ReplaceWithOperand
from reducer.passes.signature import DropResults, DropUnusedArguments
from reducer.passes.symbols import RemoveSymbols

REDUCTION_PASSES: list[ReductionPass] = [
    RemoveSymbols(),        # 1. functions, globals and symbols nothing needs
    CutAtValue(),           # 2. an earlier value becomes the result; the rest goes
    ReplaceWithOperand(),   # 2. results -> a same-typed operand
    ReplaceWithArgument(),  # 2. results -> new function arguments
    ReplaceWithConstant(),  # 2. results -> zero constants
    DropResults(),          # 3. function results
    DropUnusedArguments(),  # 3. unused arguments
    SplatConstants(),       # 4. dense data -> splats
    DropAttributes(),       # 5. attributes the verifier does not require
    Canonicalize(),         # 6. canonicalize + cse as a candidate
    ReduceFlags(),          # 7. compile flags the failure does not need
]


def pass_by_name(name: str) -> ReductionPass:
    for reduction in REDUCTION_PASSES:
        if reduction.name == name:
            return reduction
    raise KeyError(f"unknown pass {name!r}; valid: {', '.join(p.name for p in REDUCTION_PASSES)}")
