"""Corpus entries: written by `reduce --save-to-corpus`, checked against the real compiler."""

from __future__ import annotations

import json

from reducer.cli import main
from reducer.corpus_entries import (
    ENTRY_FILE,
    FIXED,
    check_entry,
    entry_problem,
    load_entries,
)
from tests.models import torch_chain

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]


def test_saved_entry_reproduces_and_a_fix_is_reported_as_fixed(tmp_path, iree_compile):
    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(12, bad_at=5, bad_op="onnx.NoSuchOp"))
    corpus = tmp_path / "entries"
    args = [str(src), "--oracle=compile-error", "-q", "--save-to-corpus", "no-such-op", "--corpus-dir", str(corpus), "--", *CPU]
    assert main(args) == 0

    (entry,) = load_entries(corpus)
    fields = json.loads((entry.directory / ENTRY_FILE).read_text())
    assert fields["state"] == "reproduces" and fields["oracle"] == "compile-error"
    assert "failed to legalize operation 'torch.operator'" in fields["signature"]
    assert fields["iree_version"].startswith("iree-base-compiler 3.13.0")
    assert entry.input_path.read_text().count("torch.operator") == 1
    assert entry_problem(entry, check_entry(entry)) is None

    # The compiler "fixes" the bug: the op becomes one it knows.
    entry.input_path.write_text(entry.input_path.read_text().replace("onnx.NoSuchOp", "onnx.Relu"))
    problem = entry_problem(entry, check_entry(entry))
    assert problem and "no longer reproduces: fixed in iree-base-compiler 3.13.0" in problem and "mark it fixed" in problem
    entry.state = FIXED
    assert entry_problem(entry, check_entry(entry)) is None

    # A second entry under the same name is refused, the first one kept.
    assert main(args) == 1
    assert len(load_entries(corpus)) == 1
