"""The benchmarks' results files (bench/results.py): what they say about where a figure comes from,
and that every benchmark can write one."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from bench import results
from oracles.toolchain import tools

ROOT = Path(__file__).resolve().parent.parent
# bench/ scripts that measure nothing: the helper itself, the one that exports a model, and the
# 1-minimality check of one result (the scripts that measure print its answer as a column).
NOT_MEASURING = {"results", "export_toy_llama", "one_minimal"}
HEADER = ("command", "machine", "date", "IREE", "commit")


def measuring_scripts() -> list[Path]:
    return [path for path in sorted((ROOT / "bench").glob("*.py")) if path.stem not in NOT_MEASURING]


def test_a_results_file_says_where_its_figures_come_from(tmp_path, monkeypatch):
    monkeypatch.setattr(tools, "iree_version", lambda: "iree-base-compiler 9.9 (IREE compiler version 9.9)")
    table = results.Table(["case", "seconds"], [["a | b", 1.5]], "two cases, -j 2")
    written = results.write(str(ROOT / "bench" / "fuzz_rate.py"), [table], ["a note"], ["--seconds", "60", "--results"], tmp_path)
    assert written == tmp_path / "fuzz_rate.md"
    text = written.read_text()
    fields = dict(re.findall(r"^- \*\*(\w+)\*\*: (.*)$", text, re.MULTILINE))
    assert list(fields) == list(HEADER)
    assert fields["command"] == "`python bench/fuzz_rate.py --seconds 60 --results`"
    assert re.fullmatch(rf"\S.*, {os.cpu_count()} cores", fields["machine"])  # the CPU's model, then the cores
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", fields["date"])
    assert fields["IREE"] == "iree-base-compiler 9.9 (IREE compiler version 9.9)"
    assert re.fullmatch(r"[0-9a-f]{7,}(\+changes)?", fields["commit"])
    assert "two cases, -j 2\n\n| case | seconds |\n|---|---|\n| a \\| b | 1.5 |\n" in text  # a cell keeps its pipe
    assert text.rstrip().endswith("- a note")


def test_rows_given_as_dicts_keep_the_first_rows_columns(capsys):
    rows = results.stream(iter([{"case": "a", "s": "1.0"}, {"case": "b", "s": "2.0", "extra": "dropped"}]))
    assert capsys.readouterr().out == "| case | s |\n|---|---|\n| a | 1.0 |\n| b | 2.0 |\n"
    assert results.Table.of_dicts(rows).rows == [["a", "1.0"], ["b", "2.0"]]
    assert results.Table([]).markdown() == "(no rows)\n"


@pytest.mark.parametrize("script", measuring_scripts(), ids=lambda path: path.stem)
def test_every_benchmark_can_write_its_results(script):
    """A new benchmark that prints figures must also take --results and write them (or be listed above)."""
    source = script.read_text()
    assert "results.add_option(parser)" in source and "results.write(__file__" in source, (
        f"bench/{script.name}: add results.add_option(parser) and results.write(__file__, tables, ...) (bench/results.py)")


def test_the_commit_says_changes_to_the_code_not_to_results_files(tmp_path):
    def git(*words: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *words], check=True, capture_output=True)

    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "docs" / "results" / "a.md").write_text("old\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    clean = results.commit(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{7,}", clean)
    (tmp_path / "docs" / "results" / "a.md").write_text("another benchmark's run\n")
    assert results.commit(tmp_path) == clean
    (tmp_path / "code.py").write_text("x = 2\n")
    assert results.commit(tmp_path) == clean + "+changes"
