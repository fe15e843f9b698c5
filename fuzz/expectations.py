"""The conformance run's expectations file, in the style of iree-test-suites' onnx_ops configs.

One JSON file per configuration: the pipeline and import opset it was measured with, and one
list of test names per way of failing. A test in no list must pass. `fuzz conformance
--update-expectations` rewrites the lists from a run, so a fix or a regression shows in review
as a line moving between lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fuzz.conformance import (
    COMPILE_FAIL,
    DEFAULT_PIPELINE,
    IMPORT_FAIL,
    IMPORT_OPSET,
    MISMATCH,
    PASS,
    RUN_FAIL,
    Outcome,
)
from oracles import refusals

DEFAULT_PATH = Path(__file__).resolve().parents[1] / "tests" / "onnx_conformance_expectations.json"
REGENERATE = "fuzz conformance --update-expectations"

LISTS = {
    IMPORT_FAIL: "expected_import_failures",
    COMPILE_FAIL: "expected_compile_failures",
    RUN_FAIL: "expected_run_failures",
    MISMATCH: "expected_mismatches",
}


@dataclass
class Expectations:
    config_name: str = "onnx_node_cpu"
    pipeline: str = DEFAULT_PIPELINE
    opset_version: int = IMPORT_OPSET
    expected: dict[str, str] = field(default_factory=dict)  # test name -> outcome other than pass

    def outcome_of(self, name: str) -> str:
        return self.expected.get(name, PASS)

    def differences(self, outcomes: dict[str, Outcome]) -> list[str]:
        """One line per test whose outcome is not the listed one."""
        return [
            f"{name}: listed as {self.outcome_of(name)}, now {outcome.kind} ({outcome.detail})"
            for name, outcome in sorted(outcomes.items())
            if outcome.kind != self.outcome_of(name)
        ]

    def updated(self, outcomes: dict[str, Outcome], known: set[str]) -> Expectations:
        """These outcomes replace their tests' entries; entries of tests no longer in `known` go."""
        expected = {name: kind for name, kind in self.expected.items() if name in known and name not in outcomes}
        expected.update({name: o.kind for name, o in outcomes.items() if o.kind != PASS})
        return Expectations(self.config_name, self.pipeline, self.opset_version, expected)

    def to_json(self) -> str:
        document: dict = {"config_name": self.config_name, "pipeline": self.pipeline, "opset_version": self.opset_version}
        for kind, key in LISTS.items():
            document[key] = sorted(name for name, listed in self.expected.items() if listed == kind)
        return json.dumps(document, indent=2) + "\n"


def load(path: Path) -> Expectations:
    """The file's expectations; ValueError with a one-line reason for a missing or malformed file."""
    try:
        document = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ValueError(refusals.EXPECTATIONS_MISSING.say(path=path, command=REGENERATE)) from None
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(refusals.EXPECTATIONS_UNREADABLE.say(path=path, error=err)) from None
    if not isinstance(document, dict):
        raise ValueError(refusals.EXPECTATIONS_NOT_OBJECT.say(path=path, keys=", ".join(LISTS.values())))  # noqa: TRY004 - bad input, one line
    expected: dict[str, str] = {}
    for kind, key in LISTS.items():
        names = document.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(refusals.EXPECTATIONS_NOT_LIST.say(path=path, key=key))
        for name in names:
            if name in expected:
                raise ValueError(refusals.EXPECTATIONS_TWICE.say(path=path, name=name, first=LISTS[expected[name]], second=key))
            expected[name] = kind
    opset = document.get("opset_version", IMPORT_OPSET)
    if not isinstance(opset, int):
        raise ValueError(refusals.EXPECTATIONS_OPSET.say(path=path, opset=opset))  # noqa: TRY004 - bad input, one line
    return Expectations(str(document.get("config_name", "onnx_node_cpu")), str(document.get("pipeline", DEFAULT_PIPELINE)), opset, expected)
