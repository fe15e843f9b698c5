"""`reduce` end to end with the real compiler on small inputs the tests build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from oracles import ORACLES, Candidate, OracleOptions, make_oracle
from oracles.mlir import ir as irx
from reducer.cli import main
from reducer.formats.registry import format_for
from reducer.passes.kinds import InputKind
from reducer.passes.registry import PASSES, passes_for
from reducer.progress import ReductionObserver
from reducer.proposal import Proposal
from reducer.search.protocol import Search
from reducer.session import Request, reduce_file
from tests.models import global_cache_update, torch_chain

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def ops_in(path: Path) -> int:
    return irx.count_ops(irx.parse(path.read_text(), irx.new_context()))


def test_lds_threshold_reduces_torch_chain_to_the_conv(tmp_path, iree_compile, capsys):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(12, bad_at=6, bad_op="conv"))
    original = src.read_text()
    assert ops_in(src) >= 10

    # The op-level criterion: shapes stay (each LDS probe compiles for ~1 s; tests/test_shapes.py
    # covers shape shrinking with a cheaper oracle).
    op_level = ",".join(p.name for p in format_for(".mlir").pass_rows() if p.search != "shrink")
    assert main([str(src), "--oracle=lds-limit", "--lds-bytes", "16384", "-j", "2", "-q", "--passes", op_level]) == 0

    out = tmp_path / "bug.reduced.mlir"
    reduced = out.read_text()
    assert ops_in(out) <= 3
    assert '"onnx.Conv"' in reduced
    assert src.read_text() == original  # the input is never modified
    printed = capsys.readouterr().out
    assert "largest LDS use 17152 bytes > 16384" in printed
    assert "--iree-rocm-target=gfx942" in printed  # gfx942 is the default target


def test_compile_error_buried_in_chain_keeps_its_signature_and_drops_flags(tmp_path, iree_compile, capsys):
    src = tmp_path / "model.mlir"
    src.write_text(torch_chain(40, bad_at=23, bad_op="onnx.NoSuchOp"))
    report = tmp_path / "bug.md"
    pasted = ["iree-compile", *CPU, "--iree-opt-const-eval=false", str(src), "-o", "x.vmfb", "--mlir-print-ir-after-all"]

    assert main([str(src), "--oracle=compile-error", "--report", str(report), "-q", "--", *pasted]) == 0

    out = tmp_path / "model.reduced.mlir"
    assert ops_in(out) <= 3
    assert "onnx.NoSuchOp" in out.read_text()
    printed = capsys.readouterr().out
    assert "flags         3 -> 0" in printed  # none of the pasted flags is needed for this failure
    assert "failed to legalize operation 'torch.operator'" in printed
    text = report.read_text()
    assert "IREE compiler version 3.13" in text
    assert "iree-compile" in text and "model.reduced.mlir" in text
    assert "onnx.NoSuchOp" in text and "failed to legalize" in text


def test_transient_copy_keeps_the_cache_update_and_drops_the_rest(tmp_path, iree_compile):
    src = tmp_path / "cache.mlir"
    src.write_text(global_cache_update(noise_ops=6))
    assert main([str(src), "--oracle=transient-copy", "-q", "--", *CPU]) == 0
    reduced = (tmp_path / "cache.reduced.mlir").read_text()
    assert "tensor.insert_slice" in reduced and "util.global.store" in reduced
    assert "arith.mulf" not in reduced
    verdict = make_oracle("transient-copy").judge(Candidate(reduced, tuple(CPU)))
    assert verdict.interesting and verdict.metrics["count"] >= 1


def _grep_script(tmp_path: Path) -> str:
    script = tmp_path / "interesting.sh"
    script.write_text('#!/bin/sh\ngrep -q "onnx.NoSuchOp" "$1" && grep -q "onnx.Sigmoid" "$1"\n')
    script.chmod(0o755)
    return f"{script} {{}}"


def test_script_oracle_result_is_the_same_with_one_and_two_jobs(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(30, bad_at=20, bad_op="onnx.NoSuchOp"))
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / f"x.j{jobs}.mlir"
        assert main([str(src), "--oracle=script", "--cmd", _grep_script(tmp_path), "-j", jobs, "-o", str(out), "-q"]) == 0
        results.append(out.read_text())
    assert results[0] == results[1]
    assert ops_in(tmp_path / "x.j1.mlir") == 2  # the Sigmoid and the NoSuchOp the script asks for


class _PassesSeen(ReductionObserver):
    """Each pass the reduction runs, with the best it runs on."""

    def __init__(self) -> None:
        self.best, self.runs = "", []

    def improved(self, best: Proposal) -> None:
        self.best = best.candidate.key

    def phase(self, name: str) -> None:
        if " (round " in name:
            self.runs.append((name.split(" (round ")[0], self.best))


def test_at_two_jobs_the_final_check_runs_beside_the_round_that_confirms_the_result(tmp_path, iree_compile, monkeypatch):
    """The final check (and the dispatch it dumps, checked alone) of the best a later round starts
    from runs beside that round: when the round confirms it, no compile is left for the end, where
    it would leave a core idle. Its dispatch is the result's."""
    from reducer import session

    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(12, bad_at=6, bad_op="conv"))
    checks, passes_done = [], []
    check, run_passes = session.Reduction.check, session.Reduction.run_passes

    def recorded_check(self, best):
        checks.append((best.candidate.key, bool(passes_done)))
        return check(self, best)

    def recorded_passes(self):
        run_passes(self)
        passes_done.append(True)

    monkeypatch.setattr(session.Reduction, "check", recorded_check)
    monkeypatch.setattr(session.Reduction, "run_passes", recorded_passes)
    op_level = [row for row in format_for(".mlir").pass_rows() if row.search != "shrink"]
    request = Request(input_path=src, oracle=make_oracle("lds-limit", OracleOptions(lds_bytes=16384)), flags=[],
                      output_path=tmp_path / "bug.reduced.mlir", passes=op_level, jobs=2, culprit=False)
    outcome = reduce_file(request)

    assert outcome.complete and outcome.best.ops <= 3
    assert (outcome.best.candidate.key, False) in checks  # checked while the passes still ran
    assert not any(after for _, after in checks)  # nothing left to check once they ended
    assert outcome.dispatch is not None and outcome.dispatch.reproduces
    assert (tmp_path / "bug.reduced.dispatch.mlir").read_text() == outcome.dispatch.source


def test_no_pass_runs_twice_on_the_same_best(tmp_path):
    """The round that confirms the fixpoint runs only the passes that have not seen its best: one
    that found nothing on a candidate would find nothing again."""
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(20, bad_at=11, bad_op="onnx.NoSuchOp"))
    seen = _PassesSeen()
    oracle = make_oracle("script", OracleOptions(cmd=_grep_script(tmp_path)))
    request = Request(input_path=src, oracle=oracle, flags=[], output_path=tmp_path / "x.reduced.mlir",
                      passes=format_for(".mlir").pass_rows(), jobs=1, culprit=False, observer=seen)
    outcome = reduce_file(request)

    assert outcome.best.ops == 2  # as small as without the skipping
    assert len(seen.runs) == len(set(seen.runs)) > 0
    assert any(name == "remove-symbols" for name, _ in seen.runs[1:])  # a later round ran at all


def test_reduced_result_is_one_minimal_for_every_pass(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(20, bad_at=11, bad_op="onnx.NoSuchOp"))
    cmd = _grep_script(tmp_path)
    out = tmp_path / "x.reduced.mlir"
    assert main([str(src), "--oracle=script", "--cmd", cmd, "-q"]) == 0

    oracle = make_oracle("script", OracleOptions(cmd=cmd))
    ctx = irx.new_context()
    best = Proposal(Candidate(out.read_text()), ops_in(out))
    tried = 0
    for row in passes_for(InputKind.TORCH_DIALECT):
        if row.search is Search.SHRINK:
            continue
        for index in range(row.impl.count(best, ctx)):
            proposal = row.impl.apply(best, [index], ctx)
            if proposal is not None and proposal.cost < best.cost:
                tried += 1
                assert not oracle.judge(proposal.candidate).interesting, f"{row.name} #{index} still reduces"
    assert tried > 0


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer", *args], check=False, capture_output=True, text=True)


def test_unparseable_input_is_one_line_with_location(tmp_path):
    src = tmp_path / "broken.mlir"
    src.write_text("func.func @f() {\n  %x = arith.constant 1 : i32\n  return %y : i32\n}\n")
    result = run_cli(str(src), "--oracle=compile-error")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{src}:3:" in lines[0]
    assert not (tmp_path / "broken.reduced.mlir").exists()


def test_original_that_does_not_fail_exits_2_saying_what_was_seen(tmp_path, iree_compile):
    src = tmp_path / "fine.mlir"
    src.write_text(torch_chain(3, bad_at=99, bad_op="none"))
    result = run_cli(str(src), "--oracle=compile-error", "--", *CPU)
    assert result.returncode == 2
    assert "not interesting for compile-error: compiles fine" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_oracle_lists_the_valid_ones(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(3, bad_at=99, bad_op="none"))
    result = run_cli(str(src), "--oracle=lds")
    assert result.returncode == 1
    assert "unknown oracle 'lds'; valid: lds-limit, compile-error" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.mlir", "--oracle=crash"], "cannot read missing.mlir: no such file"),
        (["x.mlir", "--oracle=script"], "--oracle=script needs --cmd"),
        (["x.mlir", "--oracle=compile-error", "-o", "x.mlir"], "is the input file"),
    ],
)
def test_bad_invocations_get_one_actionable_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.mlir").write_text(torch_chain(3, bad_at=99, bad_op="none"))
    result = run_cli(*args)
    assert result.returncode == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "x.mlir").read_text() == torch_chain(3, bad_at=99, bad_op="none")


def test_list_oracles_prints_every_oracle_with_one_line():
    result = run_cli("--list-oracles")
    header, *rows = result.stdout.strip().splitlines()
    assert header.split()[:2] == ["oracle", "inputs"]
    names = [line.split()[0] for line in rows]
    assert names[:3] == ["lds-limit", "compile-error", "crash"] and len(names) == len(ORACLES)
    assert {"transient-copy", "readwrite-constant", "script", "timeout", "ir-match", "dispatch-count"} <= set(names)


def test_list_passes_prints_the_table_with_search_and_inputs():
    result = run_cli("--list-passes")
    header, *rows = result.stdout.strip().splitlines()
    assert header.split()[:5] == ["#", "pass", "reduces", "search", "inputs"]
    by_name = {row.split()[1]: row for row in rows}
    assert len(by_name) == len(PASSES)
    assert " bisect " in by_name["cut-at-value"] and " shrink " in by_name["shrink-shapes"]
    assert "onnx" in by_name["onnx-remove-nodes"] and "torch" not in by_name["onnx-remove-nodes"]
