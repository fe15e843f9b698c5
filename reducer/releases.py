"""`reduce --releases` (the session's last stage; `--releases-only` uses it too): since when the reduced case fails, in IREE releases.

The command line's options become `ReleaseSettings`; the search is `oracles/releases/`. Offline,
an index that refuses or a cache that cannot be used is one line in the log, and the reduction's
result stands; Ctrl-C stops the search and keeps the result too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from oracles import Candidate, Oracle, Verdict
from oracles.releases.environments import DEFAULT_LIMIT_GB, ReleaseEnvironments
from oracles.releases.history import SinceWhen
from oracles.releases.index import IndexOptions
from oracles.releases.since import (
    ReleaseSettings,
    ReleaseSetupError,
    ReleasesUnavailable,
    since_when,
)
from oracles.releases.versions import parse_range
from oracles.toolchain.tools import kill_all
from reducer.storage.verdict_store import default_cache_dir
from reducer.user_error import UserError

INTERRUPTED_NOTE = "interrupted"


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("other IREE releases (since when it fails)")
    group.add_argument("--releases", nargs="?", const="", metavar="FIRST:LAST",
                       help="after the reduction, judge the result under other IREE releases and say since which one it "
                       "fails (bisection; default: every release the index has; 3.8.0:3.13.0 limits the range, "
                       "3.0.0,3.13.0 names releases)")
    group.add_argument("--releases-only", action="store_true",
                       help="INPUT is reduced already: only judge it under other releases (with --releases FIRST:LAST to limit them)")
    add_source_options(group)
    group.add_argument("--releases-clean", action="store_true", help="remove every cached release environment and exit")


def add_source_options(group) -> None:
    """Where releases come from and where their environments live (`reduce` and `fuzz` alike)."""
    group.add_argument("--index-url", metavar="URL", help="--releases: the package index to install releases from (pip's option)")
    group.add_argument("--find-links", metavar="URL", help="--releases: also a page of wheels, e.g. nightly builds (pip's option)")
    group.add_argument("--releases-cache", type=Path, default=default_cache_dir() / "releases",
                       help="--releases: where each release's environment is kept (default %(default)s)")
    group.add_argument("--releases-cache-gb", type=float, default=DEFAULT_LIMIT_GB,
                       help="--releases: the size the release environments are trimmed to, least recently used first (default %(default)s)")


def settings(args: argparse.Namespace) -> ReleaseSettings:
    """The settings of the command line; UserError (one line) for a bad range."""
    try:
        chosen = parse_range(args.releases)
    except ValueError as err:
        raise UserError(str(err)) from None
    return ReleaseSettings(args.releases_cache, chosen, IndexOptions(args.index_url, args.find_links), args.releases_cache_gb)


def wanted(args: argparse.Namespace) -> bool:
    return args.releases is not None or getattr(args, "releases_only", False)


def judge_releases(candidate: Candidate, oracle: Oracle, reference: Verdict, chosen: ReleaseSettings,
                   log: Callable[[str], None]) -> SinceWhen:
    """The bisection, or a note: offline, an index that refuses, Ctrl-C."""
    try:
        return SinceWhen(since_when(candidate, oracle, reference, chosen, log))
    except (ReleasesUnavailable, ReleaseSetupError) as err:
        log(f"releases: {err}")
        return SinceWhen(note=str(err))
    except KeyboardInterrupt:
        kill_all()
        log("releases: interrupted; the reduction's result stands")
        return SinceWhen(note=INTERRUPTED_NOTE)


def clean(args: argparse.Namespace) -> str:
    """`reduce --releases-clean`: what was removed, in one line."""
    if not args.releases_cache.is_dir():
        return f"reduce: no release environments in {args.releases_cache}"
    try:
        environments = ReleaseEnvironments(args.releases_cache)
    except ReleaseSetupError as err:
        raise UserError(str(err)) from None
    count, freed = environments.clean()
    return f"reduce: removed {count} release environments from {args.releases_cache}, {freed / 1e9:.1f} GB freed"
