"""What loading a `.pt2` costs `reduce`, beside what torch alone takes for the same work.

    python bench/pt2_loading.py [--layers 6] [--repeat 3] [--before DIR] [--results]

Exports `TinyGPT` of tests/torch_models.py (half precision, `--layers` blocks: 6 make a 217-node
graph, about 120 of the program's nodes) and, per run, in fresh processes one after the other:

- torch alone: `import torch`, `torch.export.load` of the archive and `run_decompositions` with the
  table of `reduce`'s default `--torch-import` (the work any tool that reads the archive and
  imports it as IREE's users do does), each timed (wall and CPU seconds);
- `reduce ARCHIVE --oracle=compile-error --no-cache --no-culprit --time-budget 1 --json` for
  Vulkan (the encoder's failure, tests/torch_models.py): a budget that ends the passes at once,
  so the run is the load, the original's compile and the final check; its summary's "loading"
  part, and that part less torch alone: what the tool adds.

`--before DIR` runs the code of the checkout DIR the same way (interleaved, run by run), so the
two are measured under the same load; `--repeat N` reports the median of N runs of each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results

VULKAN = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"]

# torch's own share: its import, the load, and the decomposition `reduce`'s default import asks
# (`--torch-import`, oracles/torch/decompositions.py: the table read from there, the work torch's).
TORCH_ALONE = """import json, sys, time
def spent(): return time.perf_counter(), time.process_time()
t0 = spent()
import torch
t1 = spent()
program = torch.export.load(sys.argv[1])
t2 = spent()
from oracles.torch import DEFAULT_IMPORT
from oracles.torch.decompositions import table
program.run_decompositions(table(DEFAULT_IMPORT))
t3 = spent()
parts = {"import torch": (t0, t1), "torch.export.load": (t1, t2), "run_decompositions": (t2, t3)}
print(json.dumps({name: [b[0] - a[0], b[1] - a[1]] for name, (a, b) in parts.items()}))
"""


def export(path: Path, layers: int) -> Path:
    """The archive, written by a child process (this one never imports torch)."""
    code = f"from pathlib import Path; from tests import torch_models; torch_models.save_gpt(Path({str(path)!r}), layers={layers})"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                   capture_output=True)
    return path


def torch_alone(archive: Path, tree: Path) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", TORCH_ALONE, str(archive)], check=True, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def reduce_run(archive: Path, tree: Path, out: Path) -> dict:
    argv = [sys.executable, "-m", "reducer", str(archive), "--oracle=compile-error", "--no-cache", "--no-culprit",
            "--time-budget", "1", "--json", "-o", str(out), "--", *VULKAN]
    done = subprocess.run(argv, check=False, cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    summary = json.loads(done.stdout)
    if "parts" not in summary:
        raise SystemExit(f"reduce failed ({tree}): {summary.get('error', done.stderr[-2000:])}")
    return summary


def one_run(archive: Path, tree: Path, scratch: Path) -> dict[str, float]:
    alone = torch_alone(archive, tree)
    summary = reduce_run(archive, tree, scratch / "out.pt2")
    torch_wall = sum(wall for wall, _ in alone.values())
    loading = summary["parts"]["loading"]
    return {"loading": loading, "torch alone": torch_wall, "tool adds": loading - torch_wall,
            "original": summary["parts"]["original"], "nodes": summary["original"]["size"],
            **{f"{name} (wall, cpu)": f"{wall:.2f}, {cpu:.2f}" for name, (wall, cpu) in alone.items()}}


def median_row(label: str, runs: list[dict]) -> dict[str, str]:
    middle = sorted(runs, key=lambda run: run["tool adds"])[len(runs) // 2]
    row = {"code": label, "nodes": str(middle["nodes"])}
    for name in ("loading", "torch alone", "tool adds", "original"):
        row[f"{name} s"] = f"{middle[name]:.2f}"
    row["tool adds, every run"] = ", ".join(f"{run['tool adds']:.2f}" for run in runs)
    row.update({k: str(v) for k, v in middle.items() if k.endswith("(wall, cpu)")})
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="also measure the code of this checkout, interleaved")
    results.add_option(parser)
    args = parser.parse_args(argv)
    trees = [("before", args.before.resolve())] if args.before else []
    trees.append(("this", ROOT))
    runs: dict[str, list[dict]] = {label: [] for label, _ in trees}
    with tempfile.TemporaryDirectory(prefix="pt2-loading-") as scratch:
        archive = export(Path(scratch) / "gpt.pt2", args.layers)
        for _ in range(args.repeat):
            for label, tree in trees:
                runs[label].append(one_run(archive, tree, Path(scratch)))
    labels = {label: results.commit(tree) for label, tree in trees}
    rows = results.stream(median_row(labels[label], done) for label, done in runs.items())
    title = (f"a {args.layers}-block TinyGPT .pt2, median of {args.repeat} runs by what the tool adds; "
             f"load average {os.getloadavg()[0]:.1f} at the end")
    if args.results:
        results.write(__file__, [results.Table.of_dicts(rows, title)], argv=argv)
    print(title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
