"""IR symptoms at scale: numbered symptoms, --keep, localisation to their source ops, and whole
repeated blocks dropped in one step. Real compiler throughout; every program compiles to its
phase in under a second."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracles import Candidate, OracleOptions, OracleSetupError, make_oracle
from oracles.compiling.symptoms import METRIC, decode, numbered
from oracles.mlir import ir as irx
from reducer.cli import main
from reducer.localize.failure_site import localize
from reducer.passes.mlir.repeated_blocks import RemoveRepeatedBlocks
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem
from tests.test_ir_phase_oracles import CONTEXT_CONCAT, PLAIN_UPDATE

ORIGINALS = Path(__file__).resolve().parent.parent / "corpus" / "originals"
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]

# Two entry points, as a model's prefill and decode: `update` writes a row into a global cache in
# place (one stream copy), `step` concatenates a global's cached context with the new row (seed
# 000: *_slow_memcpy dispatches through a transient).
TWO_FUNCTIONS = PLAIN_UPDATE + CONTEXT_CONCAT


def original_of(text: str, flags: tuple[str, ...] = ()) -> Proposal:
    return Proposal(Candidate(text, flags), irx.count_ops(irx.parse(text, irx.new_context())))


def localised(text: str, oracle_name: str, options: OracleOptions | None = None):
    """(localisation, oracle calls including the original's) at -j 1, so counts are exact."""
    problem = ReductionProblem(original_of(text), make_oracle(oracle_name, options), jobs=1)
    try:
        assert problem.calibrate().interesting
        return localize(problem, "model.mlir"), problem.stats.oracle_calls
    finally:
        problem.shutdown()


def test_symptoms_are_numbered_with_their_function_and_keep_pins_one(iree_compile):
    oracle = make_oracle("transient-copy")
    verdict = oracle.judge(Candidate(TWO_FUNCTIONS))
    symptoms = decode(verdict.metrics[METRIC])
    listing = numbered(symptoms)
    assert {s.function for s in symptoms} == {"update", "step"}
    slow = next(n for n, s in enumerate(symptoms, 1) if s.kind.startswith("slow_memcpy") and s.function == "step")
    assert listing[slow - 1].startswith(f"{slow}. slow_memcpy dispatch ") and " in step" in listing[slow - 1]

    # --keep N: that kind in that function; the update alone no longer shows it.
    keep = make_oracle("transient-copy", OracleOptions(keep=str(slow))).calibrated(verdict)
    prefill_only = PLAIN_UPDATE
    lost = keep.judge(Candidate(prefill_only))
    assert not lost.interesting and "(--keep)" in lost.detail
    assert keep.judge(Candidate(TWO_FUNCTIONS)).interesting

    # By default every kind the original had: the update alone loses the slow_memcpy kinds.
    every = make_oracle("transient-copy").calibrated(verdict)
    assert "slow_memcpy dispatch variable->transient" in every.judge(Candidate(prefill_only)).detail.split("; lost ")[1]

    with pytest.raises(OracleSetupError, match=r"--keep 'memcopy' names none of the original's symptom kinds; .*1\. "):
        make_oracle("transient-copy", OracleOptions(keep="memcopy")).calibrated(verdict)
    with pytest.raises(OracleSetupError, match=f"numbered 1 to {len(symptoms)}"):
        make_oracle("transient-copy", OracleOptions(keep="99")).calibrated(verdict)


def test_keep_is_refused_for_oracles_without_symptom_kinds(tmp_path, capsys):
    src = tmp_path / "m.mlir"
    src.write_text(TWO_FUNCTIONS)
    assert main([str(src), "--oracle=dispatch-count", "--threshold", "2", "--keep", "1"]) == 1
    assert "--keep is for --oracle=transient-copy or readwrite-constant, not dispatch-count" in capsys.readouterr().err


def test_seed_000_localises_to_the_context_and_cache_update(iree_compile):
    found, calls = localised((ORIGINALS / "kv_cache_step.mlir").read_text(), "transient-copy")
    assert found.start is not None and found.start.ops <= 13  # of 52: the concat, the slices, the global
    assert found.tried <= 6 and calls <= 8
    assert found.symptoms[1].startswith("2. slow_memcpy dispatch variable->transient in run_forward at model.mlir:")
    text = found.start.candidate.text
    assert "tensor.concat" in text and "util.global.store" in text and "linalg.matmul" not in text


def test_seed_001_localises_to_the_reduction_into_the_constant_in_one_candidate(iree_compile):
    found, calls = localised((ORIGINALS / "classifier_head_tosa.mlir").read_text(), "readwrite-constant")
    assert found.start is not None and found.start.ops == 3 and found.tried == 1 and calls == 3
    assert found.symptoms == ["1. reduction dispatch tied to an immutable global in classifier_head at model.mlir:6:13"]


def _matmul(i: int, value: str) -> list[str]:
    """`%m{i}` = value x %w, into a zero-filled 8x8 tensor."""
    return [f"  %e{i} = tensor.empty() : tensor<8x8xf32>",
            f"  %f{i} = linalg.fill ins(%z : f32) outs(%e{i} : tensor<8x8xf32>) -> tensor<8x8xf32>",
            f"  %m{i} = linalg.matmul ins({value}, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f{i} : tensor<8x8xf32>) -> tensor<8x8xf32>"]


def _matmul_chain(n: int) -> str:
    lines, value = [], "%x"
    for i in range(n):
        lines += [*_matmul(i, value), f"  %t{i} = math.tanh %m{i} : tensor<8x8xf32>"]
        value = f"%t{i}"
    body = "\n".join(lines)
    return f"""func.func @main(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {{
  %z = arith.constant 0.0 : f32
{body}
  return {value} : tensor<8x8xf32>
}}
"""


def test_dispatch_count_localises_to_that_many_dispatches_in_a_row(iree_compile):
    text = _matmul_chain(8)
    found, _ = localised(text, "dispatch-count", OracleOptions(threshold=2))
    assert found.start is not None
    assert found.start.candidate.text.count("linalg.matmul") == 2  # of 8
    assert found.tried <= 3


def _layers(n: int) -> str:
    """A residual stream through `n` identical 4-op layers (matmul, tanh, add), and an epilogue."""
    lines, h = [], "%x"
    for i in range(n):
        lines += [*_matmul(i, h),
                  f"  %a{i} = math.tanh %m{i} : tensor<8x8xf32>",
                  f"  %s{i} = math.exp %a{i} : tensor<8x8xf32>",
                  f"  %q{i} = arith.mulf %s{i}, %a{i} : tensor<8x8xf32>",
                  f"  %r{i} = arith.subf %q{i}, %s{i} : tensor<8x8xf32>",
                  f"  %h{i} = arith.addf {h}, %r{i} : tensor<8x8xf32>"]
        h = f"%h{i}"
    body = "\n".join(lines)
    return f"""func.func @main(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {{
  %z = arith.constant 0.0 : f32
{body}
  %out = math.absf {h} : tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}}
"""


def test_repeated_layers_go_in_one_candidate():
    ctx = irx.new_context()
    original = original_of(_layers(4))
    blocks = RemoveRepeatedBlocks()
    assert blocks.count(original, ctx) == 3  # layers 1..3; layer 0 stays
    one_layer = blocks.apply(original, [0, 1, 2], ctx)
    assert one_layer is not None and one_layer.ops == original_of(_layers(1)).ops
    assert one_layer.candidate.text.count("linalg.matmul") == 1 and "math.absf" in one_layer.candidate.text


def test_replace_with_operand_forwards_a_value_from_producers_back():
    """A torch view there and back ([1,1,256] -> [1,256] -> [1,1,256]) goes in one edit: the outer
    view's result is replaced by the value two producers back, and both views die."""
    text = """func.func @main(%x: !torch.vtensor<[1,1,256],f16>) -> !torch.vtensor<[1,1,256],f16> {
  %int1 = torch.constant.int 1
  %int256 = torch.constant.int 256
  %flat = torch.prim.ListConstruct %int1, %int256 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view %x, %flat : !torch.vtensor<[1,1,256],f16>, !torch.list<int> -> !torch.vtensor<[1,256],f16>
  %back = torch.prim.ListConstruct %int1, %int1, %int256 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view %0, %back : !torch.vtensor<[1,256],f16>, !torch.list<int> -> !torch.vtensor<[1,1,256],f16>
  %2 = torch.aten.neg %1 : !torch.vtensor<[1,1,256],f16> -> !torch.vtensor<[1,1,256],f16>
  return %2 : !torch.vtensor<[1,1,256],f16>
}
"""
    from reducer.passes.mlir.replace_with_operand import ReplaceWithOperand

    ctx = irx.new_context()
    original = original_of(text)
    forwarded = [ReplaceWithOperand().apply(original, [i], ctx) for i in range(ReplaceWithOperand().count(original, ctx))]
    smallest = min((p for p in forwarded if p is not None), key=lambda p: p.ops)
    assert "torch.aten.view" not in smallest.candidate.text and "torch.aten.neg %arg0" in smallest.candidate.text


def test_a_symbolic_dim_declaration_is_never_replaced():
    """torch-mlir's bind_symbolic_shape verifier segfaults when its symbol is not a torch.symbolic_int:
    no replacing pass may target one (46 edits of the Llama reduction died of it)."""
    text = """func.func @main(%x: !torch.vtensor<[1,?],si64>) -> !torch.vtensor<[1,?],si64> {
  %0 = torch.symbolic_int "s0" {min_val = 2, max_val = 3} : !torch.int
  torch.bind_symbolic_shape %x, [%0], affine_map<()[s0] -> (1, s0)> : !torch.vtensor<[1,?],si64>
  %1 = torch.aten.neg %x : !torch.vtensor<[1,?],si64> -> !torch.vtensor<[1,?],si64>
  return %1 : !torch.vtensor<[1,?],si64>
}
"""
    from iree.compiler import ir

    from reducer.passes.mlir.replace_with_argument import ReplaceWithArgument
    from reducer.passes.mlir.replace_with_constant import ReplaceWithConstant

    ctx = irx.new_context()
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(text, ctx)
        for replacing in (ReplaceWithArgument(), ReplaceWithConstant()):
            assert all(op.name != "torch.symbolic_int" for op, _ in replacing.targets(module))
