"""Verdicts kept on disk: a second identical run calls the oracle only for the final re-check."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from oracles import ORACLES, Candidate, Oracle, OracleOptions, Verdict, make_oracle
from oracles.toolchain.warm import WarmCompiler
from reducer.cli import main
from reducer.proposal import Proposal
from reducer.search.evaluate import Evaluator
from reducer.storage.verdict_store import judge_code_files, oracle_fingerprint
from tests.models import torch_chain


def counting_script(tmp_path: Path) -> tuple[str, Path]:
    """An interestingness test that logs every call it gets: the real count of oracle calls."""
    log = tmp_path / "calls.log"
    script = tmp_path / "interesting.sh"
    script.write_text(f'#!/bin/sh\necho x >> {log}\ngrep -q "onnx.NoSuchOp" "$1" && grep -q "onnx.Sigmoid" "$1"\n')
    script.chmod(0o755)
    return f"{script} {{}}", log


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_second_identical_run_makes_only_the_final_recheck(tmp_path, capsys):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(12, bad_at=8, bad_op="onnx.NoSuchOp"))
    cmd, log = counting_script(tmp_path)
    args = [str(src), "--oracle=script", "--cmd", cmd, "--cache-dir", str(tmp_path / "cache"), "-q", "-j", "2"]

    assert main(args) == 0
    first_calls, first = calls(log), (tmp_path / "x.reduced.mlir").read_text()
    assert first_calls > 10
    capsys.readouterr()

    assert main(args) == 0
    assert calls(log) - first_calls == 1  # the uncached final re-check, nothing else
    assert (tmp_path / "x.reduced.mlir").read_text() == first
    # The one call is the final re-check (counted like every verdict); every other one is stored.
    hits = re.search(r"oracle calls  1 \(cache hits (\d+), (\d+) from earlier runs", capsys.readouterr().out)
    # Every call of the first run but its final re-check, less the guesses -j 2 judged with idle
    # workers that a run answered from disk, never waiting, does not make.
    assert hits and 0 < int(hits[2]) <= first_calls - 1

    assert main([*args, "--no-cache"]) == 0  # --no-cache judges everything again
    assert calls(log) - first_calls - 1 >= int(hits[2]) + 1  # every verdict the search needs, and the re-check
    assert "from earlier runs" not in capsys.readouterr().out


def test_changed_options_or_an_edited_script_do_not_reuse_verdicts(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(6, bad_at=3, bad_op="onnx.NoSuchOp"))
    cmd, log = counting_script(tmp_path)
    # -j 1: the calls are those the search needs, no guesses of idle workers, so runs compare exactly.
    args = [str(src), "--oracle=script", "--cmd", cmd, "--cache-dir", str(tmp_path / "cache"), "-q", "-j", "1"]
    assert main(args) == 0
    first = calls(log)

    assert main([*args, "--timeout", "60"]) == 0  # another limit: verdicts may differ
    assert calls(log) == 2 * first

    script = tmp_path / "interesting.sh"
    script.write_text(script.read_text() + "# edited\n")
    assert main(args) == 0
    assert calls(log) == 3 * first


def test_unusable_cache_dir_is_one_line_and_exit_1(tmp_path):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(3, bad_at=1, bad_op="onnx.NoSuchOp"))
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = subprocess.run(
        [sys.executable, "-m", "reducer", str(src), "--oracle=script", "--cmd", "true {}", "--cache-dir", str(blocker / "cache")],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot use the verdict cache" in lines[0] and "--no-cache" in lines[0]


REQUIRED = OracleOptions(cmd="true {}", pattern="flow.dispatch", phase="flow", threshold=1, match="error", pipeline_a=["-a"], pipeline_b=["-b"])


@pytest.mark.parametrize("name", list(ORACLES))
def test_every_oracle_has_a_stable_cache_identity_that_follows_calibration(name):
    # A fingerprint that changed from one instance to the next (an object address in it) would never hit.
    first, second = make_oracle(name, REQUIRED), make_oracle(name, REQUIRED)
    first = first.with_compiler(WarmCompiler(1, 1024))  # a process handle: no verdict depends on it
    assert oracle_fingerprint(first) == oracle_fingerprint(second)
    second = second.calibrated(Verdict(True, "some: signature", metrics={"count": 3}))
    assert oracle_fingerprint(first) != oracle_fingerprint(second)


@pytest.mark.parametrize("name, option", [("miscompile", "wrong_share"), ("reference-mismatch", "wrong_share"), ("lds-limit", "any_dispatch")])
def test_the_pinning_options_are_part_of_the_cache_identity(name, option):
    """A verdict judged with another share of the original's wrong answer, or for any dispatch
    instead of the original's kind, is another verdict."""
    changed = {"wrong_share": 0.9, "any_dispatch": True}[option]
    default = make_oracle(name, REQUIRED)
    other = make_oracle(name, OracleOptions(**{**REQUIRED.__dict__, option: changed}))
    assert oracle_fingerprint(default) != oracle_fingerprint(other)


def test_the_code_digest_covers_the_oracles_subpackages():
    files = {str(path) for path in judge_code_files()}
    assert {"base.py", "numeric/compare.py", "numeric/wrong_answer.py", "compiling/lds.py", "mlir/uninitialised.py"} <= files


class Unreachable(Oracle):
    """Stands for a call whose worker is gone: the executor's future raises."""

    name = "unreachable"
    summary = "raises"

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        raise ConnectionError("worker lost")


def test_a_call_that_raises_is_a_failed_uninteresting_call():
    evaluator = Evaluator(Unreachable(), jobs=2, executor=ThreadPoolExecutor(2))
    answers = [verdict.interesting for verdict in evaluator.verdicts([Proposal(Candidate(f"// {i}"), 1) for i in range(3)])]
    evaluator.shutdown()
    assert answers == [False, False, False]
    assert evaluator.stats.failed_calls == 3
    assert "worker lost" in evaluator.judge(Candidate("// 0")).detail


def test_verdicts_kept_by_another_version_of_the_oracles_code_are_not_reused(tmp_path, monkeypatch):
    from reducer.storage import verdict_store

    oracle, candidate = make_oracle("compile-error"), Candidate("module {}")
    before = verdict_store.VerdictStore(tmp_path).key(oracle, candidate)
    # A changed signature normaliser, say: the package's source digest differs.
    monkeypatch.setattr(verdict_store, "judge_code_digest", lambda: "another version")
    after = verdict_store.VerdictStore(tmp_path).key(oracle, candidate)
    assert before != after


def test_after_ctrl_c_no_verdict_reaches_the_disk_and_nothing_more_is_judged(tmp_path):
    from reducer.search.interrupt import Interruption
    from reducer.storage.verdict_store import VerdictStore

    script = tmp_path / "slow.sh"
    script.write_text("#!/bin/sh\nsleep 1\n")
    script.chmod(0o755)
    oracle = make_oracle("script", OracleOptions(cmd=f"{script} {{}}"))
    store, interruption = VerdictStore(tmp_path / "cache"), Interruption()
    evaluator = Evaluator(oracle, 1, store=store, interruption=interruption)
    candidate = Candidate("module {}")

    running = evaluator.submit(candidate)
    interruption.request()  # Ctrl-C: the script is killed, its "not interesting" proves nothing
    running.result()
    assert store.get(store.key(oracle, candidate)) is None
    with pytest.raises(KeyboardInterrupt):
        evaluator.submit(Candidate("module { }"))
    evaluator.shutdown()


def test_a_device_flag_a_target_flag_implies_asks_nothing_new(iree_compile):
    """`reduce-flags` dropping `--iree-hal-target-device=hip` beside `--iree-rocm-target=gfx942`
    leaves the same compile (the oracle puts the device back): its verdict is the one in hand."""
    text = torch_chain(2, bad_at=1, bad_op="onnx.NoSuchOp")
    evaluator = Evaluator(make_oracle("compile-error", OracleOptions()))
    both = evaluator.judge(Candidate(text, ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942")))
    implied = evaluator.judge(Candidate(text, ("--iree-rocm-target=gfx942",)))
    assert both.interesting and implied is both
    assert (evaluator.stats.oracle_calls, evaluator.stats.cache_hits) == (1, 1)
    # A flag that changes the compile is a new question.
    evaluator.judge(Candidate(text, ()))
    assert evaluator.stats.oracle_calls == 2
