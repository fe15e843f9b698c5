"""`python -m oracles.judge SPEC FILE`: one oracle verdict as an exit status, for external reducers.

C-Vise, Shrink Ray and llvm-reduce take an interestingness test (exit 0 = interesting). This
entry point makes any oracle such a test without re-implementing it: SPEC is a JSON file
written by `oracles.judge_spec.write_spec` that names the oracle, its options, the compile flags
and the verdict on the original (so the judge is calibrated to the original's signature exactly
as `reduce` calibrates it, without judging the original again on every call). FILE `-` reads
standard input.

Exit status: 0 interesting, 1 not interesting (or not UTF-8 text), 2 unusable SPEC or FILE.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from oracles.candidate import Candidate
from oracles.judge_spec import load_spec
from oracles.toolchain.tools import kill_all

USAGE = "usage: python -m oracles.judge SPEC FILE   (FILE - reads stdin; exit 0 = interesting)"


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
