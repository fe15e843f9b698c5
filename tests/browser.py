"""Headless Chromium for the tests that look at a page as a person would (the fuzz report, the docs).

`.ci/run` installs Debian's `chromium`; without a browser those tests skip, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_BROWSER = f"no Chromium binary on PATH (looked for {', '.join(BROWSERS)}); .ci/run installs the Debian package `chromium`"
REPO = Path(__file__).resolve().parent.parent


def find_browser() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


def headless(browser: str, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions"]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True, timeout=120, check=False)


def artifacts_dir() -> Path:
    """Where screenshots are kept for people to look at ($TEST_ARTIFACTS_DIR, else test-artifacts/)."""
    path = Path(os.environ.get("TEST_ARTIFACTS_DIR", REPO / "test-artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path
