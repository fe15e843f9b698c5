"""The phase oracles against the real iree-compile (CPU target, no GPU needed).

Every program here compiles to its phase in well under a second.
"""

from __future__ import annotations

import pytest

from oracles.base import OracleOptions, OracleSetupError
from oracles.candidate import Candidate
from oracles.compiling.ir_phase import (
    DispatchCount,
    IrMatch,
    IRParseError,
    ReadwriteConstant,
    TransientCopy,
)
from oracles.compiling.ir_walks import readwrite_constant_dispatches
from oracles.toolchain.tools import ToolNotFound, find_tool
from tests.models import linalg_matmul

try:
    find_tool("iree-compile")
except ToolNotFound:  # pragma: no cover - the pinned wheel is a test dependency
    pytest.skip("iree-compile is not installed", allow_module_level=True)


# A util.global cache updated in place at a dynamic row, then two chained matmuls on it: at
# stream the update is a `stream.cmd.copy` and the matmul intermediate a transient alloca.
CACHE_UPDATE = """
util.global private mutable @cache : tensor<16x4xf32> = dense<0.0> : tensor<16x4xf32>
func.func @update(%row: tensor<1x4xf32>, %i: index, %w: tensor<4x4xf32>) -> tensor<16x4xf32> {
  %c = util.global.load @cache : tensor<16x4xf32>
  %u = tensor.insert_slice %row into %c[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
  util.global.store %u, @cache : tensor<16x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %m1 = linalg.matmul ins(%u, %w : tensor<16x4xf32>, tensor<4x4xf32>) outs(%f : tensor<16x4xf32>) -> tensor<16x4xf32>
  %m2 = linalg.matmul ins(%m1, %w : tensor<16x4xf32>, tensor<4x4xf32>) outs(%f : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %m2 : tensor<16x4xf32>
}
"""

# Only the in-place global update: one `stream.cmd.copy`, no transient.
PLAIN_UPDATE = """
util.global private mutable @cache : tensor<16x4xf32> = dense<0.0> : tensor<16x4xf32>
func.func @update(%row: tensor<1x4xf32>, %i: index) {
  %c = util.global.load @cache : tensor<16x4xf32>
  %u = tensor.insert_slice %row into %c[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
  util.global.store %u, @cache : tensor<16x4xf32>
  return
}
"""

# No global, one dispatch: nothing to copy, nothing transient.
ONE_MATMUL = linalg_matmul(16, 4, 4)

_REDUCTION = """{init}
func.func @main(%arg0: tensor<4x256xi32>) -> tensor<256xi32> {{
  {acc}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                        iterator_types = ["reduction", "parallel"]}}
      ins(%arg0 : tensor<4x256xi32>) outs(%acc : tensor<256xi32>) {{
  ^bb0(%in: i32, %out: i32):
    %s = arith.addi %in, %out : i32
    linalg.yield %s : i32
  }} -> tensor<256xi32>
{store}  return %r : tensor<256xi32>
}}
"""
_VALUES = "dense<[" + ", ".join(str(i) for i in range(256)) + "]> : tensor<256xi32>"

# Seed 001's pattern: a reduction whose `outs` is a (non-splat, 1 KiB) constant. Too big to be
# inlined into the dispatch, it is hoisted to an immutable global and the dispatch is tied to it.
REDUCE_INTO_CONSTANT = _REDUCTION.format(init="", acc=f"%acc = arith.constant {_VALUES}", store="")
# The same through an immutable util.global of the user's.
REDUCE_INTO_GLOBAL = _REDUCTION.format(
    init=f"util.global private @acc = {_VALUES}", acc="%acc = util.global.load @acc : tensor<256xi32>", store=""
)
# A mutable accumulator updated in place and stored back: legitimate state, not a constant.
REDUCE_INTO_STATE = _REDUCTION.format(
    init=f"util.global private mutable @acc = {_VALUES}",
    acc="%acc = util.global.load @acc : tensor<256xi32>",
    store="  util.global.store %r, @acc : tensor<256xi32>\n",
)
# The clean form: outs is a fill of a fresh tensor.
REDUCE_INTO_FILL = _REDUCTION.format(
    init="",
    acc="%z = arith.constant 0 : i32\n  %e = tensor.empty() : tensor<256xi32>\n"
    "  %acc = linalg.fill ins(%z : i32) outs(%e : tensor<256xi32>) -> tensor<256xi32>",
    store="",
)


def judge(oracle, text: str):
    return oracle.judge(Candidate(text))


# --- transient-copy ---------------------------------------------------------------------------


def test_transient_copy_sees_copy_and_transient_alloca_of_a_global_update():
    verdict = judge(TransientCopy(), CACHE_UPDATE)
    assert verdict.interesting
    assert verdict.signature == "transient-copy"
    assert verdict.metrics["copies"] >= 1
    assert verdict.metrics["transient_allocas"] >= 1
    assert verdict.metrics["count"] == verdict.metrics["copies"] + verdict.metrics["transient_allocas"]
    assert verdict.detail.startswith(f"{verdict.metrics['count']} copies/transient allocations at stream")


def test_transient_copy_without_a_global_is_not_interesting():
    verdict = judge(TransientCopy(), ONE_MATMUL)
    assert not verdict.interesting
    assert verdict.metrics["count"] == 0
    assert verdict.detail == "0 copies/transient allocations at stream, below the threshold 1"


def test_transient_copy_calibrated_keeps_every_kind_not_every_instance():
    oracle = TransientCopy()
    original = judge(oracle, CACHE_UPDATE)
    oracle = oracle.calibrated(original)
    assert oracle.threshold() == 1
    assert judge(oracle, CACHE_UPDATE).interesting
    fewer = judge(oracle, PLAIN_UPDATE)  # the copy, but no transient
    assert fewer.metrics["count"] == 1
    assert not fewer.interesting
    assert fewer.detail == "1 copy/transient allocation at stream; lost stream.resource.alloca transient"


def test_transient_copy_explicit_threshold_wins_over_calibration():
    oracle = TransientCopy(OracleOptions(threshold=1))
    oracle = oracle.calibrated(judge(oracle, CACHE_UPDATE))
    assert oracle.threshold() == 1
    assert judge(oracle, PLAIN_UPDATE).interesting


# Seed 000's KV-cache step: the cached context [0, i) of a global is concatenated with the new
# row along an inner dimension and the newest row written back. IREE 3.13 moves those bytes
# with `*_slow_memcpy` dispatches, not stream copies.
CONTEXT_CONCAT = """
util.global private mutable @state : tensor<2x8x4xf32> = dense<0.0> : tensor<2x8x4xf32>
func.func @step(%row: tensor<2x1x4xf32>, %i: index) -> tensor<2x?x4xf32> {
  %s = util.global.load @state : tensor<2x8x4xf32>
  %past = tensor.extract_slice %s[0, 0, 0] [2, %i, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x?x4xf32>
  %ctx = tensor.concat dim(1) %past, %row : (tensor<2x?x4xf32>, tensor<2x1x4xf32>) -> tensor<2x?x4xf32>
  %last = tensor.extract_slice %ctx[0, %i, 0] [2, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<2x1x4xf32>
  %u = tensor.insert_slice %last into %s[0, %i, 0] [2, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> into tensor<2x8x4xf32>
  util.global.store %u, @state : tensor<2x8x4xf32>
  %n = math.exp %ctx : tensor<2x?x4xf32>
  return %n : tensor<2x?x4xf32>
}
"""


def test_transient_copy_counts_slow_memcpy_dispatches_of_a_global_context():
    verdict = judge(TransientCopy(), CONTEXT_CONCAT)
    assert verdict.interesting
    assert "1x slow_memcpy dispatch variable->transient" in verdict.metrics["kinds"]
    assert verdict.metrics["copies"] == 3 and verdict.metrics["transient_allocas"] == 1

    # Calibrated on it, a plain in-place update (one stream copy, no context) is not the bug.
    oracle = TransientCopy()
    oracle = oracle.calibrated(verdict)
    assert not judge(oracle, PLAIN_UPDATE).interesting


def test_phase_oracles_report_a_compile_failure_as_not_interesting():
    broken = "func.func @broken(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %b : tensor<4xf32>\n}\n"
    verdict = judge(TransientCopy(), broken)
    assert not verdict.interesting
    assert verdict.detail.startswith("fails before reaching stream: ")
    assert "error:" in verdict.detail
    assert verdict.signature.startswith("error: ")


def test_unparseable_ir_is_an_ir_parse_error_not_a_bug():
    with pytest.raises(IRParseError, match="expected non-function type"):
        TransientCopy().measure_text("func.func @f( {")


def test_compile_flags_replace_the_users_phase_and_add_a_cpu_target():
    flags = TransientCopy().compile_flags(["--compile-to=hal", "--iree-opt-level=O2"])
    assert flags[-1] == "--compile-to=stream"
    assert "--compile-to=hal" not in flags
    assert "--iree-hal-target-device=local" in flags and "--iree-opt-level=O2" in flags
    rocm = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
    assert ReadwriteConstant().compile_flags(rocm) == [*rocm, "--compile-to=flow"]


# --- readwrite-constant -----------------------------------------------------------------------


def test_readwrite_constant_sees_a_reduction_into_a_constant():
    verdict = judge(ReadwriteConstant(), REDUCE_INTO_CONSTANT)
    assert verdict.interesting
    assert verdict.signature == "readwrite-constant"
    assert verdict.metrics["count"] == 1
    assert verdict.metrics["dispatch"] == "@main_dispatch_0::@main_dispatch_0_reduction_256x4_i32"
    assert verdict.metrics["constant"] == "util.global.load @__constant_tensor_256xi32"


def test_readwrite_constant_sees_a_reduction_into_an_immutable_global():
    verdict = judge(ReadwriteConstant(), REDUCE_INTO_GLOBAL)
    assert verdict.interesting
    assert verdict.metrics["constant"].startswith("util.global.load @")


@pytest.mark.parametrize("text", [REDUCE_INTO_FILL, REDUCE_INTO_STATE], ids=["fill", "mutable-global"])
def test_readwrite_constant_clean_programs_are_not_interesting(text):
    verdict = judge(ReadwriteConstant(), text)
    assert not verdict.interesting
    assert verdict.metrics["count"] == 0
    assert verdict.detail == "0 dispatches tied in place to constants at flow, below the threshold 1"


FLOW_SNIPPET = """
util.global private @weights = dense<1.0> : tensor<8xf32>
util.global private mutable @state = dense<0.0> : tensor<8xf32>
util.func public @main(%a: tensor<8x4xf32>, %n: index)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %splat = flow.tensor.splat %cst : tensor<8xf32>
  %0 = flow.dispatch @ex::@splat_acc[%n, %c1](%a, %splat) : (tensor<8x4xf32>, tensor<8xf32>) -> %splat
  %w = util.global.load @weights : tensor<8xf32>
  %1 = flow.dispatch @ex::@weights_acc(%a, %w) : (tensor<8x4xf32>, tensor<8xf32>) -> %w
  %s = util.global.load @state : tensor<8xf32>
  %2 = flow.dispatch @ex::@state_acc(%a, %s) : (tensor<8x4xf32>, tensor<8xf32>) -> %s
  %e = tensor.empty() : tensor<8xf32>
  %3 = flow.dispatch @ex::@empty_acc(%a, %e) : (tensor<8x4xf32>, tensor<8xf32>) -> %e
  util.return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
"""


def test_readwrite_constant_detection_on_flow_ir():
    from oracles.mlir import ir as irx

    ctx = irx.new_context(lenient=True)
    with ctx:
        module = irx.parse(FLOW_SNIPPET, ctx)
        found = readwrite_constant_dispatches(module)
    # The first dispatch has a workload: its tied index 1 is operand 3 (%splat), not %c1.
    assert found == [("@ex::@splat_acc", "flow.tensor.splat"), ("@ex::@weights_acc", "util.global.load @weights")]


# --- dispatch-count ---------------------------------------------------------------------------


def test_dispatch_count_at_flow():
    verdict = judge(DispatchCount(OracleOptions(threshold=2)), CACHE_UPDATE)
    assert verdict.interesting
    assert verdict.metrics["count"] == 2
    assert verdict.detail == "2 dispatches at flow (threshold 2)"
    assert verdict.signature == "dispatch-count: at least 2 at flow"


def test_dispatch_count_below_threshold():
    verdict = judge(DispatchCount(OracleOptions(threshold=2)), ONE_MATMUL)
    assert not verdict.interesting
    assert verdict.metrics["count"] == 1
    assert verdict.detail == "1 dispatch at flow, below the threshold 2"


def test_dispatch_count_at_stream_counts_stream_dispatches():
    verdict = judge(DispatchCount(OracleOptions(threshold=2, phase="stream")), CACHE_UPDATE)
    assert verdict.interesting
    assert verdict.metrics["count"] == 2


def test_dispatch_count_setup_errors():
    with pytest.raises(OracleSetupError, match=r"--oracle=dispatch-count needs --threshold N"):
        DispatchCount(OracleOptions())
    with pytest.raises(OracleSetupError, match=r"--phase 'input' is not a phase this oracle can inspect"):
        DispatchCount(OracleOptions(threshold=1, phase="input"))
    with pytest.raises(OracleSetupError, match=r"--threshold 0 must be at least 1"):
        DispatchCount(OracleOptions(threshold=0))


# --- ir-match ---------------------------------------------------------------------------------


def test_ir_match_counts_pattern_at_phase():
    oracle = IrMatch(OracleOptions(pattern=r"stream\.resource\.alloca .*!stream\.resource<transient>", phase="stream"))
    verdict = judge(oracle, CACHE_UPDATE)
    assert verdict.interesting
    assert verdict.metrics["count"] == 1
    assert verdict.signature == r"ir-match: /stream\.resource\.alloca .*!stream\.resource<transient>/ at stream"


def test_ir_match_not_found():
    oracle = IrMatch(OracleOptions(pattern=r"stream\.cmd\.copy", phase="stream"))
    verdict = judge(oracle, ONE_MATMUL)
    assert not verdict.interesting
    assert verdict.metrics["count"] == 0
    assert verdict.detail == r"0 matches of /stream\.cmd\.copy/ at stream, below the threshold 1"


def test_ir_match_setup_errors():
    with pytest.raises(OracleSetupError, match=r"--oracle=ir-match needs --pattern REGEX"):
        IrMatch(OracleOptions(phase="flow"))
    with pytest.raises(OracleSetupError, match=r"is not a valid regex"):
        IrMatch(OracleOptions(pattern="(", phase="flow"))
    with pytest.raises(OracleSetupError, match=r"--oracle=ir-match needs --phase PHASE"):
        IrMatch(OracleOptions(pattern="x"))
    with pytest.raises(OracleSetupError, match=r"--phase 'flo' is not a --compile-to phase"):
        IrMatch(OracleOptions(pattern="x", phase="flo"))
    with pytest.raises(OracleSetupError, match=r"--phase 'end' is not a phase this oracle can inspect"):
        IrMatch(OracleOptions(pattern="x", phase="end"))
