"""The regression corpus: one directory per reduced repro, its metadata in `entry.json`.

An entry says how to see the failure (oracle, its options, compile flags), what state it is
expected in (`reproduces`, or `fixed` once an IREE upgrade fixed it), the IREE version it was
seen with, its normalised signature, a one-line description and where it came from. `reduce
--save-to-corpus NAME` and the fuzzer write entries; `corpus/test_corpus.py` checks them all.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from oracles import Candidate, OracleOptions, Verdict, make_oracle
from oracles.onnx.importer import onnx_oracle
from oracles.toolchain.tools import iree_version

ENTRY_FILE = "entry.json"
REPRODUCES, FIXED = "reproduces", "fixed"
_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")
# Options that name things on the machine that wrote the entry, or only set resource limits.
_NOT_STORED = {"limits", "cmd", "opset_version"}  # opset_version: its own field of the entry


@dataclass
class CorpusEntry:
    name: str
    oracle: str
    options: dict
    flags: list[str]
    state: str
    iree_version: str
    signature: str
    description: str
    source: str
    input_file: str
    opset_version: int | None = None
    seconds: float = 0.0  # how long the check took when it was written
    directory: Path = field(default=Path("."), compare=False)

    @property
    def input_path(self) -> Path:
        return self.directory / self.input_file


def stored_options(options: OracleOptions) -> dict:
    """The options that differ from the defaults, minus machine-specific ones."""
    defaults = OracleOptions()
    return {
        f.name: getattr(options, f.name)
        for f in dataclasses.fields(OracleOptions)
        if f.name not in _NOT_STORED and getattr(options, f.name) != getattr(defaults, f.name)
    }


def save_entry(
    root: Path,
    name: str,
    candidate: Candidate,
    oracle: str,
    options: OracleOptions,
    verdict: Verdict,
    description: str,
    source: str,
    opset_version: int | None = None,
) -> Path:
    """Writes the entry directory and returns it; ValueError for a bad or taken name."""
    if not _NAME.match(name):
        raise ValueError(f"corpus entry name {name!r}: use letters, digits, '.', '_' and '-'")
    if oracle == "script":
        raise ValueError("a script oracle cannot be saved to the corpus: its command lives on this machine")
    directory = root / name
    if directory.exists():
        raise ValueError(f"corpus entry {directory} exists already; choose another name")
    directory.mkdir(parents=True)
    input_file = f"repro{candidate.suffix}"
    candidate.write(directory / input_file)
    entry = CorpusEntry(
        name=name,
        oracle=oracle,
        options=stored_options(options),
        flags=list(candidate.flags),
        state=REPRODUCES,
        iree_version=iree_version(),
        signature=verdict.signature,
        description=" ".join(description.split())[:300],
        source=source,
        input_file=input_file,
        opset_version=opset_version,
        seconds=round(verdict.seconds, 2),
    )
    fields = {k: v for k, v in dataclasses.asdict(entry).items() if k != "directory"}
    (directory / ENTRY_FILE).write_text(json.dumps(fields, indent=2) + "\n")
    return directory


def load_entries(root: Path) -> list[CorpusEntry]:
    entries = []
    for path in sorted(root.glob(f"*/{ENTRY_FILE}")):
        fields = json.loads(path.read_text())
        entries.append(CorpusEntry(**fields, directory=path.parent))
    return entries


def check_entry(entry: CorpusEntry) -> Verdict:
    """Runs the entry's oracle on its repro, pinned to the stored signature."""
    options = OracleOptions(**entry.options, opset_version=entry.opset_version)
    oracle = make_oracle(entry.oracle, options)
    if entry.input_file.endswith(".onnx"):
        oracle = onnx_oracle(oracle)
        data = entry.input_path.read_bytes()
        candidate = Candidate(entry.name, tuple(entry.flags), ".onnx", data)
    else:
        candidate = Candidate(entry.input_path.read_text(), tuple(entry.flags))
    oracle = oracle.calibrated(Verdict(True, entry.signature))
    start = time.monotonic()
    verdict = oracle.judge(candidate)
    verdict.seconds = time.monotonic() - start
    return verdict


def entry_problem(entry: CorpusEntry, verdict: Verdict) -> str | None:
    """Why the entry's state no longer matches what the compiler does, or None when it does."""
    if entry.state == REPRODUCES and not verdict.interesting:
        return (
            f"{entry.name} no longer reproduces: fixed in {iree_version()} (seen with {entry.iree_version}): "
            f"mark it fixed, set \"state\": \"fixed\" in {entry.directory / ENTRY_FILE}. Now: {verdict.detail}"
        )
    if entry.state == FIXED and verdict.interesting:
        return f"{entry.name} was fixed but reproduces again in {iree_version()}: {verdict.detail}"
    if entry.state not in (REPRODUCES, FIXED):
        return f"{entry.directory / ENTRY_FILE}: state must be {REPRODUCES} or {FIXED}, not {entry.state!r}"
    return None
