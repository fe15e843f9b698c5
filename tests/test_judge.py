"""`python -m oracles.judge`: the project's oracle as an interestingness test for external reducers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from oracles import Candidate, make_oracle
from oracles.judge_spec import write_spec
from tests.models import torch_chain

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def judge(spec: Path, file: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "oracles.judge", str(spec), file]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)


def calibrated_spec(tmp_path: Path, text: str) -> Path:
    oracle = make_oracle("compile-error")
    verdict = oracle.judge(Candidate(text, tuple(CPU)))
    assert verdict.interesting
    spec = tmp_path / "judge.json"
    write_spec(spec, "compile-error", oracle.options, CPU, verdict)
    return spec


def test_judge_keeps_the_originals_signature(tmp_path, iree_compile):
    original = torch_chain(6, 3, "onnx.NoSuchOp")
    spec = calibrated_spec(tmp_path, original)
    (tmp_path / "same.mlir").write_text(original)
    other_error = original.replace("onnx.NoSuchOp", "onnx.OtherMissingOp")
    (tmp_path / "other.mlir").write_text(other_error)

    same = judge(spec, str(tmp_path / "same.mlir"))
    assert same.returncode == 0, same.stderr
    assert "judge: interesting: " in same.stderr and "failed to legalize" in same.stderr
    assert judge(spec, "-", stdin=original).returncode == 0  # Shrink Ray passes the candidate on stdin
    # Another op name is another normalised signature: not the original's bug, as in `reduce`.
    assert judge(spec, str(tmp_path / "other.mlir")).returncode == 1
    fixed = judge(spec, "-", stdin=original.replace("onnx.NoSuchOp", "onnx.Relu"))
    assert fixed.returncode == 1 and "not interesting: compiles fine" in fixed.stderr


def test_judge_rejects_a_file_that_is_no_spec_in_one_line(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text("{}")
    result = judge(bogus, "-", stdin="module {}")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not a judge spec" in result.stderr
