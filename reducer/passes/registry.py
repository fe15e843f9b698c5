"""Every reduction pass, in the order the reducer runs them (to a fixpoint): the whole declaration.

In the spirit of llvm-reduce's DeltaPasses.def, one row per pass says everything about it: its
name, what it reduces, how its targets are searched, the inputs it applies to and what it does.
Cheap, large cuts first (whole functions, whole layers, one canonicalization of the whole
module, which folds a torch export's view and cast chains by the hundred); data and attribute
polish later; plain values, then shapes once the
program is small (values first: a plainer value can let a dimension shrink further, and a shape
pass keeps values as they are); flags last, once each compile is cheap. An input runs the rows whose `inputs` hold its kind
(reducer/passes/kinds.py). `reduce --list-passes` prints this table and nothing else.

Searches: `ddmin` (any subset of targets may go together: delta debugging in chunks), `bisect`
(one target at a time, ordered so that once one works every later one usually works too),
`shrink` (targets are sizes, each made as small as the failure allows).
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles import Oracle, refusals
from reducer.passes.cross_format.flags import ReduceFlags
from reducer.passes.cross_format.plain_values import PlainValues
from reducer.passes.fx.bypass_nodes import FxBypassNodes
from reducer.passes.fx.cut_inputs import FxCutInputs
from reducer.passes.fx.cut_outputs import FxCutOutputs
from reducer.passes.fx.drop_outputs import FxDropOutputs
from reducer.passes.fx.plain_tensors import FxPlainTensors
from reducer.passes.fx.remove_nodes import FxRemoveNodes
from reducer.passes.fx.replace_with_constant import FxReplaceWithConstant
from reducer.passes.fx.shrink_shapes import FxShrinkShapes
from reducer.passes.fx.zero_tensors import FxZeroTensors
from reducer.passes.kinds import EVERY_KIND, MLIR_KINDS, InputKind
from reducer.passes.mlir.attributes import DropAttributes
from reducer.passes.mlir.bypass_broadcast import BypassBroadcast
from reducer.passes.mlir.canonicalize import Canonicalize
from reducer.passes.mlir.collapse_views import CollapseViews
from reducer.passes.mlir.constants import SplatConstants
from reducer.passes.mlir.constants_to_arguments import ConstantsToArguments
from reducer.passes.mlir.cut import CutAtValue
from reducer.passes.mlir.drop_results import DropResults
from reducer.passes.mlir.drop_unused_arguments import DropUnusedArguments
from reducer.passes.mlir.remove_resultless import RemoveResultless
from reducer.passes.mlir.repeated_blocks import RemoveRepeatedBlocks
from reducer.passes.mlir.replace_with_argument import ReplaceWithArgument
from reducer.passes.mlir.replace_with_computed import ReplaceWithComputed
from reducer.passes.mlir.replace_with_constant import ReplaceWithConstant
from reducer.passes.mlir.replace_with_operand import ReplaceWithOperand
from reducer.passes.mlir.shrink_linalg_shapes import ShrinkLinalgShapes
from reducer.passes.mlir.shrink_torch_onnx_shapes import ShrinkTorchOnnxShapes
from reducer.passes.mlir.symbols import RemoveSymbols
from reducer.passes.onnx.bypass_nodes import OnnxBypassNodes
from reducer.passes.onnx.cut_inputs import OnnxCutInputs
from reducer.passes.onnx.cut_outputs import OnnxCutOutputs
from reducer.passes.onnx.drop_attributes import OnnxDropAttributes
from reducer.passes.onnx.pin_dims import PIN_PASS, OnnxPinDims
from reducer.passes.onnx.remove_nodes import OnnxRemoveNodes
from reducer.passes.onnx.shrink_shapes import ShrinkOnnxShapes
from reducer.passes.onnx.simplify_initializers import OnnxSimplifyInitializers
from reducer.search.protocol import ReductionPass, Search


@dataclass(frozen=True)
class PassRow:
    """One pass: its declaration and the object that lists and edits its targets."""

    name: str
    reduces: str
    search: Search
    inputs: frozenset[InputKind]
    description: str
    impl: ReductionPass
    # Only where the oracle judges compiles, never runs the module: a wrong answer keeps its
    # constants (the data a user reads in the repro, what plain-values makes plain).
    compile_only: bool = False


ONNX = frozenset({InputKind.ONNX})
TORCH_DIALECT = frozenset({InputKind.TORCH_DIALECT})
BELOW_TORCH = frozenset({InputKind.LINALG, InputKind.FLOW_STREAM, InputKind.HAL_EXECUTABLE})
ONNX_OR_TORCH_DIALECT = ONNX | TORCH_DIALECT
PT2 = frozenset({InputKind.PT2})
D, B, S = Search.DDMIN, Search.BISECT, Search.SHRINK

PASSES: tuple[PassRow, ...] = (
    # name                          reduces                 search inputs      description
    PassRow("remove-symbols",       "symbols",              D, MLIR_KINDS, "remove functions, globals and symbols nothing needs", RemoveSymbols()),
    PassRow("remove-repeated-blocks", "repeated op runs",   D, MLIR_KINDS, "drop whole copies of a repeated run of ops (transformer layers): later code reads the copy before; unused globals go", RemoveRepeatedBlocks()),
    PassRow("canonicalize",         "the whole module",     D, MLIR_KINDS, "run canonicalize, cse and symbol-dce as one candidate", Canonicalize()),
    PassRow("remove-resultless-ops", "ops without results", D, MLIR_KINDS, "erase ops that produce nothing (shape bindings, stores, in-place writes) and what only they read", RemoveResultless()),
    PassRow("collapse-views",       "shape-only op chains", D, MLIR_KINDS, "make a torch view read the start of the chain of views, transposes and unsqueezes before it; the chain goes", CollapseViews()),
    PassRow("cut-at-value",         "ops after a value",    B, MLIR_KINDS, "make an earlier value the function's only result, dropping everything after it", CutAtValue()),
    PassRow("replace-with-operand", "ops",                  D, MLIR_KINDS, "forward a same-typed operand in place of each result, erase the op", ReplaceWithOperand()),
    PassRow("bypass-broadcast",     "broadcasts and casts", D, MLIR_KINDS, "let broadcasting elementwise ops read past an unsqueeze, expand or float cast of their operand", BypassBroadcast()),
    PassRow("replace-with-argument", "ops",                 D, MLIR_KINDS, "turn each result into a new function argument, erase the op", ReplaceWithArgument()),
    PassRow("replace-with-constant", "ops",                 D, MLIR_KINDS, "replace each result with a zero constant, erase the op", ReplaceWithConstant()),
    PassRow("replace-with-computed", "ops",                 D, MLIR_KINDS, "replace each result with the negation of a new argument: still computed, without its inputs", ReplaceWithComputed()),
    PassRow("constants-to-arguments", "constants",          D, MLIR_KINDS, "turn each constant into a new function argument, erase it (compile-only oracles)", ConstantsToArguments(), compile_only=True),
    PassRow("drop-results",         "function results",     D, MLIR_KINDS, "drop function results (and what only they needed)", DropResults()),
    PassRow("drop-unused-arguments", "function arguments",  D, MLIR_KINDS, "drop function arguments nothing reads", DropUnusedArguments()),
    PassRow("splat-constants",      "constant data",        D, MLIR_KINDS, "turn dense and dense_resource constants into zero splats (strip data)", SplatConstants()),
    PassRow("drop-attributes",      "attributes",           D, MLIR_KINDS, "drop attributes the verifier does not require", DropAttributes()),
    PassRow("onnx-cut-outputs",     "nodes after a tensor", B, ONNX,       "make one node's output the graph's only output, dropping what it does not need", OnnxCutOutputs()),
    PassRow("onnx-cut-inputs",      "nodes before a cut",   B, ONNX,       "drop every node before a cut point; the tensors crossing it become graph inputs", OnnxCutInputs()),
    PassRow("onnx-bypass-nodes",    "nodes",                D, ONNX,       "make what reads each node's output read its input (or a producer's, up to 3 back) of the same type and shape; the node goes, and what only fed it", OnnxBypassNodes()),
    PassRow("onnx-remove-nodes",    "nodes",                D, ONNX,       "remove nodes; their outputs become graph inputs, and what only fed them goes", OnnxRemoveNodes()),
    PassRow("onnx-simplify-initializers", "weights",        D, ONNX,       "initializers and Constant values -> zeros of the same shape and type", OnnxSimplifyInitializers()),
    PassRow("onnx-drop-attributes", "node attributes",      D, ONNX,       "drop node attributes the op schema does not require", OnnxDropAttributes()),
    PassRow("fx-cut-outputs",       "nodes after a value",  B, PT2,        "make one node's value the program's only output, dropping what it does not need (and buffer updates)", FxCutOutputs()),
    PassRow("fx-cut-inputs",        "nodes before a cut",   B, PT2,        "drop every node before a cut point; the values crossing it become inputs carrying what the original computes there", FxCutInputs()),
    PassRow("fx-bypass-nodes",      "nodes",                D, PT2,        "make each node's users read its input (or a producer's, up to 3 back) of the same dtype and shape; the node goes, and what only fed it", FxBypassNodes()),
    PassRow("fx-remove-nodes",      "nodes",                D, PT2,        "remove nodes; each value still read becomes an input carrying what the original computes there", FxRemoveNodes()),
    PassRow("fx-drop-outputs",      "outputs",              D, PT2,        "drop outputs and buffer updates (and what only they needed)", FxDropOutputs()),
    PassRow("fx-replace-with-constant", "nodes",            D, PT2,        "replace nodes with a constant of zeros of their shape", FxReplaceWithConstant()),
    PassRow("fx-zero-tensors",      "weights",              D, PT2,        "parameters, buffers and constants -> zeros of the same shape and type", FxZeroTensors()),
    PassRow("fx-plain-tensors",     "weight values",        D, PT2,        "float parameters, buffers and constants -> their values rounded to small integers (within -8..8)", FxPlainTensors()),
    PassRow("plain-values",         "constant values",      S, ONNX_OR_TORCH_DIALECT, "scales -> 1 or powers of two, zero points -> small integers, data -> small integers, while the wrong answer stays as plain", PlainValues()),
    PassRow(PIN_PASS,               "dynamic dims",         D, ONNX,       "make a dynamic dim static at the size the data runs it at, where the failure stays (else it stays dynamic)", OnnxPinDims()),
    PassRow("shrink-torch-onnx-shapes", "tensor dimensions", S, TORCH_DIALECT, "lift torch.operator \"onnx.*\" IR to ONNX, shrink its dimensions there, import it again", ShrinkTorchOnnxShapes()),
    PassRow("fx-shrink-shapes",     "tensor dimensions",    S, PT2,        "shrink every static dim of one size of a PyTorch program's inputs and tensors, size arguments following, then each input dim whose size others share alone; re-exported, or refused", FxShrinkShapes()),
    PassRow("shrink-linalg-shapes", "tensor dimensions",    S, BELOW_TORCH, "shrink tied dims of linalg / tensor IR and hal.executables: 1, 2, divisions, then bisect; every type follows", ShrinkLinalgShapes()),
    PassRow("shrink-shapes",        "tensor dimensions",    S, ONNX,       "shrink each tensor dimension of an ONNX model: 1, 2, divisions, then bisect; shapes re-inferred", ShrinkOnnxShapes()),
    PassRow("reduce-flags",         "compile flags",        D, EVERY_KIND, "remove compile flags the failure does not need", ReduceFlags()),
)



def passes_for(kind: InputKind) -> list[PassRow]:
    """The rows that apply to an input of `kind`."""
    return [row for row in PASSES if kind in row.inputs]


def for_oracle(rows: list[PassRow], oracle: Oracle) -> list[PassRow]:
    """The rows that can serve `oracle`: a compile-only row not where the oracle runs the module."""
    return [row for row in rows if not (row.compile_only and oracle.runs_modules)]


def pass_by_name(name: str, rows: list[PassRow] | None = None) -> PassRow:
    rows = list(PASSES) if rows is None else rows
    for row in rows:
        if row.name == name:
            return row
    raise KeyError(refusals.UNKNOWN_PASS.say(name=name, valid=", ".join(r.name for r in rows)))


def table() -> str:
    """The table as `reduce --list-passes` prints it."""
    lines = [f"{'#':>2}  {'pass':28} {'reduces':22} {'search':7} {'inputs':50} description"]
    for i, row in enumerate(PASSES, 1):
        inputs = ", ".join(k.value for k in InputKind if k in row.inputs)
        lines.append(f"{i:2}. {row.name:28} {row.reduces:22} {row.search.value:7} {inputs:50} {row.description}")
    return "\n".join(lines)
