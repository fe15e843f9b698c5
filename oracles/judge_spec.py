"""A judge spec: an oracle calibrated to the original's verdict, saved as a JSON file and loaded
again in another process (`python -m oracles.judge`, a release's environment).

The spec names the oracle, its options, the compile flags, the input's suffix and the verdict on
the original, so that a judge is calibrated exactly as `reduce` calibrates it without judging the
original again on every call.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.registry import make_oracle, oracle_for_input
from oracles.toolchain.tools import Limits
from oracles.verdict import Verdict


@dataclasses.dataclass
class JudgeSpec:
    oracle: Oracle
    flags: tuple[str, ...]
    suffix: str


def write_spec(path: Path, oracle_name: str, options: OracleOptions, flags: list[str], reference: Verdict, suffix: str = ".mlir") -> None:
    """Saves what a judge needs; `reference` is the calibrated verdict on the original."""
    spec = {
        "oracle": oracle_name,
        "options": dataclasses.asdict(options),
        "flags": list(flags),
        "suffix": suffix,
        # Plain data only: `site` is filled by `Oracle.locate`, never by a judge, and is no JSON.
        "reference": {k: v for k, v in dataclasses.asdict(reference).items() if k != "site"},
    }
    path.write_text(json.dumps(spec, indent=1))


def load_spec(path: Path) -> JudgeSpec:
    """The calibrated oracle a spec describes; ValueError (one line) when the file is not a spec."""
    try:
        return spec_from(json.loads(path.read_text()))
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a judge spec written by oracles.judge_spec.write_spec ({err})") from None
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def spec_from(spec: dict) -> JudgeSpec:
    """The calibrated oracle of a spec's data (what `load_spec` read); ValueError (one line) when it is none."""
    try:
        fields = dict(spec["options"])
        fields["limits"] = Limits(**fields.get("limits", {}))
        suffix = spec.get("suffix", ".mlir")
        # A model or program: the reference is the importing oracle's verdict.
        oracle = oracle_for_input(make_oracle(spec["oracle"], OracleOptions(**fields)), suffix)
        oracle = oracle.calibrated(Verdict(**spec["reference"]))
        return JudgeSpec(oracle, tuple(spec["flags"]), suffix)
    except OracleSetupError as err:
        raise ValueError(str(err)) from None
    except (KeyError, TypeError) as err:
        raise ValueError(f"not a judge spec written by oracles.judge_spec.write_spec ({err})") from None
