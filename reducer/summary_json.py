"""`reduce --json`: the terminal summary as one JSON object with typed fields, for scripts and CI.

Every figure the text summary (`reducer.report.summary`) shows is here as a number, every list
as a list, so nothing needs scraping: sizes, flags and shapes before and after, oracle calls and
cache hits, time, the failure, the IREE version, the commands and the files written.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from oracles.toolchain.tools import iree_version
from reducer.culprit import Culprit
from reducer.proposal import Proposal
from reducer.report import Outcome, recorded_seconds
from reducer.shapes.shape_search import shapes_kept_by, shapes_of

FORMAT_VERSION = 1


def shape_list(summary: str) -> list[dict[str, Any]]:
    """'x: 1x32x16x16, w: 64x32' (or without names) as [{"name": "x", "dims": [1, 32, 16, 16]}, ...]; '?' dims as
    null, a named dynamic dim (an ONNX dim_param, 'Mx64') as its name."""
    shapes = []
    for part in filter(None, (p.strip() for p in summary.split(", "))):
        name, _, dims = part.rpartition(": ")
        shapes.append({"name": name or None, "dims": [int(d) if d.isdigit() else None if d == "?" else d for d in dims.split("x") if d]})
    return shapes


def _side(proposal: Proposal) -> dict[str, Any]:
    candidate = proposal.candidate
    return {
        "size": proposal.ops,
        "bytes": candidate.size,
        "flag_count": len(candidate.flags),
        "flags": list(candidate.flags),
        "shapes": shape_list(shapes_of(candidate)),
        "shapes_kept_by": shapes_kept_by(candidate) or None,  # what kept dims from shrinking (linalg-level IR)
    }


def summary_record(outcome: Outcome, written: dict[str, str] | None = None) -> dict[str, Any]:
    """The summary as a dict; `written` adds files the CLI wrote after the reduction (report, corpus)."""
    stats = outcome.stats
    files = {"output": outcome.output_path}
    if outcome.imported_path:
        files["imported"] = outcome.imported_path
    if outcome.script_path:
        files["script"] = outcome.script_path
    if outcome.dispatch is not None:
        files["dispatch"] = outcome.dispatch.path
    culprit = outcome.culprit
    if outcome.wrong_value_record and outcome.wrong_value_record["test"]:
        files["wrong_dispatch_test"] = outcome.wrong_value_record["test"]["directory"]
    if culprit is not None and culprit.concluded:
        files.update({"pass_repro": culprit.repro_path, "lit_test": culprit.lit_path})
    files.update(written or {})
    dispatch = outcome.dispatch
    return {
        "format_version": FORMAT_VERSION,
        "status": "reduced" if outcome.complete else "interrupted",
        "oracle": outcome.oracle,
        "input": outcome.input_path,
        "unit": outcome.unit,
        "original": _side(outcome.original),
        "reduced": _side(outcome.best),
        "dropped_flags": list(outcome.dropped_flags),
        "oracle_calls": stats.oracle_calls,
        "cache_hits": stats.cache_hits,
        "stored_hits": stats.stored_hits,
        "ruled_out": stats.ruled_out,
        "failed_calls": stats.failed_calls,
        "edit_crashes": stats.edit_crashes,
        "rejected_edits": stats.rejected_edits,
        "timed_out": stats.timed_out,
        "seconds": recorded_seconds(outcome.seconds),
        "parts": {name: recorded_seconds(seconds) for name, seconds in outcome.parts.items()},
        "jobs": outcome.jobs,
        "failure": outcome.verdict.detail,
        "devices": list(outcome.devices),
        "pipelines": [{"name": name, "flags": list(flags), "device": device} for name, flags, device in outcome.pipelines],
        "sizes": dict(outcome.sizes),
        "original_sizes": dict(outcome.original_sizes),
        "dynamic_need": outcome.dynamic_need or None,
        "test_reproduces": outcome.test_reproduces,
        "iree_version": iree_version(),
        "reproduce": outcome.command,
        "dispatch": None
        if dispatch is None
        else {"path": dispatch.path, "reproduces_alone": dispatch.reproduces, "command": dispatch.command},
        "culprit": _culprit(culprit),
        "dispatch_config": dataclasses.asdict(outcome.dispatch_config) if outcome.dispatch_config else None,
        "wrong_value": outcome.wrong_value_record,  # miscompile / reference-mismatch: where the wrong value is computed
        "files": files,
        "symptoms": list(outcome.symptoms),
        "localised": None if outcome.localised is None else {"size": outcome.localised[0], "candidates": outcome.localised[1]},
        "releases": outcome.releases.record() if outcome.releases is not None else None,  # --releases: since when it fails
        "shrink_threshold": outcome.shrink_threshold,
        # dims a shape search stopped short of their smallest by the threshold: the size, and one that loses the failure
        "shape_stops": [{"dimension": key, "size": size, "loses_at": above} for key, size, above in outcome.shape_stops],
    }


def _culprit(culprit: Culprit | None) -> dict[str, Any] | None:
    if culprit is None:
        return None
    # The record's seconds (rounded to 0.01 s), which the text line rounds again: the same figure in both.
    found = {"concluded": culprit.concluded, "why": culprit.why or None, **culprit.record()}
    if culprit.concluded:
        found.update(command=culprit.command, lit_test_check=culprit.lit.detail if culprit.lit else None)
    return found


def releases_only_record(found) -> dict[str, Any]:
    """`reduce --releases-only --json` (a `reducer.releases.ReleasesOnly`)."""
    return {"format_version": FORMAT_VERSION, "status": "judged", "oracle": found.oracle, "input": found.input_path,
            "failure": found.verdict.detail, "iree_version": iree_version(), "seconds": round(found.seconds, 3),
            "releases": found.since.record()}


def error_record(message: str, exit_code: int) -> dict[str, Any]:
    """What `reduce --json` prints when it stops with an error (the line also goes to stderr)."""
    return {"format_version": FORMAT_VERSION, "status": "error", "exit_code": exit_code, "error": message}


def to_json(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=2)
