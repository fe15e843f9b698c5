"""`$IREE_REDUCE_TOOLS_DIR` (a local build, a nightly's tools): fuzz cases run every tool from there,
not the installed wheels' warm compiler and runtime (docs: CI for your own IREE)."""

from __future__ import annotations

from fuzz.execute import InProcess, Isolated, backend_for
from oracles.toolchain.tools import TOOLS_DIR_ENV, Limits


def test_a_campaign_compiles_in_process_with_the_installed_wheels(monkeypatch):
    monkeypatch.delenv(TOOLS_DIR_ENV, raising=False)
    assert type(backend_for(Limits())) is InProcess
    assert type(backend_for(Limits(), isolated=True)) is Isolated


def test_with_a_tools_directory_every_case_runs_its_tools(monkeypatch, tmp_path):
    monkeypatch.setenv(TOOLS_DIR_ENV, str(tmp_path))
    assert type(backend_for(Limits())) is Isolated
