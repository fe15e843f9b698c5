"""The findings database under `--out`: one row per distinct signature, counted across runs,
and one row per case (when it ran, its features and pipelines, its outcome), so a campaign can
be plotted over time (`fuzz report`).

The findings table is an index: each finding's directory (`OUT/findings/<id>/`) holds what it
records (`finding.txt`, `spec.json`, the reduced model or why it was not reduced). A database
that no longer opens (a truncated file, a disk that filled) is set aside and rebuilt from those
directories, so no finding is lost and none is reduced again; counts and the per-case history
start over.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from fuzz.execute import CaseResult, Finding, PipelineRun
from fuzz.frontends import case_ops, frontend_of
from reducer.graphs import onnx_model
from reducer.storage.verdict_store import checked, set_aside

RECORD_NAME = "finding.txt"
SPEC_NAME = "spec.json"
REDUCED_NAME = "reduced.onnx"
REDUCED_PROGRAM_NAME = "reduced.pt2"
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
CREATE TABLE IF NOT EXISTS cases (
    finished REAL NOT NULL,       -- wall-clock time the case finished
    run_started REAL NOT NULL,    -- the campaign run it belongs to (runs.started)
    seed INTEGER NOT NULL,
    features TEXT NOT NULL,       -- JSON list: the swarm features it was drawn under
    ops TEXT NOT NULL,            -- JSON list: the ONNX ops of its graph
    pipelines TEXT NOT NULL,      -- JSON list of [pipeline, status, seconds], in the order they ran
    outcome TEXT NOT NULL,        -- "ok", or the finding classes joined by ", "
    findings TEXT NOT NULL,       -- JSON list of [class, pipelines, signature]
    seconds REAL NOT NULL,
    isolated INTEGER NOT NULL     -- ran again isolated after its worker died or hung
);
CREATE TABLE IF NOT EXISTS dispatches (
    run_started REAL NOT NULL,
    seed INTEGER NOT NULL,
    target TEXT NOT NULL,         -- the pipeline or GPU target that configured it
    codegen TEXT NOT NULL,        -- translation_info pipeline
    intrinsic TEXT NOT NULL,      -- MMA intrinsic, or "-"
    op_kind TEXT NOT NULL,        -- the compiler's dispatch classification (matmul_like, conv, ...)
    count INTEGER NOT NULL        -- dispatches of the case configured so
);
CREATE TABLE IF NOT EXISTS shared_memory (
    run_started REAL NOT NULL,
    seed INTEGER NOT NULL,
    target TEXT NOT NULL,
    kernel TEXT NOT NULL,
    bytes INTEGER NOT NULL        -- workgroup (LDS, shared) memory the compiled kernel declares
);
CREATE TABLE IF NOT EXISTS reductions (
    signature TEXT PRIMARY KEY,
    unit TEXT NOT NULL,           -- "nodes" (ONNX) or "ops"
    original_size INTEGER NOT NULL,
    original_bytes INTEGER NOT NULL,
    reduced_size INTEGER NOT NULL,
    reduced_bytes INTEGER NOT NULL,
    seconds REAL NOT NULL,
    oracle TEXT NOT NULL
);
"""
# Columns added since the first schema: (name, declaration); older databases gain them on open.
_ADDED_COLUMNS = {
    "cases": (
        ("frontend", "TEXT"),  # onnx or torch (NULL: a database from before the PyTorch front end: onnx)
    ),
    "findings": (
        ("host_cpu", "TEXT"),  # the host CPU a target-cpu=host pipeline compiled for
        ("size", "TEXT"),  # the dynamic dimension's value it showed at
        ("root_cause", "TEXT"),  # the reduced case's canonical key (fuzz.root_cause), once reduced
        ("known_as", "TEXT"),  # the corpus entry whose reduced form it matches
        ("match", "TEXT"),  # the regex pinning its error when its compile printed several
    ),
}
OK = "ok"
# A pipeline run with these statuses got its module out of the compiler (what coverage counts).
COMPILED = frozenset({OK, "compiled", "mismatch", "run error"})


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
    first_seen: float = 0.0  # wall-clock seconds
    last_seen: float = 0.0
    host_cpu: str | None = None
    size: str | None = None
    root_cause: str | None = None
    known_as: str | None = None


@dataclass
class StoredCase:
    finished: float
    run_started: float
    seed: int
    features: list[str]
    ops: list[str]
    pipelines: list[tuple[str, str, float]]  # (pipeline, status, seconds)
    outcome: str
    findings: list[tuple[str, str, str]]  # (class, pipelines joined by ",", signature)
    seconds: float
    isolated: bool
    frontend: str = "onnx"


@dataclass
class StoredReduction:
    signature: str
    unit: str
    original_size: int
    original_bytes: int
    reduced_size: int
    reduced_bytes: int
    seconds: float
    oracle: str


@dataclass
class Campaign:
    """Everything the database holds, read at once (for a report)."""

    findings: list[StoredFinding] = field(default_factory=list)
    cases: list[StoredCase] = field(default_factory=list)
    reductions: dict[str, StoredReduction] = field(default_factory=dict)
    runs: list[dict] = field(default_factory=list)


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
    program = directory / REDUCED_PROGRAM_NAME  # a PyTorch case's: its node count needs torch, its bytes do not
    if reduced.is_file():
        data = reduced.read_bytes()
        nodes = onnx_model.node_count(onnx_model.load_bytes(data))
        size: str | None = f"{nodes} node{'' if nodes == 1 else 's'}, {len(data)} bytes"
    elif program.is_file():
        size = f"reduced .pt2, {program.stat().st_size} bytes"
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
        for table, columns in _ADDED_COLUMNS.items():  # a database an older version wrote
            present = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for name, declaration in columns:
                if name not in present:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")
        self.db.commit()

    def _rebuild(self, findings_dir: Path) -> int:
        directories = sorted(d for d in findings_dir.iterdir() if d.is_dir()) if findings_dir.is_dir() else []
        rebuilt = 0
        for directory in directories:
            r = read_record(directory)
            if r is None:
                continue
            seen = (directory / RECORD_NAME).stat().st_mtime
            rebuilt += self.db.execute(
                "INSERT OR IGNORE INTO findings (signature, kind, pipeline, detail, seed, spec_json, description, first_seen, "
                "last_seen, count, directory, reduced_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                "INSERT INTO findings (signature, kind, pipeline, detail, seed, spec_json, description, first_seen, last_seen, count, "
                "host_cpu, size, match) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
                (finding.signature, finding.kind, finding.pipeline, finding.detail, case.seed, case.spec_json, case.description, now, now,
                 finding.host_cpu or None, finding.size or None, finding.match or None),
            )  # fmt: skip
        self.db.commit()
        return not updated

    def record_case(self, case: CaseResult, run_started: float, isolated: bool = False) -> None:
        """One row per case, findings or not: what a report plots over time."""
        spec = json.loads(case.spec_json)
        ops = case_ops(case.spec_json)
        pipelines = [[run.pipeline, run.status, round(run.seconds, 3)] for run in case.runs]
        outcome = ", ".join(dict.fromkeys(f.kind for f in case.findings)) or OK
        self.db.execute(
            "INSERT INTO cases (finished, run_started, seed, features, ops, pipelines, outcome, findings, seconds, isolated, frontend) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                time.time(),
                run_started,
                case.seed,
                json.dumps(spec.get("features", [])),
                json.dumps(ops),
                json.dumps(pipelines),
                outcome,
                json.dumps([[f.kind, f.pipeline, f.signature] for f in case.findings]),
                case.seconds,
                int(isolated),
                frontend_of(case.spec_json),
            ),
        )
        configs: dict[tuple, int] = {}
        for run in case.runs:
            for config in run.configs:
                configs[tuple(config)] = configs.get(tuple(config), 0) + 1
            self.db.executemany(
                "INSERT INTO shared_memory VALUES (?, ?, ?, ?, ?)", [(run_started, case.seed, run.pipeline, k, b) for k, b in run.lds.items()]
            )
        self.db.executemany("INSERT INTO dispatches VALUES (?, ?, ?, ?, ?, ?, ?)", [(run_started, case.seed, *c, n) for c, n in configs.items()])
        self.db.commit()

    def set_root_cause(self, signature: str, root_cause: str, known_as: str | None) -> None:
        self.db.execute("UPDATE findings SET root_cause = ?, known_as = ? WHERE signature = ?", (root_cause, known_as, signature))
        self.db.commit()

    def dispatch_counts(self, run_started: float | None = None) -> dict[tuple[str, str, str, str], int]:
        """(target, codegen, intrinsic, op kind) -> dispatches, over every run or one."""
        where, args = ("WHERE run_started = ?", (run_started,)) if run_started is not None else ("", ())
        rows = self.db.execute(f"SELECT target, codegen, intrinsic, op_kind, SUM(count) FROM dispatches {where} GROUP BY 1, 2, 3, 4", args)
        return {tuple(row[:4]): row[4] for row in rows}

    def set_reduction(self, signature: str, directory: str, reduced_size: str, result: StoredReduction | None = None) -> None:
        """The finding's directory and size in words; with `result`, the figures a report plots."""
        self.db.execute("UPDATE findings SET directory = ?, reduced_size = ? WHERE signature = ?", (directory, reduced_size, signature))
        if result is not None:
            self.db.execute(
                "INSERT OR REPLACE INTO reductions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    signature,
                    result.unit,
                    result.original_size,
                    result.original_bytes,
                    result.reduced_size,
                    result.reduced_bytes,
                    result.seconds,
                    result.oracle,
                ),
            )
        self.db.commit()

    def record_run(self, started: float, seconds: float, cases: int, new: int, settings: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)", (started, seconds, cases, new, json.dumps(settings)))
        self.db.commit()

    def all(self) -> list[StoredFinding]:
        rows = self.db.execute(
            "SELECT signature, kind, pipeline, detail, seed, spec_json, description, count, directory, reduced_size, "
            "first_seen, last_seen, host_cpu, size, root_cause, known_as FROM findings ORDER BY first_seen"
        ).fetchall()
        return [StoredFinding(*row) for row in rows]

    def unreduced(self) -> list[tuple[Finding, CaseResult]]:
        """Findings no reduction has finished for (a campaign killed before or while reducing them,
        or run with --no-reduce), each with the case that showed it, as the campaign had them."""
        rows = self.db.execute(
            "SELECT signature, kind, pipeline, detail, seed, spec_json, description, host_cpu, size, match "
            "FROM findings WHERE reduced_size IS NULL ORDER BY first_seen"
        ).fetchall()
        found = []
        for signature, kind, pipeline, detail, seed, spec_json, description, host_cpu, size, match in rows:
            finding = Finding(kind, pipeline, signature, detail, size or "", match or "", host_cpu or "")
            found.append((finding, CaseResult(seed, spec_json, description, runs=self._runs_of(seed, spec_json))))
        return found

    def _runs_of(self, seed: int, spec_json: str) -> list[PipelineRun]:
        """The pipelines of the latest case with this seed and graph (which one agreed with the reference)."""
        rows = self.db.execute("SELECT pipelines, ops FROM cases WHERE seed = ? ORDER BY finished DESC", (seed,)).fetchall()
        ops = json.dumps(case_ops(spec_json))
        for pipelines, its_ops in rows:
            if its_ops == ops:
                return [PipelineRun(name, status, seconds) for name, status, seconds in json.loads(pipelines)]
        return []

    def cases(self) -> list[StoredCase]:
        rows = self.db.execute("SELECT finished, run_started, seed, features, ops, pipelines, outcome, findings, seconds, isolated, "
                               "frontend FROM cases ORDER BY finished").fetchall()
        return [
            StoredCase(
                finished,
                started,
                seed,
                json.loads(features),
                json.loads(ops),
                [tuple(p) for p in json.loads(pipelines)],
                outcome,
                [tuple(f) for f in json.loads(findings)],
                seconds,
                bool(isolated),
                frontend or "onnx",
            )
            for finished, started, seed, features, ops, pipelines, outcome, findings, seconds, isolated, frontend in rows
        ]

    def reductions(self) -> dict[str, StoredReduction]:
        rows = self.db.execute("SELECT * FROM reductions").fetchall()
        return {row[0]: StoredReduction(*row) for row in rows}

    def runs(self) -> list[dict]:
        rows = self.db.execute("SELECT started, seconds, cases, new_findings, settings FROM runs ORDER BY started").fetchall()
        return [
            {"started": started, "seconds": seconds, "cases": cases, "new_findings": new, "settings": json.loads(settings or "{}")}
            for started, seconds, cases, new, settings in rows
        ]

    def campaign(self) -> Campaign:
        return Campaign(self.all(), self.cases(), self.reductions(), self.runs())

    def close(self) -> None:
        self.db.close()


def _open(path: Path) -> sqlite3.Connection:
    """The database at `path`, checked whole: a damaged file raises sqlite3.DatabaseError here."""
    return checked(sqlite3.connect(str(path)), _SCHEMA)


_REDUCED_SIZE = re.compile(r"^(\d+) (node|op)s?, (\d+) bytes")


def _reduced(finding: StoredFinding, reduction: StoredReduction | None) -> dict | None:
    """The reduced column as numbers: from the reduction's row, or read off the size text of an older database."""
    if finding.reduced_size is None:
        return None
    record = {"summary": finding.reduced_size, "reduced": not finding.reduced_size.startswith("not reduced")}
    if reduction is not None:
        record.update(
            unit=reduction.unit,
            size=reduction.reduced_size,
            bytes=reduction.reduced_bytes,
            original_size=reduction.original_size,
            original_bytes=reduction.original_bytes,
            seconds=reduction.seconds,
            oracle=reduction.oracle,
        )
    elif match := _REDUCED_SIZE.match(finding.reduced_size):
        record.update(unit=f"{match.group(2)}s", size=int(match.group(1)), bytes=int(match.group(3)))
    return record


def findings_record(campaign: Campaign) -> dict:
    """`fuzz show --json`: every figure of the findings table as a typed field, in the table's order."""
    findings = [
        {
            "index": i,
            "class": f.kind,
            "seen": f.count,
            "pipelines": f.pipeline.split(","),
            "reduced": _reduced(f, campaign.reductions.get(f.signature)),
            "signature": f.signature,
            "detail": f.detail,
            "seed": f.seed,
            "graph": f.description,
            "first_seen": f.first_seen,
            "last_seen": f.last_seen,
            "directory": f.directory,
            "host_cpu": f.host_cpu,
            "size": f.size,
            "root_cause": f.root_cause,
            "known_as": f.known_as,
        }
        for i, f in enumerate(campaign.findings, 1)
    ]
    root_causes = len({f.root_cause or f.signature for f in campaign.findings})
    return {"format_version": 1, "distinct_findings": len(findings), "root_causes": root_causes, "cases": len(campaign.cases), "findings": findings}
