from __future__ import annotations

import pytest

from oracles.toolchain import find_tool


@pytest.fixture(scope="session")
def iree_compile() -> str:
    """The real compiler: every compiler-backed test runs it, never a mock."""
    return find_tool("iree-compile")
