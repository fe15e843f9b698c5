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

from oracles import Candidate, Oracle, OracleOptions, Verdict, make_oracle, refusals
from oracles.compiling.dispatch_config import DispatchConfig
from oracles.compiling.pass_repro import LitCheck, one_pass_oracle, run_lit_test
from oracles.data.case_data import load_data, save_data
from oracles.toolchain.tools import iree_version
from reducer.culprit import Culprit
from reducer.formats.registry import format_for

ENTRY_FILE = "entry.json"
# A candidate's data exactly as it carried it (oracles/data/carried.py: `in:`, `at:`, `out:`).
DATA_FILE = "data.npz"
PASS_REPRO_FILE, LIT_TEST_FILE = "pass.mlir", "lit.mlir"
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
    culprit: dict | None = None  # compile-error / crash: the failing pass, its repro and lit test files
    dispatch_config: dict | None = None  # lds-limit: the over-limit dispatch's configuration
    data_file: str | None = None  # miscompile / reference-mismatch: the inputs that show it (DATA_FILE)
    devices: list[str] | None = None  # numeric oracles: the runtime devices its modules run on (a GPU's: only there)
    fails_since: dict | None = None  # since which IREE release it fails (oracles/releases/history.py `record`)
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
    culprit: Culprit | None = None,
    dispatch_config: DispatchConfig | None = None,
    fails_since: dict | None = None,
) -> Path:
    """Writes the entry directory and returns it; ValueError for a bad or taken name."""
    if not _NAME.match(name):
        raise ValueError(refusals.CORPUS_NAME.say(name=name))
    if oracle == "script":
        raise ValueError(refusals.CORPUS_SCRIPT.say())
    directory = root / name
    if directory.exists():
        raise ValueError(refusals.CORPUS_EXISTS.say(directory=directory))
    directory.mkdir(parents=True)
    input_file = f"repro{candidate.suffix}"
    candidate.write(directory / input_file)
    if candidate.data:
        save_data(candidate.data, directory / DATA_FILE)
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
        culprit=culprit_record(directory, culprit),
        dispatch_config=dataclasses.asdict(dispatch_config) if dispatch_config else None,
        data_file=DATA_FILE if candidate.data else None,
        devices=make_oracle(oracle, options).run_devices(candidate.flags) or None,
        fails_since=fails_since,
        directory=directory,
    )
    write_entry(entry)
    return directory


def write_entry(entry: CorpusEntry) -> None:
    """(Re)writes `entry.json`; the optional records are left out when there are none."""
    optional = ("culprit", "dispatch_config", "data_file", "devices", "fails_since")
    fields = {k: v for k, v in dataclasses.asdict(entry).items() if k != "directory" and not (k in optional and v is None)}
    (entry.directory / ENTRY_FILE).write_text(json.dumps(fields, indent=2) + "\n")


def culprit_record(directory: Path, culprit: Culprit | None) -> dict | None:
    """Copies a concluded culprit's one-pass repro and lit test into the entry; their record."""
    if culprit is None or not culprit.concluded:
        return None
    (directory / PASS_REPRO_FILE).write_text(culprit.repro_text)
    (directory / LIT_TEST_FILE).write_text(culprit.lit_text)
    return {**culprit.record(), "pass_repro": PASS_REPRO_FILE, "lit_test": LIT_TEST_FILE}


def load_entries(root: Path) -> list[CorpusEntry]:
    entries = []
    for path in sorted(root.glob(f"*/{ENTRY_FILE}")):
        fields = json.loads(path.read_text())
        entries.append(CorpusEntry(**fields, directory=path.parent))
    return entries


def absent_device(entry: CorpusEntry) -> str | None:
    """Why this machine cannot check the entry: a device its modules run on that is not here (one
    line naming the driver), PyTorch for a `.pt2` entry, or None."""
    missing = format_for(entry.input_file).unavailable()
    if missing:
        return missing
    return make_oracle(entry.oracle, OracleOptions(**entry.options)).absent_device(entry.flags)


def check_entry(entry: CorpusEntry) -> Verdict:
    """Runs the entry's oracle on its repro, pinned to the stored signature."""
    oracle, candidate = entry_case(entry)
    oracle = oracle.calibrated(Verdict(True, entry.signature))
    start = time.monotonic()
    verdict = oracle.judge(candidate)
    verdict.seconds = time.monotonic() - start
    return verdict


def entry_case(entry: CorpusEntry) -> tuple[Oracle, Candidate]:
    """The entry's oracle (the importing one for a model or program) and its repro as a candidate, with its data."""
    options = OracleOptions(**entry.options, opset_version=entry.opset_version)
    fmt = format_for(entry.input_file)
    oracle = fmt.judging_oracle(make_oracle(entry.oracle, options))
    candidate = fmt.read_case(entry.input_path, tuple(entry.flags))
    if entry.data_file:
        candidate = dataclasses.replace(candidate, data=load_data(entry.directory / entry.data_file))
    return oracle, candidate


def check_pass_repro(entry: CorpusEntry) -> Verdict | None:
    """`iree-opt` on the entry's one-pass repro, pinned to the entry's signature (None: it has none)."""
    if not entry.culprit or not entry.culprit.get("pass_repro"):
        return None
    reference = Verdict(True, entry.signature)
    oracle = one_pass_oracle(entry.culprit["pipeline"], reference, OracleOptions(**entry.options))
    return oracle.judge(Candidate((entry.directory / entry.culprit["pass_repro"]).read_text()))


def check_lit_test(entry: CorpusEntry) -> LitCheck | None:
    """Runs the entry's lit test (None when it has none)."""
    if not entry.culprit or not entry.culprit.get("lit_test"):
        return None
    return run_lit_test(entry.directory / entry.culprit["lit_test"])


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
