"""One environment per IREE release, created once in the user's cache and reused, never the user's own.

Each holds that release's compiler and runtime wheels, numpy and an onnx its importer works with
(the pinned onnx: measured with every release from 2.9.0 to 3.13.0). The judge in it needs only
this project's `oracles` package, without the project's pinned dependencies: one copy of it per
version of its code lies beside the environments (`project/HASH/`), on the judge's PYTHONPATH, so
editing the project never leaves an environment with stale code.

uv creates them when it is installed (the `uv` package or on PATH): about 2 s for an environment
where pip takes about 12, and its cache hard-links the files releases share; else `python -m venv`
and pip. A lock file per release serialises concurrent runs: creating takes it exclusively, judging
shares it, and trimming the cache to its size limit skips an environment some run is using.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import oracles
from oracles import refusals
from oracles.releases.index import COMPILER, RUNTIME, IndexOptions, last_error_line

ONNX = "onnx==1.23.2"  # the project's pin; the importers of 2.9.0 ... 3.13.0 all read its models
DEFAULT_LIMIT_GB = 8.0  # about sixteen releases (400 MB each, numpy and onnx shared)
READY = ".ready"  # written last: an environment without it is half made and made again
_INSTALL_TIMEOUT_S = 1800


class ReleaseSetupError(RuntimeError):
    """A release could not be installed, or the cache cannot be used; the message is one line."""


def find_uv() -> str | None:
    """uv's binary: the `uv` package's, else one on PATH; None means pip."""
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found]

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


@dataclass
class ReleaseEnvironments:
    """The environments under `root`: `ready(release)` makes one, `using(release)` holds it while it judges."""

    root: Path
    limit_gb: float = DEFAULT_LIMIT_GB
    index: IndexOptions = field(default_factory=IndexOptions)
    log: Callable[[str], None] = lambda _: None

    def __post_init__(self) -> None:
        try:
            for sub in ("envs", "locks"):
                (self.root / sub).mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ReleaseSetupError(refusals.RELEASES_CACHE_UNUSABLE.say(directory=self.root, error=err.strerror or err)) from None

    def path(self, release: str) -> Path:
        return self.root / "envs" / release

    def python(self, release: str) -> Path:
        return self.path(release) / "bin" / "python"

    def is_ready(self, release: str) -> bool:
        return (self.path(release) / READY).is_file()

    @contextlib.contextmanager
    def using(self, release: str) -> Iterator[tuple[Path, bool]]:
        """(the release's python, whether this call created it); the environment stays while inside."""
        created = False
        if not self.is_ready(release):
            with self._lock(release, exclusive=True):
                if not self.is_ready(release):
                    self._create(release)
                    created = True
        with self._lock(release, exclusive=False):
            if not self.is_ready(release):  # trimmed by another run between the two locks
                raise ReleaseSetupError(refusals.RELEASE_INSTALL_FAILED.say(release=release, directory=self.path(release),
                                                                            error="removed by a concurrent run; run again"))
            os.utime(self.path(release) / READY)  # the least recently used goes first when trimming
            yield self.python(release), created
        if created:
            self.trim(keep={release})

    def project(self) -> Path:
        """The directory that holds this version of `oracles`, for the judge's PYTHONPATH."""
        source = Path(oracles.__file__).resolve().parent
        files = sorted(p for p in source.rglob("*.py") if "__pycache__" not in p.parts)
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes())
        target = self.root / "project" / digest.hexdigest()[:16]
        if not (target / READY).is_file():
            staging = target.with_name(f"{target.name}.tmp{os.getpid()}")
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(source, staging / "oracles", ignore=shutil.ignore_patterns("__pycache__"))
            (staging / READY).write_text("")
            with contextlib.suppress(OSError):  # another run made the same copy first
                staging.rename(target)
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def _create(self, release: str) -> None:
        directory = self.path(release)
        shutil.rmtree(directory, ignore_errors=True)
        uv = find_uv()
        self.log(f"releases: installing IREE {release} into {directory} ({'uv' if uv else 'pip'})")
        start = time.monotonic()
        requirements = [f"{COMPILER}=={release}", f"{RUNTIME}=={release}", ONNX, "numpy"]
        if uv:
            steps = [[uv, "venv", "--quiet", "--python", sys.executable, str(directory)],
                     [uv, "pip", "install", "--quiet", "--python", str(directory / "bin" / "python"), *self.index.pip_args(),
                      *requirements]]
        else:
            steps = [[sys.executable, "-m", "venv", str(directory)],
                     [str(directory / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                      "--retries", "1", "--timeout", "30", *self.index.pip_args(), *requirements]]
        environment = {**os.environ, "UV_CACHE_DIR": str(self.root / "uv-cache"), "VIRTUAL_ENV": ""}
        for argv in steps:
            try:
                done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=_INSTALL_TIMEOUT_S,
                                      check=False, stdin=subprocess.DEVNULL, env=environment)
                error = "" if done.returncode == 0 else last_error_line(done.stderr + "\n" + done.stdout) or f"exit {done.returncode}"
            except (OSError, subprocess.TimeoutExpired) as err:
                error = str(err)
            if error:
                shutil.rmtree(directory, ignore_errors=True)
                raise ReleaseSetupError(refusals.RELEASE_INSTALL_FAILED.say(release=release, directory=directory, error=error))
        record = {"release": release, "installer": "uv" if uv else "pip", "requirements": requirements,
                  "seconds": round(time.monotonic() - start, 1)}
        (directory / READY).write_text(json.dumps(record) + "\n")
        self.log(f"releases: IREE {release} installed in {record['seconds']} s")

    @contextlib.contextmanager
    def _lock(self, release: str, exclusive: bool, wait: bool = True) -> Iterator[bool]:
        path = self.root / "locks" / f"{release}.lock"
        with open(path, "a") as handle:
            mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
            try:
                fcntl.flock(handle, mode)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def releases(self) -> list[str]:
        """The releases with a ready environment, least recently used first."""
        ready = [p for p in (self.root / "envs").iterdir() if (p / READY).is_file()]
        return [p.name for p in sorted(ready, key=lambda p: (p / READY).stat().st_mtime)]

    def size(self) -> int:
        """Bytes on disk under the root, each hard-linked file counted once."""
        return disk_usage(self.root)

    def trim(self, keep: set[str] = frozenset()) -> list[str]:
        """Removes the least recently used environments (not `keep`, not in use) until the cache is
        under its limit, then uv's cache (its files are hard-linked into the environments left)."""
        limit = self.limit_gb * 1e9
        removed = []
        for release in self.releases():
            if self.size() <= limit:
                break
            if release in keep:
                continue
            with self._lock(release, exclusive=True, wait=False) as held:
                if held:
                    shutil.rmtree(self.path(release), ignore_errors=True)
                    removed.append(release)
        if self.size() > limit:
            shutil.rmtree(self.root / "uv-cache", ignore_errors=True)
        for release in removed:
            self.log(f"releases: removed the environment of IREE {release} (the cache is over {self.limit_gb:g} GB)")
        return removed

    def clean(self) -> tuple[int, int]:
        """Removes every environment no run is using, uv's cache and the project copies: (environments removed, bytes freed)."""
        before, count = self.size(), 0
        for release in [p.name for p in (self.root / "envs").iterdir()]:
            with self._lock(release, exclusive=True, wait=False) as held:
                if held:
                    shutil.rmtree(self.path(release), ignore_errors=True)
                    count += 1
        for sub in ("uv-cache", "project"):
            shutil.rmtree(self.root / sub, ignore_errors=True)
        return count, before - self.size()


def disk_usage(root: Path) -> int:
    """Bytes of the files under `root`, each inode once."""
    seen, total = set(), 0
    for directory, _, files in os.walk(root):
        for name in files:
            try:
                stat = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total
