"""Every reduction pass, in the order the reducer runs them (to a fixpoint).

Cheap, large cuts first; data and attribute polish later; flags last, once the IR is small and
each compile is cheap. MLIR input runs `REDUCTION_PASSES`; ONNX input (`.onnx`) runs
`ONNX_REDUCTION_PASSES`, which edit the model itself and let the oracle import each candidate.
"""

from __future__ import annotations

from reducer.passes.attributes import DropAttributes
from reducer.passes.base import ReductionPass
from reducer.passes.canonicalize import Canonicalize
from reducer.passes.constants import SplatConstants
from reducer.passes.cut import CutAtValue
from reducer.passes.flags import ReduceFlags
from reducer.passes.linalg_shapes import ShrinkLinalgShapes
from reducer.passes.onnx_graph import (
    OnnxCutInputs,
    OnnxCutOutputs,
    OnnxDropAttributes,
    OnnxRemoveNodes,
    OnnxSimplifyInitializers,
)
from reducer.passes.replace_ops import (
    ReplaceWithArgument,
    ReplaceWithConstant,
    ReplaceWithOperand,
)
from reducer.passes.shapes import ShrinkOnnxShapes, ShrinkTorchOnnxShapes
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
    ShrinkTorchOnnxShapes(),  # dimensions of torch-onnx IR, shrunk on its lifted ONNX graph
    ShrinkLinalgShapes(),   # dimensions of linalg / tensor IR and hal.executables, tied by op rules
    ReduceFlags(),          # 7. compile flags the failure does not need
]


ONNX_REDUCTION_PASSES: list[ReductionPass] = [
    OnnxCutOutputs(),            # 1. one node's output becomes the only output; the rest goes
    OnnxCutInputs(),             # 1. nodes before a cut go; crossing tensors become inputs
    OnnxRemoveNodes(),           # 2. nodes -> new graph inputs
    OnnxSimplifyInitializers(),  # 3. weights and Constant values -> zeros
    OnnxDropAttributes(),        # 4. attributes the op schema does not require
    ShrinkOnnxShapes(),          # 5. tensor dimensions: 1, 2, then bisect; shapes re-inferred
    ReduceFlags(),               # 6. compile flags the failure does not need
]


def passes_for(input_suffix: str) -> list[ReductionPass]:
    """The pass list for an input file by its suffix."""
    return ONNX_REDUCTION_PASSES if input_suffix == ".onnx" else REDUCTION_PASSES


def pass_by_name(name: str, passes: list[ReductionPass] | None = None) -> ReductionPass:
    passes = REDUCTION_PASSES if passes is None else passes
    for reduction in passes:
        if reduction.name == name:
            return reduction
    raise KeyError(f"unknown pass {name!r}; valid: {', '.join(p.name for p in passes)}")
