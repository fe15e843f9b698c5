"""The findings database under `--out`: one row per distinct signature, counted across runs.

The database is an index: each finding's directory (`OUT/findings/<id>/`) holds what it records
(`finding.txt`, `spec.json`, the reduced model or why it was not reduced). A database that no
longer opens (a truncated file, a disk that filled) is set aside and rebuilt from those
directories, so no finding is lost and none is reduced again; only the counts start over.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from fuzz.execute import CaseResult, Finding
from reducer.formats import onnx_model
from reducer.storage.verdict_store import set_aside

RECORD_NAME = "finding.txt"
SPEC_NAME = "spec.json"
REDUCED_NAME = "reduced.onnx"
NOT_REDUCED_NAME = "not-reduced.txt"
_RECORD_KEYS = ("kind", "pipelines", "signature", "detail", "seed", "graph")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS findings (
    signature TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    pipeline TEXT NOT NULL,
    detail TEXT NOT NULL,
    seed INTEGER NOT NULL,
    spec_json TEXT NOT NULL,
    description TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    count INTEGER NOT NULL,
    directory TEXT,
    reduced_size TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    started REAL PRIMARY KEY,
    seconds REAL,
    cases INTEGER,
    new_findings INTEGER,
    settings TEXT
);
"""


@dataclass
class StoredFinding:
    signature: str
    kind: str
    pipeline: str
    detail: str
    seed: int
    spec_json: str
    description: str
    count: int
    directory: str | None
    reduced_size: str | None


def write_record(directory: Path, finding: Finding, case: CaseResult) -> None:
    """What a finding's directory says about it: enough to rebuild its database row."""
    (directory / SPEC_NAME).write_text(case.spec_json)
    values = (finding.kind, finding.pipeline, finding.signature, " ".join(finding.detail.split()), case.seed, case.description)
    (directory / RECORD_NAME).write_text("".join(f"{key}: {value}\n" for key, value in zip(_RECORD_KEYS, values)))


def read_record(directory: Path) -> StoredFinding | None:
    """The row a finding directory stands for, or None when it holds no complete record."""
    try:
        lines = (directory / RECORD_NAME).read_text().splitlines()
        spec_json = (directory / SPEC_NAME).read_text()
    except OSError:
        return None
    record = dict(line.partition(": ")[::2] for line in lines)
    if any(key not in record for key in _RECORD_KEYS):
        return None
    reduced, not_reduced = directory / REDUCED_NAME, directory / NOT_REDUCED_NAME
    if reduced.is_file():
        data = reduced.read_bytes()
        nodes = onnx_model.node_count(onnx_model.load_bytes(data))
        size: str | None = f"{nodes} node{'' if nodes == 1 else 's'}, {len(data)} bytes"
    elif not_reduced.is_file():
        size = f"not reduced: {not_reduced.read_text().strip().splitlines()[-1]}"
    else:  # its reduction never ended: the row says so, as it did before
        size = None
    return StoredFinding(record["signature"], record["kind"], record["pipelines"], record["detail"], int(record["seed"]),
                         spec_json, record["graph"], 1, str(directory) if size else None, size)


class FindingsDB:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        try:
            self.db = _open(path)
        except sqlite3.DatabaseError as err:
            aside = set_aside(path)
            self.db = _open(path)
            rebuilt = self._rebuild(path.parent / "findings")
            print(f"warning: {path} was unreadable ({err}); moved to {aside.name} and rebuilt from "
                  f"{path.parent / 'findings'} ({rebuilt} findings; their counts start over)", file=sys.stderr, flush=True)

    def _rebuild(self, findings_dir: Path) -> int:
        directories = sorted(d for d in findings_dir.iterdir() if d.is_dir()) if findings_dir.is_dir() else []
        rebuilt = 0
        for directory in directories:
            r = read_record(directory)
            if r is None:
                continue
            seen = (directory / RECORD_NAME).stat().st_mtime
            rebuilt += self.db.execute(
                "INSERT OR IGNORE INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.signature, r.kind, r.pipeline, r.detail, r.seed, r.spec_json, r.description, seen, seen, r.count, r.directory, r.reduced_size),
            ).rowcount
        self.db.commit()
        return rebuilt

    def record(self, finding: Finding, case: CaseResult) -> bool:
        """Stores a finding, or counts it again; True when its signature is new."""
        now = time.time()
        updated = self.db.execute(
            "UPDATE findings SET count = count + 1, last_seen = ? WHERE signature = ?", (now, finding.signature)
        ).rowcount
        if not updated:
            self.db.execute(
                "INSERT INTO findings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, NULL, NULL)",
                (finding.signature, finding.kind, finding.pipeline, finding.detail, case.seed, case.spec_json, case.description, now, now),
            )
        self.db.commit()
        return not updated

    def set_reduction(self, signature: str, directory: str, reduced_size: str) -> None:
        self.db.execute("UPDATE findings SET directory = ?, reduced_size = ? WHERE signature = ?", (directory, reduced_size, signature))
        self.db.commit()

    def record_run(self, started: float, seconds: float, cases: int, new: int, settings: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)", (started, seconds, cases, new, json.dumps(settings)))
        self.db.commit()

    def all(self) -> list[StoredFinding]:
        rows = self.db.execute(
            "SELECT signature, kind, pipeline, detail, seed, spec_json, description, count, directory, reduced_size "
            "FROM findings ORDER BY first_seen"
        ).fetchall()
        return [StoredFinding(*row) for row in rows]

    def close(self) -> None:
        self.db.close()


def _open(path: Path) -> sqlite3.Connection:
    """The database at `path`, checked whole: a damaged file raises sqlite3.DatabaseError here."""
    db = sqlite3.connect(str(path))
    try:
        db.executescript(_SCHEMA)
        (state,) = db.execute("PRAGMA quick_check").fetchone()
        if state != "ok":
            raise sqlite3.DatabaseError(state)
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db
