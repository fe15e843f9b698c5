"""A case judged in one release's environment: the case written once, the judge run with that python.

The judge (`oracles/releases/judge.py`) runs as a tool does (`run_tool`: own process group,
time limit, killed on Ctrl-C), with nothing of the user's environment that would point it at
other IREE tools or packages.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

from oracles.base import Oracle
from oracles.candidate import Candidate
from oracles.data.case_data import save_data
from oracles.formats import Format
from oracles.judge_spec import write_spec
from oracles.releases.history import CANNOT, ReleaseVerdict
from oracles.releases.judge import DATA, IMPORTED, SPEC, TORCH_SITE_ENV
from oracles.toolchain.tools import TOOLS_DIR_ENV, Limits, run_tool
from oracles.verdict import Verdict


def write_case(directory: Path, candidate: Candidate, oracle: Oracle, reference: Verdict) -> Path:
    """The files the judge reads: the spec, the case and its data. A model (ONNX, `.pt2`) is written
    as it is, so that each release imports it with its own importer; a `.pt2` program also carries
    the MLIR the installed IREE imported it to (IMPORTED), judged where torch does not load."""
    directory.mkdir(parents=True, exist_ok=True)
    suffix = candidate.suffix if candidate.binary is not None else ".mlir"
    write_spec(directory / SPEC, oracle.name, oracle.options, list(candidate.flags), reference, suffix)
    if candidate.binary is not None:
        (directory / f"case{suffix}").write_bytes(candidate.binary)
    else:
        (directory / f"case{suffix}").write_text(candidate.text)
    if candidate.format is Format.PT2:
        (directory / IMPORTED).write_text(candidate.text)
    if candidate.data:
        save_data(candidate.data, directory / DATA)
    return directory


def torch_site() -> str | None:
    """The directory this process loads torch from: a `.pt2` judge appends it to its path, after the
    release's own packages, so that the release's FX importer imports the program with this torch
    (a torch per release would add gigabytes; the release's `iree` comes first on the path)."""
    spec = importlib.util.find_spec("torch")
    return str(Path(spec.origin).parent.parent) if spec and spec.origin else None


def judge_with(python: Path, project: Path, case: Path, limits: Limits, release: str) -> ReleaseVerdict:
    """The verdict of the release whose environment `python` is in."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in (TOOLS_DIR_ENV, "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    environment.update(PYTHONPATH=str(project), PYTHONNOUSERSITE="1",
                       PATH=f"{python.parent}{os.pathsep}{environment.get('PATH', '')}")
    if (case / IMPORTED).is_file() and (site := torch_site()):
        environment[TORCH_SITE_ENV] = site
    # The oracle's compiles have their own limits; this one is for the whole judge (a model may run twice).
    whole = Limits(timeout_s=4 * limits.timeout_s + 120, memory_cap_mb=limits.memory_cap_mb)
    start = time.monotonic()
    result = run_tool([str(python), "-m", "oracles.releases.judge", str(case)], whole, env=environment)
    seconds = time.monotonic() - start
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    try:
        answer = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        why = "timed out" if result.timed_out else (tail[-1] if tail else f"exit {result.returncode}")
        return ReleaseVerdict(release, CANNOT, f"the judge fails under this release: {why[:200]}", seconds=seconds)
    detail = answer.get("detail", "")
    if answer.get("renamed"):
        detail += f" (flags renamed for this release: {', '.join(f'{old} -> {new}' for old, new in answer['renamed'])})"
    return ReleaseVerdict(release, answer["verdict"], detail.strip(), answer.get("compiler", ""), seconds)
