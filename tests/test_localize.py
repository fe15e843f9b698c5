"""Failure localisation: the failing op (or dispatch) first, in a handful of real compiles."""

from __future__ import annotations

from pathlib import Path

from oracles import Candidate, OracleOptions, make_oracle
from oracles.mlir import ir as irx
from oracles.mlir.locations import SourceLoc, diagnostic_locations, location_leaves
from oracles.signature import normalise
from reducer.cli import main
from reducer.formats.registry import format_for
from reducer.localize.failure_site import cut_down, isolate_dispatch, localize
from reducer.proposal import Proposal
from reducer.search.problem import ReductionProblem
from tests.models import linalg_chain, torch_chain

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
GFX942 = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
OP_LEVEL = ",".join(p.name for p in format_for(".mlir").pass_rows() if p.search != "shrink")


def proposal(text: str, flags: list[str]) -> Proposal:
    return Proposal(Candidate(text, tuple(flags)), irx.count_ops(irx.parse(text, irx.new_context())))


def localized(text: str, oracle_name: str, flags: list[str], options: OracleOptions | None = None):
    """(localisation, oracle calls it cost including the original's) at -j 1, so counts are exact."""
    oracle = make_oracle(oracle_name, options or OracleOptions())
    original = proposal(text, flags)
    problem = ReductionProblem(original, oracle, jobs=1)
    try:
        verdict = problem.calibrate(locate=True)  # as `reduce` does: the original's compile also locates, where it can
        assert verdict.interesting, verdict.detail
        found = localize(problem)
    finally:
        problem.shutdown()
    return found, problem.stats.oracle_calls, problem


def test_locations_are_read_from_diagnostics_and_printed_locations():
    stderr = (
        "<unknown>:0: error: 'arith.truncf' op not supported\n"
        "/tmp/x/model.mlir:33:12: error: failed to legalize operation 'torch.operator'\n"
        "/tmp/x/model.mlir:2:1: note: called from\n"
    )
    assert diagnostic_locations(stderr) == [SourceLoc("/tmp/x/model.mlir", 33, 12), SourceLoc("/tmp/x/model.mlir", 2, 1)]
    # A callsite names the op (callee), not the function it was called from.
    spelled = 'loc(fused[callsite("in.mlir":9:8 at "in.mlir":2:1), "in.mlir":5:10])'
    assert location_leaves(spelled) == [SourceLoc("in.mlir", 9, 8), SourceLoc("in.mlir", 5, 10)]
    # Under --mlir-print-debuginfo ops in messages carry a loc(...): the signature must not change.
    plain = 'error: failed: %3 = "torch.operator"(%2) : (a) -> b'
    assert normalise(plain + ' loc("/tmp/x/input.mlir":33:12)') == normalise(plain)


def test_compile_error_in_a_long_chain_is_localised_in_two_calls(iree_compile):
    found, calls, problem = localized(torch_chain(120, 70, "onnx.NoSuchOp"), "compile-error", CPU)

    # One compile of the original (its verdict, the failing op and the failing phase at once), one candidate.
    assert calls == 2
    assert found.stop_phase == "input"
    assert problem.calibration is not None and problem.calibration.site is not None
    assert found.start is not None and found.start.ops == 1
    assert '"onnx.NoSuchOp"' in found.start.candidate.text


def test_lds_overrun_is_localised_to_the_convs_dispatch_and_it_compiles_alone(iree_compile):
    found, calls, problem = localized(torch_chain(12, 6, "conv"), "lds-limit", [], OracleOptions(lds_bytes=16384))

    assert calls == 2  # the original (lds-limit calibrates with its located compile), the conv's dispatch
    assert found.site is not None and found.site.dispatch  # the dispatch over the threshold
    # Workgroup memory is the whole dispatch's: the conv with the ops fused into it, not the conv alone.
    assert found.start is not None and 1 < found.start.ops < problem.original.ops
    assert '"onnx.Conv"' in found.start.candidate.text

    problem.incorporate(found.start)
    dispatch = isolate_dispatch(problem, problem.best, "bug.reduced.dispatch.mlir")
    assert dispatch is not None and dispatch.reproduces  # alone it still uses 17152 bytes of LDS
    assert dispatch.source.startswith("hal.executable")
    assert "--compile-mode=hal-executable" in dispatch.command and "bug.reduced.dispatch.mlir" in dispatch.command


def test_an_overrun_that_needs_the_ops_fused_into_its_dispatch_is_localised_in_one_candidate(iree_compile):
    """The README example: its conv overruns workgroup memory only with the dequantisation fused into
    its dispatch, so the conv alone, the first candidate of an op's failure, compiles fine."""
    text = (Path(__file__).parents[1] / "examples" / "qdq_conv_lds_overrun.mlir").read_text()
    found, calls, problem = localized(text, "lds-limit", GFX942)

    assert calls == 2  # the original's located compile, then the whole dispatch, which holds
    assert found.start is not None and found.start.ops < problem.original.ops
    assert '"onnx.DequantizeLinear"' in found.start.candidate.text and '"onnx.Conv"' in found.start.candidate.text
    conv_alone = next(cut_down(problem.original, found.site, ".mlir", irx.new_context()))
    assert conv_alone.ops < found.start.ops and not problem.oracle.judge(conv_alone.candidate).interesting


def test_oracle_without_locations_costs_no_candidates(tmp_path):
    script = tmp_path / "interesting.sh"
    script.write_text('#!/bin/sh\ngrep -q "onnx.NoSuchOp" "$1"\n')
    script.chmod(0o755)
    found, calls, _ = localized(torch_chain(12, 6, "onnx.NoSuchOp"), "script", [], OracleOptions(cmd=f"{script} {{}}"))

    assert found.start is None and calls == 1  # nothing located, nothing tried: only the original


def test_codegen_error_in_one_dispatch_reduces_to_the_op_and_writes_the_dispatch(tmp_path, iree_compile, capsys):
    src = tmp_path / "model.mlir"
    src.write_text(linalg_chain(12, 7))
    original = src.read_text()
    report = tmp_path / "bug.md"

    argv = [str(src), "--oracle=compile-error", "-j", "2", "-q", "--passes", OP_LEVEL, "--report", str(report)]
    assert main([*argv, "--", *GFX942]) == 0

    reduced = (tmp_path / "model.reduced.mlir").read_text()
    assert irx.count_ops(irx.parse(reduced, irx.new_context())) == 1
    assert "arith.truncf" in reduced and "f6E2M3FN" in reduced
    assert src.read_text() == original
    dispatch = tmp_path / "model.reduced.dispatch.mlir"
    assert dispatch.read_text().startswith("hal.executable")
    printed = capsys.readouterr().out
    assert "model.reduced.dispatch.mlir (shows the same failure alone)" in printed
    alone = printed.split("  alone         ", 1)[1].splitlines()[0]
    assert f" {dispatch} " in f"{alone} "  # named as it was written, as the reproduce command names the result
    assert "--compile-to" not in printed.split("reproduce", 1)[1].splitlines()[0]  # the full compile is shown
    text = report.read_text()
    assert "## Failing dispatch" in text and "--compile-mode=hal-executable" in text
    assert Path(dispatch).name in text


def test_a_dispatch_wide_failure_starts_from_the_dispatch_in_both_localisers():
    """MLIR and .pt2 localisation try the same seeds: the root alone, then its dispatch, then rings
    around it; a failure that is a whole dispatch's (lds-limit) skips the root alone."""
    from oracles.torch.imported import ImportedTorch
    from reducer.localize.failure_site import WIDENINGS, seeds

    rings = [("dispatch", ring) for ring in (0, *WIDENINGS)]
    assert seeds("root", "dispatch", dispatch_wide=False) == [("root", 0), *rings]
    assert seeds("root", "dispatch", dispatch_wide=True) == rings
    assert make_oracle("lds-limit").dispatch_wide and not make_oracle("compile-error").dispatch_wide
    assert ImportedTorch(make_oracle("lds-limit")).dispatch_wide  # a .pt2's oracle: its import's
