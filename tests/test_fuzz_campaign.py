"""The fuzzer end to end with the real compiler and runtime: a short campaign, and a real mismatch
that is detected, deduped and reduced."""

from __future__ import annotations

import sqlite3

import numpy as np
import onnx
import pytest

from fuzz import pipelines as pipelines_module
from fuzz.cli import main as fuzz_main
from fuzz.execute import MISMATCH, InProcess, run_case
from fuzz.findings import FindingsDB
from fuzz.pipelines import PIPELINES, Pipeline
from fuzz.spec import Const, GraphSpec, Node, Tensor
from fuzz.triage import reduce_finding
from oracles.data.carried import unpack
from oracles.toolchain.flags import GENERIC_CPU
from oracles.toolchain.tools import Limits
from reducer.corpus_entries import check_entry, entry_problem, load_data, load_entries
from reducer.formats.registry import format_for

# A pipeline perturbed for real: matmul inputs demoted to bf16, which rounds integers above 256.
PERTURBED = Pipeline(
    "cpu-bf16-matmul",
    (
        *GENERIC_CPU,
        "--iree-global-opt-demote-contraction-inputs-type=bf16",
        "--iree-global-opt-demote-contraction-inputs-operations=matmul",
    ),
    "test only: bf16 matmul inputs",
)


def two_matmuls_with_epilogue() -> GraphSpec:
    """x[4x256] @ W1[256x256] reaches |values| in the thousands (inexact in bf16) before @ W2[256x8], then relu."""
    return GraphSpec(
        opset=21,
        features=frozenset({"matmul", "relu"}),
        inputs=(Tensor("x", "float32", (4, 256), -16, 16),),
        consts=(
            Const("w1", "float32", (256, 256), "random", low=-16, high=16, seed=1),
            Const("w2", "float32", (256, 8), "random", low=-2, high=2, seed=2),
        ),
        nodes=(
            Node("MatMul", ("x", "w1"), "h", "float32", (4, 256)),
            Node("Relu", ("h",), "r", "float32", (4, 256), role="relu"),
            Node("MatMul", ("r", "w2"), "y", "float32", (4, 8)),
            Node("Relu", ("y",), "z", "float32", (4, 8), role="relu"),
        ),
        outputs=("z",),
    )


def test_short_campaign_with_a_fixed_seed_writes_its_database(tmp_path, iree_compile, capsys):
    out = tmp_path / "findings"
    assert fuzz_main(["run", "--time", "1m", "--max-cases", "6", "--seed", "7", "--out", str(out), "-j", "2", "--no-reduce", "--targets", "none"]) == 0
    printed = capsys.readouterr().out
    assert "fuzz: 6 cases in" in printed
    with sqlite3.connect(out / "findings.db") as db:
        (cases,) = db.execute("SELECT cases FROM runs").fetchone()
        stored = db.execute("SELECT kind, count FROM findings").fetchall()
    assert cases == 6
    assert all(count >= 1 for _, count in stored)
    assert fuzz_main(["show", str(out)]) == 0
    assert f"{len(stored)} distinct findings" in capsys.readouterr().out


@pytest.mark.nightly  # 35 s; a campaign's finding reduced by default: the campaign_dir fixture (tests/conftest.py)
def test_perturbed_pipeline_is_a_mismatch_that_is_deduped_and_reduced(tmp_path, iree_compile, monkeypatch):
    monkeypatch.setitem(PIPELINES, PERTURBED.name, PERTURBED)
    assert pipelines_module.PIPELINES is PIPELINES
    spec = two_matmuls_with_epilogue()
    backend = InProcess(Limits(timeout_s=120))
    chosen = [PIPELINES["cpu"], PERTURBED]
    first = run_case(11, spec, chosen, backend)
    again = run_case(12, spec, chosen, backend)

    statuses = {run.pipeline: run.status for run in first.runs}
    assert statuses == {"cpu": "ok", PERTURBED.name: MISMATCH}
    perturbed = first.runs[1]  # compared with the reference and with the pipeline before it
    assert perturbed.mismatch_fraction > 0 and perturbed.agreement.startswith("differs from cpu")
    (finding,) = first.findings
    assert finding.kind == MISMATCH and finding.pipeline == PERTURBED.name and "differs from cpu" in finding.detail

    db = FindingsDB(tmp_path / "findings.db")
    assert db.record(finding, first) is True
    assert db.record(again.findings[0], again) is False  # the same bug seen again: counted, not stored
    (stored,) = db.all()
    assert stored.count == 2

    # Graph passes only: each miscompile probe compiles and runs two pipelines, and shape
    # shrinking (tested in test_shapes.py) would take most of a minute here.
    graph_passes = [p for p in format_for(".onnx").pass_rows() if p.search != "shrink"]
    triage = reduce_finding(finding, first, tmp_path, jobs=2, passes=graph_passes)
    db.set_reduction(finding.signature, str(triage.directory), triage.reduced_size)
    reduced = onnx.load(triage.directory / "reduced.onnx")
    # The second MatMul alone: its input, cut from the first MatMul's Relu, carries the value the
    # original computes there on the case's inputs (thousands, inexact in bf16), not a drawn one.
    assert [node.op_type for node in reduced.graph.node] == ["MatMul"]
    (cut_input,) = [i.name for i in reduced.graph.input if i.name not in {t.name for t in reduced.graph.initializer}]
    assert cut_input == "r"
    (entry,) = load_entries(tmp_path / "corpus")
    carried = unpack(load_data(entry.directory / entry.data_file))
    (values,) = [value for key, value in carried.items() if key.endswith(":r")]
    assert values.shape == (4, 256) and np.abs(values).max() > 256 and values.min() >= 0  # a Relu's output
    report = (triage.directory / "report.md").read_text()
    # cpu got the reference's answer, so the finding reduces as a miscompile of the two pipelines.
    assert "miscompile" in report and "--iree-global-opt-demote-contraction-inputs-type=bf16" in report
    # saved as a regression test that still fails, on its data
    assert entry.oracle == "miscompile" and entry_problem(entry, check_entry(entry)) is None
    assert db.all()[0].reduced_size.endswith("bytes")
    db.close()


@pytest.mark.nightly  # 20 s; the nightly job runs it, and `fuzz nightly` in full
def test_nightly_writes_its_summary_and_fails_when_a_corpus_entry_changed_state(tmp_path, iree_compile, capsys):
    from reducer.cli import main as reduce_main
    from tests.models import torch_chain

    src = tmp_path / "bug.mlir"
    src.write_text(torch_chain(6, bad_at=3, bad_op="onnx.NoSuchOp"))
    corpus = tmp_path / "entries"
    cpu = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
    assert reduce_main([str(src), "--oracle=compile-error", "-q", "--save-to-corpus", "unknown-op", "--corpus-dir", str(corpus), "--", *cpu]) == 0
    out = tmp_path / "nightly"
    args = ["nightly", "--time", "1m", "--max-cases", "2", "--seed", "3", "--out", str(out), "--no-reduce", "--targets", "none", "--corpus", str(corpus)]

    assert fuzz_main(args) == 0
    summary = (out / "summary.md").read_text()
    assert "# Nightly fuzz summary" in summary and "2 cases" in summary
    assert "## New findings" in summary and "## Known findings seen again" in summary
    assert "corpus: 1 entries checked (0 need a device or package this machine lacks), 0 changed state" in summary
    page = (out / "report.html").read_text()  # the report beside it, for the workflow to upload
    assert "<svg" in page and "2</b> cases" in page

    repro = corpus / "unknown-op" / "repro.mlir"
    repro.write_text(repro.read_text().replace("onnx.NoSuchOp", "onnx.Relu"))  # as if IREE fixed it
    capsys.readouterr()
    assert fuzz_main(args) == 3
    summary = (out / "summary.md").read_text()
    assert "1 changed state" in summary and "unknown-op no longer reproduces" in summary and "mark it fixed" in summary


def test_nightly_summary_counts_a_finding_with_a_corpus_entry_as_known():
    from collections import Counter
    from pathlib import Path

    from fuzz.campaign import CampaignStats
    from fuzz.findings import StoredFinding
    from fuzz.nightly import summary_markdown
    from reducer.corpus_entries import CorpusEntry

    def stored(signature: str, kind: str) -> StoredFinding:
        return StoredFinding(signature, kind, "vmvx", "", 1, "{}", "", 1, None, "1 node, 150 bytes")

    known, fresh = "error: fptoui on vmvx", "crash: died: somewhere new"
    stats = CampaignStats(cases=3, seconds=60.0, by_kind=Counter({"compile error": 1, "crash": 1}), by_signature=Counter({known: 1, fresh: 1}))
    stats.new = [(known, None), (fresh, None)]  # both first seen by this run's database
    entry = CorpusEntry("vmvx-fptoui", "compile-error", {}, [], "reproduces", "3.13.0", known, "", "", "repro.onnx", directory=Path("."))

    summary = summary_markdown(stats, [stored(known, "compile error"), stored(fresh, "crash")], [entry], [], {"seed": 1, "pipelines": ("vmvx",)})
    new_part, known_part = summary.split("## Known findings seen again")
    assert "## New findings (1)" in new_part and fresh in new_part and known not in new_part
    assert "(1)" in known_part.splitlines()[0] and "`vmvx-fptoui`" in known_part
