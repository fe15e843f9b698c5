"""Faults injected around the real compiler: what the user sees, and that nothing is lost.

`tests/fault_shim.py` stands in as `iree-compile` (through IREE_REDUCE_TOOLS_DIR) and, when a
candidate contains a marker, segfaults, aborts, hangs, deadlocks, allocates until the memory cap
stops it, or prints garbage; every other compile is the real compiler's. `reduce` runs as its
own process, as a user runs it, so signals and leftover processes are real too.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from onnx import TensorProto, helper

from fuzz.execute import CaseResult, Finding
from fuzz.findings import REDUCED_NAME, FindingsDB, write_record
from oracles.mlir import ir as irx
from oracles.toolchain.tools import TOOLS_DIR_ENV, Limits, run_tool
from reducer.storage.verdict_store import DB_NAME
from tests.models import torch_chain

REPO = Path(__file__).resolve().parent.parent
SHIM = Path(__file__).with_name("fault_shim.py")
EDIT_FAULT = Path(__file__).with_name("edit_fault")  # a sitecustomize that segfaults edits
MARKER = "onnx.FaultMarker"  # an op only the shim reacts to: the real compiler never sees it


def ops_in(path: Path) -> int:
    return irx.count_ops(irx.parse(path.read_text(), irx.new_context()))


@pytest.fixture
def shim(tmp_path) -> Path:
    """A tools directory whose `iree-compile` is the fault shim in front of the real compiler."""
    tools = tmp_path / "tools"
    tools.mkdir()
    exe = tools / "iree-compile"
    exe.write_text(f"#!{sys.executable}\n{SHIM.read_text()}")
    exe.chmod(0o755)
    return tools


def reduce_env(tmp_path: Path, tools: Path | None = None, **fault: str) -> dict[str, str]:
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(scratch), "FAULT_SHIM_STATE": str(tmp_path / "shim-state")}
    env.pop(TOOLS_DIR_ENV, None)
    if tools is not None:
        env[TOOLS_DIR_ENV] = str(tools)
    env.update({f"FAULT_SHIM_{key.upper()}": value for key, value in fault.items()})
    return env


def start_reduce(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "reducer", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def run_reduce(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = start_reduce(args, env, cwd)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def scratch_left(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "scratch").iterdir())


@contextlib.contextmanager
def patched_env(env: dict[str, str]):
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def processes_with(env_value: str) -> list[int]:
    """Live processes (of this user) whose environment holds `env_value`: what a run left behind."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if env_value.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


# --- the compiler dies or misbehaves on some candidates: each is a verdict, the run finishes ---------------


@pytest.mark.parametrize(
    "mode, shown",
    [("segv", "crash: SIGSEGV"), pytest.param("abort", "Assertion `candidate && \"fault shim\"' failed", marks=pytest.mark.nightly)],
)
def test_a_compiler_crash_is_a_verdict_and_reduces(tmp_path, shim, mode, shown):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(5, bad_at=2, bad_op=MARKER, channels=4, size=4))
    original = src.read_text()
    result = run_reduce([str(src), "--oracle=crash", "-q", "-j", "2"], reduce_env(tmp_path, shim, mode=mode, when=MARKER), tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "bug.reduced.mlir"
    assert MARKER in out.read_text() and ops_in(out) <= 2
    assert shown in result.stdout
    assert src.read_text() == original and scratch_left(tmp_path) == []


def test_a_segfault_inside_an_edit_is_a_verdict_and_the_reduction_finishes(tmp_path):
    """Edits run in a worker process: a crash in the bindings costs one edit, never the run."""
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(12, bad_at=7, bad_op="onnx.NoSuchOp", channels=4, size=4))
    args = [str(src), "--oracle=script", "--cmd", "grep -q onnx.NoSuchOp {}", "-j", "2", "--no-localize", "--no-cache"]
    clean = run_reduce([*args, "-o", str(tmp_path / "clean.mlir")], reduce_env(tmp_path), tmp_path)
    assert clean.returncode == 0, clean.stderr
    env = reduce_env(tmp_path)
    env.update(PYTHONPATH=f"{EDIT_FAULT}{os.pathsep}{REPO}", EDIT_FAULT_TIMES="3", EDIT_FAULT_STATE=str(tmp_path / "edits"))
    faulted = run_reduce(args, env, tmp_path)
    assert faulted.returncode == 0, faulted.stderr
    assert (tmp_path / "edits").read_text() == "3"  # three edits did die of SIGSEGV
    assert "an edit crashed its worker (signal 11 (SIGSEGV))" in faulted.stderr
    assert "3 edits crashed their worker and counted as invalid" in faulted.stdout
    assert (tmp_path / "bug.reduced.mlir").read_text() == (tmp_path / "clean.mlir").read_text()
    assert scratch_left(tmp_path) == []


def test_a_crash_while_editing_the_one_pass_repro_costs_one_edit_not_the_failing_pass(tmp_path, iree_compile):
    """The failing-pass step edits its repro in its own process; when the bindings kill it there,
    the step runs again with each edit in a worker: the pass is named, the repro written."""
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(5, bad_at=2, bad_op="onnx.NoSuchOp", channels=4, size=4))
    env = reduce_env(tmp_path)
    env.update(PYTHONPATH=f"{EDIT_FAULT}{os.pathsep}{REPO}", EDIT_FAULT_TIMES="1", EDIT_FAULT_IN="culprit",
               EDIT_FAULT_STATE=str(tmp_path / "edits"))
    result = run_reduce([str(src), "--oracle=compile-error", "-j", "2", "--no-cache"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "edits").read_text() == "1"  # the step's first edit did die of SIGSEGV
    assert "again, each edit isolated" in result.stderr
    assert re.search(r"culprit +[\w-]+ \(phase [\w-]+\)", result.stdout), result.stdout
    assert (tmp_path / "bug.reduced.pass.mlir").exists() and (tmp_path / "bug.reduced.lit.mlir").exists()


@pytest.mark.nightly  # 12 s; a fault-injection case; a crash judged like a failure by default: test_a_compiler_crash_is_a_verdict_and_reduces
def test_garbage_output_is_judged_like_any_other_failure(tmp_path, shim):
    # The real failure is the unknown op; every candidate without the Relu prints a megabyte of
    # binary noise and fails: those are "fails differently", never a crash of reduce.
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(5, bad_at=2, bad_op="onnx.NoSuchOp", channels=4, size=4))
    result = run_reduce([str(src), "--oracle=compile-error", "-q", "-j", "2"],
                        reduce_env(tmp_path, shim, mode="garbage", unless="onnx.Relu"), tmp_path)
    assert result.returncode == 0, result.stderr
    reduced = (tmp_path / "bug.reduced.mlir").read_text()
    assert "onnx.NoSuchOp" in reduced and "onnx.Relu" in reduced
    assert "failed to legalize operation 'torch.operator'" in result.stdout
    assert scratch_left(tmp_path) == []


def _shim_run(shim: Path, mode: str, timeout_s: float, tmp_path: Path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(2, bad_at=1, bad_op=MARKER, channels=4, size=4))
    with patched_env(reduce_env(tmp_path, shim, mode=mode)):
        return run_tool([str(shim / "iree-compile"), str(src), "-o", str(tmp_path / "x.vmfb")], Limits(timeout_s=timeout_s))


def test_a_deadlocked_compile_is_stopped_in_seconds_and_a_busy_one_is_not(tmp_path, shim):
    deadlocked = _shim_run(shim, "deadlock", 120, tmp_path)
    assert deadlocked.deadlocked and deadlocked.timed_out and deadlocked.seconds < 20
    busy = _shim_run(shim, "hang", 8, tmp_path)  # runnable the whole time: only the time limit stops it
    assert busy.timed_out and not busy.deadlocked and busy.seconds >= 8


def test_the_real_compilers_resize_deadlock_is_found_in_seconds(iree_compile):
    # onnx.Resize with a one-element `scales`: iree-compile 3.13 faults on a worker thread, and most of
    # the time its crash handler then sleeps forever, every thread in a futex wait; about one run in
    # five the handler gets through and the compile ends as a plain crash instead. Single-threaded
    # (`--mlir-disable-threading`) it always crashes. A crash says nothing about the detector, so
    # the compile is run until it does not crash (at most 8 times: all crashing has odds near 1e-6).
    source = Path(__file__).parent / "data" / "resize_one_scale_deadlock.mlir"
    for _ in range(8):
        result = run_tool([iree_compile, "--compile-to=input", str(source), "-o", "/dev/null"], Limits(timeout_s=120))
        if result.timed_out or result.deadlocked:
            break
        assert result.returncode != 0 and "Stack dump" in result.stderr, result.stderr[-2000:]
    assert result.deadlocked and result.seconds < 20


@pytest.mark.nightly
def test_a_deadlock_is_reduced_as_a_hang_without_waiting_for_the_limit(tmp_path, shim):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(4, bad_at=1, bad_op=MARKER, channels=4, size=4))
    start = time.monotonic()
    result = run_reduce([str(src), "--oracle=timeout", "-q", "-j", "2", "--hang-seconds", "120"],
                        reduce_env(tmp_path, shim, mode="deadlock", when=MARKER), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "deadlocked after" in result.stdout
    out = tmp_path / "bug.reduced.mlir"
    assert MARKER in out.read_text() and ops_in(out) <= 2
    assert time.monotonic() - start < 120  # not one full --hang-seconds, let alone one per hanging candidate
    assert processes_with(str(tmp_path / "shim-state")) == []


@pytest.mark.nightly
def test_the_real_resize_deadlock_reduces_with_the_timeout_oracle(tmp_path):
    src = tmp_path / "resize.mlir"
    src.write_text((Path(__file__).parent / "data" / "resize_one_scale_deadlock.mlir").read_text())
    start = time.monotonic()
    for _ in range(3):  # about one compile in five crashes instead of hanging: then the original shows no hang (exit 2)
        result = run_reduce([str(src), "--oracle=timeout", "-q", "-j", "2", "--", "--compile-to=input"], reduce_env(tmp_path), tmp_path)
        if result.returncode != 2:
            break
    assert result.returncode == 0, result.stderr
    assert "deadlocked after" in result.stdout and "onnx.Resize" in (tmp_path / "resize.reduced.mlir").read_text()
    assert time.monotonic() - start < 300  # the issue measured 864 s for this case


@pytest.mark.nightly
@pytest.mark.parametrize("mode, limit_args", [("alloc", ["--memory-cap-mb", "4096"]), ("hang", ["--timeout", "5"])])
def test_a_failure_at_a_limit_is_judged_again_and_never_cached(tmp_path, shim, mode, limit_args):
    # Every candidate's first compile runs out of the cap (or hangs past --timeout); judged again it
    # is the real compiler's verdict. The result is the one a clean run gives, and no verdict
    # decided by a limit reaches the cache.
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(4, bad_at=2, bad_op="onnx.NoSuchOp", channels=4, size=4))
    clean = run_reduce([str(src), "--oracle=compile-error", "-q", "-o", str(tmp_path / "clean.mlir"), "--no-cache"],
                       reduce_env(tmp_path, shim), tmp_path)
    assert clean.returncode == 0, clean.stderr
    cache = tmp_path / "cache"
    faulty = run_reduce([str(src), "--oracle=compile-error", "-q", *limit_args, "--cache-dir", str(cache)],
                        reduce_env(tmp_path, shim, mode=mode, times="1"), tmp_path)
    assert faulty.returncode == 0, faulty.stderr
    assert (tmp_path / "bug.reduced.mlir").read_text() == (tmp_path / "clean.mlir").read_text()
    stored = [row[0] for row in sqlite3.connect(cache / DB_NAME).execute("SELECT verdict FROM verdicts")]
    assert stored and not any('"limit": "memory-cap"' in v or '"limit": "timeout"' in v for v in stored)


# --- the original's failure is not the compiler's: refused with one line before reducing -------------------


def _refusal(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "ours, pasted, fault, message",
    [
        ("--oracle=compile-error --memory-cap-mb 4096", "", "alloc", "ran out of this tool's memory cap (--memory-cap-mb 4096)"),
        ("--oracle=compile-error --memory-cap-mb 1", "", "", "cannot even load under --memory-cap-mb 1"),
        ("--oracle=timeout --hang-seconds 0", "", "", "--hang-seconds 0 makes no sense: it must be positive"),
        ("--oracle=timeout --hang-seconds 0.2", "", "", "is below the"),
        pytest.param("--oracle=compile-error --timeout 4", "", "hang", "hit this tool's time limit (--timeout 4 s)", marks=pytest.mark.nightly),
        ("--oracle=crash", "--iree-hal-target-device=llvm-cpu", "", 'iree-compile has no device "llvm-cpu"'),
        ("--oracle=compile-error", "--iree-hal-target-device=hip --iree-rocm-target=gfx9999", "", "does not know the ROCM target 'gfx9999'"),
        ("--oracle=compile-error", "--iree-codegen-tuning-spec-path=missing_spec.mlir", "", "does not exist (missing_spec.mlir)"),
    ],
    ids=["memory-cap", "cap-below-loading", "hang-zero", "hang-below-trivial", "timeout", "unregistered-device", "unknown-target", "missing-file"],
)
def test_a_failure_that_is_not_the_compilers_is_refused(tmp_path, shim, ours, pasted, fault, message):
    src = tmp_path / "bug.mlir"  # a program the real compiler compiles: any failure is the setup's
    src.write_text(torch_chain(3, bad_at=1, bad_op="onnx.Relu", channels=4, size=4))
    env = reduce_env(tmp_path, shim, mode=fault) if fault else reduce_env(tmp_path)
    result = run_reduce([str(src), *ours.split(), "-q", "--", *pasted.split()], env, tmp_path)
    assert message in _refusal(result)
    assert not (tmp_path / "bug.reduced.mlir").exists()


# --- stop signals and a killed reduce ----------------------------------------------------------------------


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_keeps_the_best_result_and_leaves_nothing_behind(tmp_path, signum, status):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(30, bad_at=17, bad_op="onnx.NoSuchOp", channels=4, size=4))
    slow_check = "sleep 0.5; grep -q onnx.NoSuchOp {}"  # each candidate takes a while: the signal lands mid-run
    env = reduce_env(tmp_path)
    proc = start_reduce([str(src), "--oracle=script", "--cmd", slow_check, "-j", "2", "--no-localize"], env, tmp_path)
    out = tmp_path / "bug.reduced.mlir"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and ops_in(out) < 40):
        time.sleep(0.5)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == status, stderr
    assert "partial result (interrupted)" in stdout
    assert "onnx.NoSuchOp" in out.read_text() and ops_in(out) < 40  # written, valid, still interesting
    assert scratch_left(tmp_path) == []
    assert processes_with(str(tmp_path / "scratch")) == []


def test_kill_9_then_resume_reaches_the_same_bytes_with_fewer_calls(tmp_path):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(30, bad_at=17, bad_op="onnx.NoSuchOp", channels=4, size=4))
    slow_check = "sleep 0.4; grep -q onnx.NoSuchOp {}"
    args = [str(src), "--oracle=script", "--cmd", slow_check, "-j", "2", "--no-localize", "--no-cache", "--json", "-q"]
    env = reduce_env(tmp_path)
    clean = run_reduce([*args, "-o", str(tmp_path / "clean.mlir")], env, tmp_path)
    assert clean.returncode == 0, clean.stderr
    proc = start_reduce(args, env, tmp_path)
    out, state = tmp_path / "bug.reduced.mlir", tmp_path / "bug.reduced.mlir.resume"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and ops_in(out) <= 11 and state.exists()):  # well into the run
        time.sleep(0.2)
    proc.kill()  # SIGKILL: no handler runs; only what was on disk survives
    proc.wait()
    assert state.exists()
    resumed = run_reduce([*args, "--resume"], env, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_text() == (tmp_path / "clean.mlir").read_text()
    assert json.loads(resumed.stdout)["oracle_calls"] < json.loads(clean.stdout)["oracle_calls"]
    assert not state.exists()  # a finished run leaves nothing to resume


def test_resume_refuses_the_state_of_another_run(tmp_path):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(3, bad_at=1, bad_op="onnx.NoSuchOp", channels=4, size=4))
    (tmp_path / "bug.reduced.mlir.resume").write_text(json.dumps({
        "version": 1, "original_key": "another", "configuration": "", "stage": "passes", "best_text": "",
        "best_binary": None, "best_flags": [], "best_ops": 0, "stop_phase": None,
        "position": {"round": 1, "pass_index": 0, "changed": False, "settled": []}}))
    result = run_reduce([str(src), "--oracle=script", "--cmd", "grep -q onnx.NoSuchOp {}", "--resume"], reduce_env(tmp_path), tmp_path)
    assert result.returncode == 1
    assert "is the state of a run on another input, oracle, flags or passes; run without --resume" in result.stderr
    assert not (tmp_path / "bug.reduced.mlir").exists()


@pytest.mark.nightly  # 35 s; a killed reduction resumes by default: test_kill_9_then_resume_reaches_the_same_bytes_with_fewer_calls
def test_a_campaign_killed_while_reducing_leaves_its_finding_to_fuzz_reduce(tmp_path):
    out = tmp_path / "campaign"
    env = reduce_env(tmp_path)
    run = ["--max-cases", "2", "--seed", "7", "--targets", "none", "-j", "2", "--reduce-jobs", "2", "--out", str(out), "-q"]
    proc = subprocess.Popen([sys.executable, "-m", "fuzz", "run", *run], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(out.glob(f"findings/*/{REDUCED_NAME}")):
        time.sleep(0.2)  # the reduction has written its first best: it is under way
    proc.kill()
    proc.wait()
    db = FindingsDB(out / "findings.db")
    left = db.unreduced()
    db.close()
    assert len(left) == 1  # the finding is in the database, its reduction unfinished
    finished = subprocess.run([sys.executable, "-m", "fuzz", "reduce", str(out), "--reduce-jobs", "2", "-q"],
                              env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert finished.returncode == 0, finished.stderr
    assert "1 finding reduced, none left unreduced" in finished.stdout
    db = FindingsDB(out / "findings.db")
    (finding,) = [f for f in db.all() if f.signature == left[0][0].signature]
    assert db.unreduced() == [] and finding.reduced_size == "1 node, 160 bytes"  # the QuantizeLinear alone
    db.close()
    assert (Path(finding.directory) / "report.md").is_file()


def test_warm_workers_exit_when_reduce_is_killed(tmp_path):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(40, bad_at=23, bad_op="onnx.NoSuchOp"))
    env = reduce_env(tmp_path)
    proc = start_reduce([str(src), "--oracle=compile-error", "-j", "2", "--no-cache"], env, tmp_path)
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "warm compiler on" in line:
            break
    assert any("warm compiler on" in line for line in lines), "".join(lines)
    workers = [pid for pid in processes_with(str(tmp_path / "scratch")) if pid != proc.pid]
    assert workers
    proc.kill()  # SIGKILL: no handler, no cleanup in reduce itself
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and processes_with(str(tmp_path / "scratch")):
        time.sleep(0.2)
    assert processes_with(str(tmp_path / "scratch")) == []


# --- damaged files on disk ---------------------------------------------------------------------------------


@pytest.mark.nightly  # 15 s; a fault-injection case
def test_a_truncated_verdict_cache_is_ignored_with_a_warning(tmp_path):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(4, bad_at=2, bad_op="onnx.NoSuchOp", channels=4, size=4))
    cache = tmp_path / "cache"
    args = [str(src), "--oracle=compile-error", "-q", "--cache-dir", str(cache)]
    first = run_reduce(args, reduce_env(tmp_path), tmp_path)
    assert first.returncode == 0, first.stderr
    reduced = (tmp_path / "bug.reduced.mlir").read_text()
    db = cache / DB_NAME
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    second = run_reduce(args, reduce_env(tmp_path), tmp_path)
    assert second.returncode == 0, second.stderr
    assert "warning: the verdict cache" in second.stderr and "unreadable" in second.stderr
    assert (tmp_path / "bug.reduced.mlir").read_text() == reduced
    assert any(p.name.startswith(f"{DB_NAME}.damaged-") for p in cache.iterdir())  # kept aside, not deleted


def _one_relu_model() -> bytes:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]).SerializeToString()


def test_a_truncated_findings_database_is_rebuilt_from_the_findings(tmp_path, capsys):
    out = tmp_path / "out"
    db = FindingsDB(out / "findings.db")
    findings = [Finding("compile error", "cpu", f"error: signature {i}", f"detail {i}") for i in range(3)]
    for i, finding in enumerate(findings):
        case = CaseResult(seed=100 + i, spec_json=f'{{"seed": {100 + i}}}', description=f"graph {i}")
        db.record(finding, case)
        db.record(finding, case)
        directory = out / "findings" / f"f{i}"
        directory.mkdir(parents=True)
        write_record(directory, finding, case)
        if i < 2:  # reduced (the third was killed mid-reduction)
            (directory / REDUCED_NAME).write_bytes(_one_relu_model())
            db.set_reduction(finding.signature, str(directory), "1 node, 99 bytes")
    before = {row.signature: row for row in db.all()}
    db.close()
    path = out / "findings.db"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    rebuilt = FindingsDB(path)
    after = {row.signature: row for row in rebuilt.all()}
    assert "rebuilt from" in capsys.readouterr().err
    assert after.keys() == before.keys()  # nothing lost
    for signature, row in after.items():
        assert (row.kind, row.pipeline, row.detail, row.seed, row.spec_json, row.description) == (
            before[signature].kind, before[signature].pipeline, before[signature].detail,
            before[signature].seed, before[signature].spec_json, before[signature].description)
        assert row.directory == before[signature].directory  # reduced ones are not reduced again
    assert after["error: signature 2"].reduced_size is None
    assert after["error: signature 0"].reduced_size.startswith("1 node, ")
