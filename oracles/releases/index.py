"""Which IREE releases the package index has: both wheels, the compiler's and the runtime's.

Asked with pip (`pip index versions`), the user's own client with the user's own index settings;
`--index-url` / `--find-links` reach another index or a page of nightly builds.
"""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from oracles import refusals
from oracles.releases.versions import ordered

COMPILER, RUNTIME = "iree-base-compiler", "iree-base-runtime"
_AVAILABLE = re.compile(r"^Available versions:\s*(.*)$", re.MULTILINE)
_TIMEOUT_S = 120


class ReleasesUnavailable(RuntimeError):
    """The index did not answer or refused; the message is one line."""


@dataclass(frozen=True)
class IndexOptions:
    """Where releases come from besides the user's configured index."""

    index_url: str | None = None
    find_links: str | None = None

    def pip_args(self) -> list[str]:
        return [*(["--index-url", self.index_url] if self.index_url else []),
                *(["--find-links", self.find_links] if self.find_links else [])]


def _versions(package: str, index: IndexOptions) -> list[str]:
    argv = [sys.executable, "-m", "pip", "index", "versions", package, "--pre", "--retries", "1", "--timeout", "20",
            "--disable-pip-version-check", *index.pip_args()]
    try:
        listed = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=_TIMEOUT_S, check=False,
                                stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ReleasesUnavailable(refusals.RELEASES_UNREACHABLE.say(error=f"pip index versions {package}: {err}")) from None
    found = _AVAILABLE.search(listed.stdout)
    if listed.returncode != 0 or found is None:
        raise ReleasesUnavailable(refusals.RELEASES_UNREACHABLE.say(error=last_error_line(listed.stderr) or f"pip exit {listed.returncode}"))
    return [v.strip() for v in found.group(1).split(",")]


def available_releases(index: IndexOptions) -> list[str]:
    """The versions that have both wheels, oldest first; ReleasesUnavailable when the index does not say."""
    with ThreadPoolExecutor(2) as pool:
        compiler, runtime = pool.map(lambda package: _versions(package, index), (COMPILER, RUNTIME))
    return ordered(sorted(set(compiler) & set(runtime)))


def last_error_line(text: str) -> str:
    """The line of an installer's output that says what went wrong (its last ERROR, else its last line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING: Location")]
    errors = [line for line in lines if line.startswith(("ERROR", "error", "×", "╰─▶"))]
    return " ".join((errors or lines or [""])[-1].split())[:300]
