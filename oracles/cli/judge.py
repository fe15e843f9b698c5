"""`python -m oracles.judge SPEC FILE`: one oracle verdict as an exit status, for external reducers.

C-Vise, Shrink Ray and llvm-reduce take an interestingness test (exit 0 = interesting). This
entry point makes any oracle such a test without re-implementing it: SPEC is a JSON file
written by `write_spec` that names the oracle, its options, the compile flags and the verdict
on the original (so the judge is calibrated to the original's signature exactly as `reduce`
calibrates it, without judging the original again on every call). FILE `-` reads standard input.

Exit status: 0 interesting, 1 not interesting (or not UTF-8 text), 2 unusable SPEC or FILE.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import sys
from pathlib import Path

from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.candidate import Candidate
from oracles.registry import make_oracle, oracle_for_input
from oracles.toolchain.tools import Limits, kill_all
from oracles.verdict import Verdict

USAGE = "usage: python -m oracles.judge SPEC FILE   (FILE - reads stdin; exit 0 = interesting)"


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
        raise ValueError(f"{path}: not a judge spec written by oracles.cli.judge.write_spec ({err})") from None
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
        raise ValueError(f"not a judge spec written by oracles.cli.judge.write_spec ({err})") from None


def _read_candidate(file: str) -> bytes:
    return sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()


def _stop(signum: int, _frame) -> None:
    """A reducer that gives up on this test (budget, Ctrl-C) takes the compiler down with it."""
    kill_all()
    sys.exit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        spec = load_spec(Path(args[0]))
        data = _read_candidate(args[1])
    except (ValueError, OSError) as err:
        print(f"judge: error: {err}", file=sys.stderr)
        return 2
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        print("judge: not interesting: the candidate is not UTF-8 text", file=sys.stderr)
        return 1
    verdict = spec.oracle.judge(Candidate(text, spec.flags, spec.suffix))
    print(f"judge: {'interesting' if verdict.interesting else 'not interesting'}: {verdict.detail}", file=sys.stderr)
    return 0 if verdict.interesting else 1


if __name__ == "__main__":
    sys.exit(main())
