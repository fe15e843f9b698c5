"""Since when a case fails: its verdict under other IREE releases, found by bisection.

The case, the oracle and the installed IREE's verdict on it (the reference every release is judged
against: "the same failure") go to each release's judge; the installed release, when it is one of
the range, is not judged again. The result says the newest release that does not fail and the
oldest that does, or that every release tried fails, with a verdict per release judged.
"""

from __future__ import annotations

import importlib.metadata
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from oracles import refusals
from oracles.base import Oracle
from oracles.candidate import Candidate
from oracles.releases.bisect import bisect
from oracles.releases.environments import (
    DEFAULT_LIMIT_GB,
    ReleaseEnvironments,
    ReleaseSetupError,
)
from oracles.releases.history import (
    CANNOT,
    FAILS,
    ReleaseHistory,
    ReleaseVerdict,
)
from oracles.releases.index import IndexOptions, ReleasesUnavailable, available_releases
from oracles.releases.remote import judge_with, write_case
from oracles.releases.versions import ALL, ReleaseRange
from oracles.toolchain.tools import iree_version, scratch_dir, tools_dir
from oracles.verdict import Verdict


@dataclass(frozen=True)
class ReleaseSettings:
    """Which releases, from where, and where their environments live."""

    cache: Path
    range: ReleaseRange = ALL
    index: IndexOptions = field(default_factory=IndexOptions)
    limit_gb: float = DEFAULT_LIMIT_GB


def installed_release() -> str | None:
    """The release of the compiler this process judges with; None for a local build (IREE_REDUCE_TOOLS_DIR)."""
    if tools_dir() is not None:
        return None
    try:
        return importlib.metadata.version("iree-base-compiler")
    except importlib.metadata.PackageNotFoundError:
        return None


def releases_in(settings: ReleaseSettings) -> list[str]:
    """The releases of the range the index has, oldest first; ReleasesUnavailable (one line) otherwise."""
    available = available_releases(settings.index)
    chosen = settings.range.select(available)
    if not chosen:
        raise ReleasesUnavailable(refusals.RELEASES_NONE_IN_RANGE.say(
            range=settings.range.spelled(), available=f"{available[0]} ... {available[-1]}" if available else "none"))
    return chosen


def since_when(candidate: Candidate, oracle: Oracle, reference: Verdict, settings: ReleaseSettings,
               log: Callable[[str], None] = lambda _: None) -> ReleaseHistory:
    """Bisects the releases of `settings` on `candidate`; `reference` is the installed IREE's (failing) verdict.
    ReleasesUnavailable or ReleaseSetupError (one line) when the index or the cache cannot be used."""
    start = time.monotonic()
    releases = releases_in(settings)
    environments = ReleaseEnvironments(settings.cache, settings.limit_gb, settings.index, log)
    project = environments.project()
    known = {}
    current = installed_release()
    if current in releases:
        version = iree_version()
        compiler = version[version.find("(") + 1 : version.rfind(")")]
        known[current] = ReleaseVerdict(current, FAILS, reference.detail, compiler)
    with scratch_dir() as tmp:
        case = write_case(Path(tmp), candidate, oracle, reference)

        def judge(release: str) -> ReleaseVerdict:
            log(f"releases: judging with IREE {release}")
            try:
                with environments.using(release) as (python, created):
                    verdict = judge_with(python, project, case, oracle.options.limits, release)
                    verdict.installed = created
            except ReleaseSetupError as err:
                verdict = ReleaseVerdict(release, CANNOT, str(err))
            log(f"releases: {verdict.line()}")
            return verdict

        history = bisect(releases, judge, known)
    history.seconds = time.monotonic() - start
    history.range = f"{releases[0]}:{releases[-1]}"
    return history


__all__ = ["ReleaseSettings", "ReleaseSetupError", "ReleasesUnavailable", "installed_release", "releases_in", "since_when"]
