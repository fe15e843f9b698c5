"""`.pt2` reductions of the PyTorch programs of tests/torch_models.py, measured end to end.

Three programs with random weights, exported with `torch.export` and saved with
`torch.export.save`, each failing IREE 3.13 its own way: a transformer encoder whose attention
fails to compile for Vulkan (`compile-error`), a half-precision scorer whose scores come out wrong
with data tiling at 15 tokens (`eager-mismatch`), and a KV-cache decode step whose in-place cache
update leaves transient copies at the stream phase (`transient-copy`).

    python bench/torch_cases.py [--out DIR] [-j 2] [--results]

reduces each with `reduce --no-cache --json` (uncached: every verdict is a compile) and prints,
per case, the nodes and the bytes of the archive before and after, the oracle calls, the seconds,
the wrong answer's headline before and after where there is one, whether the written
`bug.reduced.py` shows the failure when run on its own, and whether the result is 1-minimal
(bench/minimality: every node deleted, bypassed and every static dimension halved, each judged
uncached with the case's oracle, after the timed reduction); `--results` also writes the table to
docs/results/torch_cases.md (bench/results.py). Needs the torch extra.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import results
from bench.minimality.judging import check_command

VULKAN = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"]


def cases(out: Path) -> list[tuple[str, Path, list[str]]]:
    """(name, archive, reduce arguments) of each case; the archives are written into `out`."""
    from tests import torch_models

    return [
        ("TinyEncoder for Vulkan", torch_models.save_encoder(out / "encoder.pt2"), ["--oracle=compile-error", "--", *VULKAN]),
        ("TokenScorer, data tiling, 15 tokens", torch_models.save_scorer(out / "scorer.pt2"),
         ["--oracle=eager-mismatch", "--dim", "arg0.1=15", "--", "--iree-opt-data-tiling=true"]),
        ("KVCacheStep, stream schedule", torch_models.save_kv_cache_step(out / "kv_step.pt2"), ["--oracle=transient-copy"]),
        # Issue 35's GPT: one Linear for q, k and v, split; causal SDPA; f16; four blocks.
        ("TinyGPT (4 blocks, qkv split, f16) for Vulkan", torch_models.save_gpt(out / "gpt.pt2", layers=4),
         ["--oracle=compile-error", "--", *VULKAN]),
    ]


def headline(detail: str) -> str:
    """The wrong answer's headline in a verdict's detail ('output 0 magnitude on 11/30 elements (37%)'), or '-'."""
    if "; wrong: " not in detail:
        return "-"
    return detail.split("; wrong: ", 1)[1].split(", relative error")[0].split(", up to")[0]


def run(name: str, archive: Path, arguments: list[str], jobs: int) -> dict:
    ours, pasted = (arguments[: arguments.index("--")], arguments[arguments.index("--"):]) if "--" in arguments else (arguments, [])
    argv = [sys.executable, "-m", "reducer", str(archive), *ours, "-j", str(jobs), "--no-cache", "--json", *pasted]
    done = subprocess.run(argv, check=False, capture_output=True, text=True)
    first = next((line.split("original: ", 1)[1] for line in done.stderr.splitlines() if "] original: " in line), "")
    summary = json.loads(done.stdout)
    if summary.get("status") != "reduced":
        return {"case": name, "oracle": ours[0].removeprefix("--oracle="), "result": summary.get("error", "failed")}
    command = [str(archive), *ours, *pasted]  # the reduce command line, without its -j and output options
    minimal = check_command(command, Path(summary["files"]["output"]), summary["reduced"]["flags"])
    script = Path(summary["files"]["script"])
    shown = subprocess.run([sys.executable, "-I", script.name], check=False, cwd=script.parent, capture_output=True, text=True)
    original, reduced = summary["original"], summary["reduced"]
    return {
        "case": name,
        "oracle": ours[0].removeprefix("--oracle="),
        "nodes": f"{original['size']} -> {reduced['size']}",
        "bytes": f"{original['bytes']} -> {reduced['bytes']}",
        "oracle calls": summary["oracle_calls"],
        "seconds": f"{summary['seconds']:.1f}",
        "1-minimal": minimal.cell(),
        "wrong answer": f"{headline(first)} -> {headline(summary['failure'])}",
        "script shows it": "yes" if shown.returncode == 1 else f"NO (exit {shown.returncode})",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="where the archives and the reduced results go (default: a temporary directory)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    results.add_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torch-cases-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        rows = results.stream(run(name, archive, arguments, args.jobs) for name, archive, arguments in cases(out))
    if args.results:
        results.write(__file__, [results.Table.of_dicts(rows, "Each case reduced once, uncached, -j "
                                                        f"{args.jobs} (seconds: the whole command, the failing pass included)")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
