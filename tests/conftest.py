from __future__ import annotations

import pytest

from oracles.toolchain.tools import find_tool


@pytest.fixture(scope="session")
def iree_compile() -> str:
    """The real compiler: every compiler-backed test runs it, never a mock."""
    return find_tool("iree-compile")


@pytest.fixture(autouse=True)
def fresh_verdict_cache(tmp_path_factory, monkeypatch) -> None:
    """`reduce` keeps verdicts in the user's cache dir: each test gets an empty one of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
