from __future__ import annotations

import pytest

from oracles.toolchain.tools import find_tool

# Session fixtures that take a minute to build: the tests using one of a group run on one pytest-xdist
# worker (pyproject's --dist loadgroup), so each is built once, not once per worker.
SHARED_SETUPS = {
    "campaign_dir": "campaign-and-releases",  # test_releases' root-cause test uses both
    "release_cache": "campaign-and-releases",  # old_release's too: a test's fixture names include those its fixtures use
    "node_outcomes": "onnx-conformance",  # tests/test_onnx_conformance.py: every node test at once
}


def pytest_itemcollected(item: pytest.Item) -> None:
    """Marked as it is collected: pytest-xdist reads the groups in its own collection hook."""
    for group in {SHARED_SETUPS[name] for name in getattr(item, "fixturenames", ()) if name in SHARED_SETUPS}:
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def iree_compile() -> str:
    """The real compiler: every compiler-backed test runs it, never a mock."""
    return find_tool("iree-compile")


@pytest.fixture(autouse=True)
def fresh_verdict_cache(tmp_path_factory, monkeypatch) -> None:
    """`reduce` keeps verdicts in the user's cache dir: each test gets an empty one of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def campaign_dir(tmp_path_factory):
    """A short real campaign directory, two runs: 2 cases whose new finding is reduced, then 6 more cases.

    Shared by the report and `fuzz show --json` tests (about a minute and a half on 2 cores).
    """
    from fuzz.cli import main as fuzz_main

    out = tmp_path_factory.mktemp("campaign")
    common = ["--time", "3m", "--out", str(out), "-j", "2", "-q", "--targets", "none"]
    assert fuzz_main(["run", "--max-cases", "2", "--seed", "7", "--reduce-budget", "30s", "--reduce-jobs", "2", *common]) == 0
    assert fuzz_main(["run", "--max-cases", "6", "--seed", "9", "--no-reduce", *common]) == 0
    return out


@pytest.fixture(scope="session")
def release_cache(tmp_path_factory):
    """Where the tests' IREE release environments live: one per session (tests/test_releases.py)."""
    return tmp_path_factory.mktemp("releases")


@pytest.fixture(scope="session")
def old_release(release_cache):
    """IREE 3.0.0's environment, installed once per session (about 400 MB; a few seconds with uv),
    and the copy of `oracles` its judge runs."""
    from oracles.releases.environments import ReleaseEnvironments

    environments = ReleaseEnvironments(release_cache)
    with environments.using("3.0.0") as (python, _):
        return python, environments.project()
