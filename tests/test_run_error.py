"""run-error: a program that compiles and then fails when it runs reduces to what fails, with the
runtime's own status as its signature; a program that runs fine, or a different failure, is not
the user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.execute import COMPILE_ERROR, CRASH, RUN_ERROR, CaseResult, Finding
from fuzz.triage import oracles_for
from oracles import Candidate, make_oracle
from oracles.numeric.run_error import status_signature
from oracles.toolchain.devices import devices_seen
from oracles.toolchain.tool_errors import setup_problem
from oracles.toolchain.tools import ProcessResult
from reducer.cli import main

CHECK = '  %status = arith.constant 9 : i32\n  util.status.check_ok %status, "{message}"\n'


def program(n_ops: int = 30, check_at: int | None = 17, message: str = "the runtime check fired") -> str:
    """`n_ops` elementwise ops on two 4x8 arguments; after op `check_at`, a runtime status check
    that fails (the runtime prints FAILED_PRECONDITION and `message`)."""
    lines = ["func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4x8xf32> {"]
    previous = "%arg0"
    for i in range(n_ops):
        lines.append(f"  %v{i} = {('arith.addf', 'arith.mulf', 'arith.subf')[i % 3]} {previous}, %arg1 : tensor<4x8xf32>")
        previous = f"%v{i}"
        if i == check_at:
            lines.append(CHECK.format(message=message).rstrip("\n"))
    return "\n".join([*lines, f"  return {previous} : tensor<4x8xf32>", "}", ""])


def test_a_failing_runtime_check_reduces_to_the_check(tmp_path: Path, capsys):
    source = tmp_path / "prog.mlir"
    source.write_text(program())
    assert main([str(source), "--oracle=run-error", "--no-cache", "--no-culprit", "-j", "1"]) == 0
    reduced = (tmp_path / "prog.reduced.mlir").read_text()
    assert "util.status.check_ok" in reduced and "arith.addf" not in reduced and "tensor<4x8xf32>" not in reduced
    out = capsys.readouterr().out
    assert "32 -> 2" in out and "FAILED_PRECONDITION; the runtime check fired" in out
    assert "iree-run-module --device=local-task --module=out.vmfb --function=main" in out  # the printed repro runs it


def test_a_program_that_runs_fine_is_refused(tmp_path: Path, capsys):
    source = tmp_path / "fine.mlir"
    source.write_text(program(check_at=None))
    assert main([str(source), "--oracle=run-error", "--no-cache"]) == 2
    assert "not interesting for run-error: @main runs fine" in capsys.readouterr().err
    assert not (tmp_path / "fine.reduced.mlir").exists()


def test_calibrated_a_different_run_error_is_not_the_users():
    oracle = make_oracle("run-error")
    original = oracle.judge(Candidate(program(n_ops=2, check_at=0)))
    assert original.interesting and original.signature == "run-error: FAILED_PRECONDITION; the runtime check fired"
    pinned = oracle.calibrated(original)
    other = pinned.judge(Candidate(program(n_ops=2, check_at=0, message="another check")))
    assert not other.interesting and other.detail.startswith("fails differently: run-error: FAILED_PRECONDITION; another check")
    assert not pinned.judge(Candidate(program(n_ops=2, check_at=None))).interesting


def test_sizes_in_a_status_do_not_split_one_failure():
    a = "c/runtime/src/iree/hal/allocator.c:120: RESOURCE_EXHAUSTED; could not allocate 4096 bytes; while invoking native function"
    b = "c/runtime/src/iree/hal/allocator.c:121: RESOURCE_EXHAUSTED; could not allocate 128 bytes; while invoking native function"
    assert status_signature(a) == status_signature(b) == "run-error: RESOURCE_EXHAUSTED; could not allocate N bytes"
    assert status_signature("EXEC @main\nresult[0]: hal.buffer_view") is None


def test_a_run_that_rejects_its_inputs_is_the_tools_doing():
    # iree-run-module 3.13's own words for an input of the wrong shape.
    stderr = ("c/runtime/src/iree/modules/hal/utils/buffer_diagnostics.c:225: INVALID_ARGUMENT; input0 shape dimension 0 "
              "mismatch; expected 4 but have 3; expected shape `4`, actual shape `3`; while invoking native function "
              "hal.buffer_view.assert; while calling import;")
    problem = setup_problem([ProcessResult(1, "EXEC @main", stderr, 0.1)], make_oracle("run-error").options.limits)
    assert problem.startswith("the run rejects its inputs (input0 shape dimension 0 mismatch)")


@pytest.mark.skipif(bool(devices_seen().get("hip")), reason="this machine has a HIP device")
def test_a_gpu_target_runs_on_its_gpu_and_one_this_machine_lacks_is_refused_first(tmp_path: Path, capsys):
    source = tmp_path / "prog.mlir"
    source.write_text(program())
    assert main([str(source), "--oracle=run-error", "--", "--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]) == 1
    refusal = capsys.readouterr().err
    assert "the hip driver" in refusal and "on this machine" in refusal and not (tmp_path / "prog.reduced.mlir").exists()


def test_the_fuzzers_run_time_findings_reduce_with_run_error():
    case = CaseResult.__new__(CaseResult)  # routing reads only a mismatch's runs
    at_a_size = Finding(RUN_ERROR, "vmvx", "runtime: RESOURCE_EXHAUSTED; ... [dynamic]", "at N=3: ...", "N=3")
    died_running = Finding(CRASH, "cpu", "runtime: iree-run-module crashed with SIGSEGV", "")
    compiler_crash = Finding(CRASH, "cpu", "crash: SIGSEGV in some pass", "")
    assert oracles_for(at_a_size, case) == [("run-error", None)]
    assert oracles_for(died_running, case) == [("run-error", None)]
    assert oracles_for(compiler_crash, case) == [("crash", None)]
    assert oracles_for(Finding(COMPILE_ERROR, "cpu", "error: x", ""), case) == [("compile-error", None)]


DYNAMIC_ROWS = """func.func @main(%arg0: tensor<?x8xf32>, %arg1: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = arith.addf %arg0, %arg1 : tensor<?x8xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %rows = tensor.dim %0, %c0 : tensor<?x8xf32>
  %three = arith.cmpi eq, %rows, %c3 : index
  %bad = arith.constant 9 : i32
  %ok = arith.constant 0 : i32
  %status = arith.select %three, %bad, %ok : i32
  util.status.check_ok %status, "three rows are not supported"
  %1 = arith.subf %0, %arg0 : tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
"""


@pytest.mark.nightly  # 15 s; run-error reduced by default: test_a_failing_runtime_check_reduces_to_the_check; dynamic sizes from data: tests/test_dynamic_sizes.py
def test_a_dynamic_program_runs_at_the_sizes_of_the_users_data(tmp_path: Path, capsys):
    source = tmp_path / "dyn.mlir"
    source.write_text(DYNAMIC_ROWS)
    assert main([str(source), "--oracle=run-error", "--no-cache"]) == 1  # no size to run it at: refused in one line
    refusal = capsys.readouterr().err.strip()
    assert "dynamic dimensions (arg0.0, arg1.0)" in refusal and "give --inputs with data at the sizes" in refusal
    assert "--dim arg0.0=SIZE" in refusal and len(refusal.splitlines()) == 1
    assert main([str(source), "--oracle=run-error", "--no-cache", "--dim", "arg0.1=3"]) == 1  # a static dim
    assert "no dynamic dimension arg0.1 (its dynamic dimensions: arg0.0, arg1.0)" in capsys.readouterr().err
    assert main([str(source), "--oracle=run-error", "--no-cache", "--dim", "arg0.0=4", "--dim", "arg1.0=4"]) == 2  # seeded data, 4 rows
    assert "@main runs fine" in capsys.readouterr().err
    four_rows = ["--inputs=4x8xf32=1", "--inputs=4x8xf32=2"]
    assert main([str(source), "--oracle=run-error", "--no-cache", *four_rows]) == 2
    assert "@main runs fine" in capsys.readouterr().err
    three_rows = ["--inputs=3x8xf32=1", "--inputs=3x8xf32=2"]
    assert main([str(source), "--oracle=run-error", "--no-cache", "--no-culprit", "-j", "1", *three_rows]) == 0
    assert "FAILED_PRECONDITION; three rows are not supported" in capsys.readouterr().out
    assert "util.status.check_ok" in (tmp_path / "dyn.reduced.mlir").read_text()
    # --dim sizes it without data: seeded values at 3 rows show the same failure
    assert main([str(source), "--oracle=run-error", "--no-cache", "--no-culprit", "-j", "1", "--dim", "arg0.0=3",
                 "--dim", "arg1.0=3", "-o", str(tmp_path / "dim.mlir")]) == 0
    out = capsys.readouterr().out
    assert "FAILED_PRECONDITION; three rows are not supported" in out
