"""The findings database under `--out`: one row per distinct signature, counted across runs."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from fuzz.execute import CaseResult, Finding

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


class FindingsDB:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(str(path))
        self.db.executescript(_SCHEMA)

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
