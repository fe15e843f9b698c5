"""Where it breaks: the failing pass, its reduced one-pass repro and lit test, with the real tools."""

from __future__ import annotations

import json
from pathlib import Path

from oracles import Candidate, OracleOptions, Verdict, make_oracle
from oracles.compiling.pass_repro import (
    Expected,
    annotation_message,
    innermost_pass,
    lit_test_text,
    run_lit_test,
)
from oracles.mlir import ir as irx
from oracles.toolchain import tools
from oracles.toolchain.tools import ToolNotFound
from reducer import culprit as culprit_module
from reducer.cli import main
from reducer.corpus_entries import check_lit_test, load_entries
from reducer.culprit import CulpritRequest, find_culprit
from tests.models import torch_chain

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).parent.parent / "corpus" / "entries"
GFX942 = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def ops_in(path: Path) -> int:
    return irx.count_ops(irx.parse(path.read_text(), irx.new_context()))


def test_innermost_pass_of_a_local_reproducer_pipeline():
    nested = "builtin.module(hal.executable(hal.executable.variant(builtin.module(func.func(iree-llvmgpu-vector-distribute)))))"
    assert innermost_pass(nested) == "iree-llvmgpu-vector-distribute"
    assert innermost_pass("builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))") == "convert-torch-onnx-to-torch"
    assert innermost_pass("builtin.module(inline{default-pipeline=canonicalize(x) max-iterations=4})") == "inline"


def test_annotation_drops_the_printed_op_whose_numbers_change():
    message = "failed to legalize operation 'arith.fptoui' that was explicitly marked illegal: %47 = \"arith.fptoui\"(%46) : (f32) -> i8"
    assert annotation_message(message) == "failed to legalize operation 'arith.fptoui' that was explicitly marked illegal"
    assert annotation_message("'func.func' op failed to distribute") == "'func.func' op failed to distribute"


def test_lit_test_puts_each_expected_diagnostic_above_its_line():
    ir_text = "module {\n  func.func @f() {\n    return\n  }\n}\n"
    text = lit_test_text(ir_text, "builtin.module(p)", [Expected("error", 2, "a"), Expected("note", 2, "b")])
    lines = text.splitlines()
    assert lines[0] == "// RUN: iree-opt '--pass-pipeline=builtin.module(p)' --verify-diagnostics %s"
    at = lines.index("  func.func @f() {")
    assert lines[at - 2 : at] == ["  // expected-error @+2 {{a}}", "  // expected-note @+1 {{b}}"]


def test_functions_inside_an_executable_are_reducible_functions():
    text = (CORPUS / "conv1x1-56-f16acc-gfx942-failed-to-distribute" / "pass.mlir").read_text()
    module = irx.parse(text, irx.new_context())
    names = [irx.symbol_name(f) for f in irx.functions(module)]
    assert "block_dispatch_0_matmul_like_3136x128x64_f16" in names


def test_compile_error_names_its_pass_and_writes_a_one_pass_repro_and_a_lit_test_that_pass(tmp_path, iree_compile, capsys,
                                                                                            monkeypatch):
    # Named as users name it, relative to the folder above (the lit test's iree-opt runs in the
    # file's folder: it once ran on `cases/cases/...`, found no diagnostic and wrote no lit test).
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "bug.mlir").write_text((CORPUS / "conv1x1-56-f16acc-gfx942-failed-to-distribute" / "repro.mlir").read_text())
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "bug.md"

    corpus = tmp_path / "corpus"
    args = ["--report", str(report), "--save-to-corpus", "distribute", "--corpus-dir", str(corpus)]
    assert main(["cases/bug.mlir", "--oracle=compile-error", "-q", "-j", "2", *args, "--", *GFX942]) == 0

    printed = capsys.readouterr().out
    assert "culprit       iree-llvmgpu-vector-distribute (phase executable-targets): 2 compiles" in printed
    assert "lit test      cases/bug.reduced.lit.mlir (passes)" in printed
    repro, lit = tmp_path / "cases" / "bug.reduced.pass.mlir", tmp_path / "cases" / "bug.reduced.lit.mlir"
    reproducer_ops = int(printed.split("the compiler's reproducer: ")[1].split(")")[0])
    assert ops_in(repro) < reproducer_ops  # reduced, not the compiler's file renamed
    check = run_lit_test(lit)  # the RUN line with the real iree-opt --verify-diagnostics
    assert check.passed, check.detail
    assert "// expected-error @+1 {{'func.func' op failed to distribute}}" in lit.read_text()
    assert "## Failing pass: `iree-llvmgpu-vector-distribute`" in report.read_text()
    entry = load_entries(corpus)[0]  # the corpus entry records the pass and carries the lit test
    assert entry.culprit["pass"] == "iree-llvmgpu-vector-distribute"
    assert check_lit_test(entry).passed


def test_crash_lit_test_is_xfail_and_the_pass_is_named(tmp_path, iree_compile, capsys):
    src = tmp_path / "crash.mlir"
    src.write_text((DATA / "qlinearconv_no_kernel_shape_crash.mlir").read_text())

    assert main(["--culprit-only", str(src), "--oracle=crash", "-q", "-j", "2", "--", *CPU]) == 0

    printed = capsys.readouterr().out
    assert "culprit       convert-torch-onnx-to-torch (phase input)" in printed
    lit = tmp_path / "crash.lit.mlir"
    assert "// XFAIL: *" in lit.read_text()
    assert run_lit_test(lit).passed  # it still crashes: the XFAIL holds
    assert ops_in(tmp_path / "crash.pass.mlir") < ops_in(src)


def test_no_culprit_skips_the_step(tmp_path, iree_compile, capsys):
    src = tmp_path / "model.mlir"
    src.write_text(torch_chain(6, bad_at=3, bad_op="onnx.NoSuchOp"))

    assert main([str(src), "--oracle=compile-error", "-q", "--no-culprit"]) == 0

    assert "  culprit  " not in capsys.readouterr().out
    assert not (tmp_path / "model.reduced.pass.mlir").exists()


def test_missing_iree_opt_leaves_the_reduction_standing(tmp_path, iree_compile, capsys, monkeypatch):
    def no_iree_opt(name: str) -> str:
        raise ToolNotFound(f"{name} not found: install the pinned IREE wheels")

    monkeypatch.setattr(culprit_module, "find_tool", no_iree_opt)  # the fault: iree-opt is not installed
    # In this process, where the fault is: the step normally runs in a child the patch does not reach.
    monkeypatch.setattr(culprit_module, "find_culprit_isolated", lambda request, _process: culprit_module.find_culprit(request))
    src = tmp_path / "model.mlir"
    src.write_text(torch_chain(6, bad_at=3, bad_op="onnx.NoSuchOp"))

    assert main([str(src), "--oracle=compile-error", "-q"]) == 0

    printed = capsys.readouterr().out
    assert "culprit       did not conclude: iree-opt not found" in printed
    assert ops_in(tmp_path / "model.reduced.mlir") == 1  # the main result stands


def test_a_reproducer_that_does_not_show_the_signature_does_not_conclude(tmp_path, iree_compile):
    case = Candidate(torch_chain(2, bad_at=1, bad_op="onnx.NoSuchOp"))
    # Pinned to another failure: the pass's own error is not it, as when a pass depends on state
    # (a global option, an earlier pass's analysis) that the reproducer does not carry.
    other = Verdict(True, "error: some other failure")
    request = CulpritRequest(case, make_oracle("compile-error", OracleOptions()), other, tmp_path / "x.mlir")

    found = find_culprit(request)

    assert not found.concluded
    assert found.pass_name == "torch-reduce-op-variants"
    assert "does not reproduce alone" in found.why
    assert found.compiles == 2
    assert not (tmp_path / "x.pass.mlir").exists()


def test_lds_culprit_only_shows_the_dispatch_configuration(tmp_path, iree_compile, capsys):
    entry = CORPUS / "conv1x1-gfx942-lds-above-48k"
    flags = json.loads((entry / "entry.json").read_text())["flags"]

    assert main(["--culprit-only", str(entry / "repro.mlir"), "--oracle=lds-limit", "--lds-bytes", "49152", "-q", "--", *flags]) == 0

    printed = capsys.readouterr().out
    assert "configured    pipeline TileAndFuse; workgroup size [256, 1, 1]; subgroup size 64" in printed
    assert "tiles: workgroup [" in printed


def test_a_step_run_ahead_ends_once_cancelled_and_else_waits_for_its_answer():
    """The failing-pass step run beside the passes is dropped when a round finds a smaller result:
    its wait ends at the cancel, not at the step's time limit."""
    import threading
    import time
    from concurrent.futures import Future

    job, cancel = Future(), threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.monotonic()
    assert culprit_module._waited(job, start + 60, cancel) is None
    assert time.monotonic() - start < 5
    answered = Future()
    threading.Timer(0.2, answered.set_result, args=(("culprit", []),)).start()
    assert culprit_module._waited(answered, time.monotonic() + 60, threading.Event()) == ("culprit", [])


def test_a_warm_worker_runs_a_one_pass_pipeline_as_iree_opt_does(monkeypatch):
    # The repro's reduction judges on warm workers: the pipeline must run there (its
    # `builtin.module(` anchor off), with iree-opt's signature, and a pipeline it cannot anchor
    # goes to the tool.
    from oracles.compiling.pass_repro import PassError, one_pass_oracle
    from oracles.toolchain.warm import WarmCompiler

    entry = CORPUS / "conv1x1-56-f16acc-gfx942-failed-to-distribute"
    pipeline = json.loads((entry / "entry.json").read_text())["culprit"]["pipeline"]
    assert pipeline.startswith("builtin.module(")
    repro = Candidate((entry / "pass.mlir").read_text())
    by_tool = PassError(pipeline).judge(repro)
    assert by_tool.interesting and "failed to distribute" in by_tool.signature, by_tool.detail
    tool = one_pass_oracle(pipeline, by_tool)
    warm = WarmCompiler(1, 16384)
    try:
        with monkeypatch.context() as patched:  # the worker judges: no iree-opt process may start
            patched.setattr(tools, "run_tool", _no_tool)
            by_worker = tool.with_compiler(warm).judge(repro)
            assert not tool.with_compiler(warm).judge(repro.with_text("module {}")).interesting
        assert (by_worker.interesting, by_worker.signature) == (by_tool.interesting, by_tool.signature)
        unanchored = one_pass_oracle(pipeline[len("builtin.module("):-1], by_tool)  # the worker declines it
        assert unanchored.with_compiler(warm).judge(repro).signature == unanchored.judge(repro).signature
    finally:
        warm.shutdown()


def _no_tool(*args, **kwargs):
    raise AssertionError(f"a tool process was started: {args[0]}")



def test_at_j2_the_step_runs_in_the_process_started_ahead_and_one_no_step_took_is_killed(tmp_path, iree_compile):
    """At -j 2 the failing-pass step's process starts while the original compiles, where a core is
    idle (its import and warm workers once cost the run's last second): the step must run there and
    conclude; a process no step took must not outlive its run."""
    oracle = make_oracle("compile-error", OracleOptions())
    case = Candidate(torch_chain(2, bad_at=1, bad_op="onnx.NoSuchOp"))
    verdict = oracle.judge(case)
    assert culprit_module.step_process_ahead(oracle, 1, True, True) is None  # no spare worker: the step spawns its own
    with culprit_module.step_process_ahead(oracle, 2, True, True) as ahead:
        pid = ahead.pid()
        ahead.load_workers()
        found, _ = culprit_module.where_it_breaks(oracle, case, verdict, tmp_path / "x.mlir", 2, print, process=ahead)
        assert found.concluded, found.why
        assert ahead.pid() is None  # the step took it
        assert _gone(pid)  # and ended it with the step
    with culprit_module.step_process_ahead(oracle, 2, True, True) as untaken:
        pid = untaken.pid()
    assert _gone(pid)


def _gone(pid: int) -> bool:
    """No such process, or one killed that its parent has not reaped yet."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


STOP_WITH_WORKERS_UP = """
import time
from pathlib import Path
from oracles import OracleOptions, make_oracle
from reducer.culprit import step_process_ahead
if __name__ == "__main__":
    process = step_process_ahead(make_oracle("compile-error", OracleOptions()), 2, True, True)
    process.load_workers()
    pid, deadline = process.pid(), time.monotonic() + 120
    children = Path(f"/proc/{pid}/task/{pid}/children")
    while time.monotonic() < deadline and len(children.read_text().split()) < 2:
        time.sleep(0.1)
    print("workers", len(children.read_text().split()))
    process.shutdown()
"""


def test_a_step_process_stopped_with_its_workers_up_leaves_no_warning_behind():
    """A step cancelled mid-run (a later round found a smaller result) or never taken is stopped
    while its warm workers run: killed at once, their semaphores were reported leaked under the
    run's result ('There appear to be 5 leaked semaphore objects')."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", STOP_WITH_WORKERS_UP], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent.parent)
    assert done.returncode == 0 and "workers 2" in done.stdout, done.stdout + done.stderr
    assert done.stderr == "", done.stderr
