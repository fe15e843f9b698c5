"""Measures `reduce --resume` after `kill -9`: the same bytes as an uninterrupted run, fewer calls.

    python bench/resume.py [--case examples/conv_chain.mlir] [--at 0.25 0.5 0.75] [-- ORACLE ARGS]

Runs the case once uninterrupted (`--no-cache`), then, for each fraction, starts the same run,
kills it with SIGKILL at that fraction of the uninterrupted wall time, and resumes it with
`--resume` (`--no-cache`). Prints ops, bytes and oracle calls of each, and whether the result's
bytes equal the uninterrupted run's. Every number is measured in this run; `--results` also writes
the table to docs/results/resume.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results

DEFAULT_ORACLE = ["--oracle=lds-limit", "--lds-bytes", "32768"]


def reduce_command(src: Path, oracle_args: list[str], *extra: str) -> list[str]:
    return [sys.executable, "-m", "reducer", str(src), *oracle_args, "-j", "2", "--no-cache", "--json", "-q", *extra]


def run(command: list[str], cwd: Path) -> tuple[dict, float]:
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise SystemExit(f"resume bench: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout), time.monotonic() - start


def killed_at(command: list[str], cwd: Path, seconds: float) -> None:
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    time.sleep(seconds)
    os.killpg(proc.pid, signal.SIGKILL)  # reduce and every child: nothing runs a handler
    proc.wait()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--case", type=Path, default=ROOT / "examples" / "conv_chain.mlir")
    parser.add_argument("--at", type=float, nargs="+", default=[0.25, 0.5, 0.75])
    parser.add_argument("oracle", nargs="*", help="the oracle arguments (default: --oracle=lds-limit --lds-bytes 32768)")
    results.add_option(parser)
    args = parser.parse_args(argv)
    oracle_args = args.oracle or DEFAULT_ORACLE
    with tempfile.TemporaryDirectory(prefix="resume-bench-") as tmp:
        work = Path(tmp)
        src = work / args.case.name
        shutil.copy(args.case, src)
        output = work / f"{src.stem}.reduced{src.suffix}"
        clean, seconds = run(reduce_command(src, oracle_args), work)
        expected = digest(output)
        rows = [("uninterrupted", "-", clean, seconds, "-")]
        for fraction in args.at:
            output.unlink(missing_ok=True)
            killed_at(reduce_command(src, oracle_args), work, fraction * seconds)
            state = output.with_name(output.name + ".resume")
            left = json.loads(state.read_text())["best_ops"] if state.exists() else None
            resumed, took = run(reduce_command(src, oracle_args, "--resume"), work)
            same = "yes" if digest(output) == expected else "NO"
            rows.append((f"killed at {fraction:.0%} ({fraction * seconds:.0f} s)", left, resumed, took, same))
    table = results.Table(
        ["run", "ops at kill", "ops", "bytes", "oracle calls", "seconds", "same bytes"],
        [[name, left, f"{summary['original']['size']} -> {summary['reduced']['size']}",
          f"{summary['original']['bytes']} -> {summary['reduced']['bytes']}", summary["oracle_calls"], f"{took:.1f}", same]
         for name, left, summary, took, same in rows],
        f"case {args.case.name}, {' '.join(oracle_args)}, -j 2, --no-cache, uninterrupted result {expected}")
    print(table.markdown())
    if args.results:
        results.write(__file__, [table], argv=argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
