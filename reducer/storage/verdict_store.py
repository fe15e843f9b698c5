"""Verdicts kept on disk across runs, so a second reduction of the same input compiles nothing it saw.

A verdict is only reusable under the same judge: the key covers the IREE build, the code of the
`oracles` package (a changed signature normaliser must not reuse old answers), the oracle's
class, options and calibration (the original's verdict it compares against), the contents of any
file its command names (an edited interestingness script), the flags and the candidate itself.
The store is SQLite: safe for two reductions sharing one cache directory.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import itertools
import json
import os
import re
import shlex
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import oracles
from oracles import Candidate, Oracle, Verdict, refusals
from oracles.toolchain.tools import iree_version

DB_NAME = "verdicts.sqlite"
# Verdict fields never kept on disk: a located failure site comes from an uncached call.
_NOT_STORED = frozenset({"site"})


def default_cache_dir() -> Path:
    """The user's cache directory (XDG), like pip's and ccache's."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "iree-reduce-fuzz"


class StoreError(RuntimeError):
    """The cache directory cannot be used; the message is one line."""


def _runtime_version() -> str:
    try:
        return importlib.metadata.version("iree-base-runtime")
    except importlib.metadata.PackageNotFoundError:
        return "-"


def judge_code_files() -> list[Path]:
    """Every source file of the `oracles` package, its subpackages included (the comparison, the
    wrong-answer pin and the LDS reader live there), relative to the package."""
    root = Path(oracles.__file__).parent
    return sorted(path.relative_to(root) for path in root.rglob("*.py"))


@functools.cache
def judge_code_digest() -> str:
    """A digest of the `oracles` package's sources: verdicts depend on that code, not only on IREE."""
    digest = hashlib.sha256()
    root = Path(oracles.__file__).parent
    for path in judge_code_files():
        digest.update(str(path).encode() + b"\0" + (root / path).read_bytes())
    return digest.hexdigest()


def _named_files(command: str | None) -> list[str]:
    """Digests of the files a command names: editing the script must not reuse old verdicts."""
    if not command:
        return []
    try:
        words = shlex.split(command.replace("{}", ""))
    except ValueError:
        words = command.split()
    digests = []
    for word in words:
        path = Path(word)
        if path.is_file():
            digests.append(f"{word}:{hashlib.sha256(path.read_bytes()).hexdigest()}")
    return digests


def calibration(reference: Verdict | None) -> str:
    """What an oracle reads from the original's verdict (its signature and measured metrics)."""
    if reference is None:
        return "uncalibrated"
    return json.dumps([reference.interesting, reference.signature, reference.metrics], sort_keys=True, default=str)


def _plain(value: object) -> bool:
    """Data whose repr is the same in every run (no object addresses in it)."""
    if value is None or isinstance(value, (str, bytes, int, float, bool, re.Pattern, Path)):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


def oracle_fingerprint(oracle: Oracle) -> str:
    """Everything a verdict of `oracle` depends on besides the candidate; stable across runs.

    Plain attributes (options, patterns, the stop phase) count by value; a handle such as a
    pool of warm compiler processes does not count (where the compiler ran changes no verdict),
    and neither does an unset one, so attaching or dropping a handle keeps the key. Nor does a
    reduction's compile limit (measured from the original, so different each run): a verdict it
    decides is marked `limit` and never stored.
    """
    parts = [f"{type(oracle).__module__}.{type(oracle).__qualname__}"]
    for name, value in sorted(vars(oracle).items()):
        if name == "compile_limit_s":
            continue
        if name == "reference":
            parts.append(calibration(value))
        elif isinstance(value, Oracle):
            parts.append(f"{name}=({oracle_fingerprint(value)})")
        elif value is not None and _plain(value):
            parts.append(f"{name}={value!r}")
    parts += _named_files(getattr(oracle.options, "cmd", None))
    return "\n".join(parts)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _open(path: Path) -> sqlite3.Connection:
    """The store at `path`, checked whole: a damaged file raises sqlite3.DatabaseError here."""
    db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
    schema = "PRAGMA journal_mode=WAL;\nCREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL);"
    return checked(db, schema)


def checked(db: sqlite3.Connection, schema: str) -> sqlite3.Connection:
    """`db` with `schema` applied and its whole file checked; a damaged one is closed and raises
    sqlite3.DatabaseError, which the owner answers with `set_aside`."""
    try:
        db.executescript(schema)
        (state,) = db.execute("PRAGMA quick_check").fetchone()
        if state != "ok":
            raise sqlite3.DatabaseError(state)
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def set_aside(path: Path) -> Path:
    """Moves a damaged SQLite file (and its journal files) to `NAME.damaged-<time>`; returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = next(
        candidate
        for n in itertools.count()
        if not (candidate := path.with_name(f"{path.name}.damaged-{stamp}" + (f".{n}" if n else ""))).exists()
    )
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists():
            os.replace(source, aside.with_name(aside.name + suffix))
    return aside


class VerdictStore:
    """Verdicts by key in one SQLite file; usable from the executor's callback threads."""

    def __init__(self, directory: Path, warn: Callable[[str], None] = _warn) -> None:
        self._warn = warn
        path = directory / DB_NAME
        try:
            directory.mkdir(parents=True, exist_ok=True)
            try:
                self._db = _open(path)
            except sqlite3.DatabaseError as err:  # truncated or overwritten: keep it aside, start afresh
                aside = set_aside(path)
                warn(f"the verdict cache {path} is unreadable ({err}); moved to {aside.name}, starting an empty one")
                self._db = _open(path)
        except (OSError, sqlite3.Error) as err:
            raise StoreError(refusals.CACHE_UNUSABLE.say(directory=directory, error=err)) from None
        self._lock = threading.Lock()
        self._closed = False
        self._broken = False
        self._build = f"{iree_version()}\nruntime {_runtime_version()}\noracles {judge_code_digest()}"

    def key(self, oracle: Oracle, candidate: Candidate) -> str:
        digest = hashlib.sha256(f"{self._build}\n{oracle_fingerprint(oracle)}\n".encode())
        digest.update(candidate.key.encode())
        return digest.hexdigest()

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            if self._broken:
                return None
            try:
                row = self._db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError as err:  # damaged while in use: the run goes on without it
                self._give_up(err)
                return None
        if row is None:
            return None
        try:
            known = {f.name for f in dataclasses.fields(Verdict)}
            return Verdict(**{k: v for k, v in json.loads(row[0]).items() if k in known})
        except (TypeError, ValueError):  # written by another version of this tool: judge again
            return None

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.limit:  # decided by a time limit or memory cap: the next run judges it afresh
            return
        plain = {f.name: getattr(verdict, f.name) for f in dataclasses.fields(verdict) if f.name not in _NOT_STORED}
        data = json.dumps(plain, default=str)
        with self._lock:
            if self._closed or self._broken:  # a call still running when the reduction ended
                return
            try:
                self._db.execute("INSERT OR REPLACE INTO verdicts (key, verdict) VALUES (?, ?)", (key, data))
            except sqlite3.DatabaseError as err:
                self._give_up(err)
            except sqlite3.Error:  # a full disk or a long lock costs the cache entry, not the run
                pass

    def _give_up(self, err: Exception) -> None:
        self._broken = True
        self._warn(f"the verdict cache is unreadable ({err}); this run keeps no verdicts on disk")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._db.close()
