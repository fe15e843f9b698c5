"""A wrong answer that only a dynamic size shows, end to end: measured, reduced twice, checked minimal.

    python bench/dynamic_minimality.py MODEL.onnx --inputs DATA \\
        --pipeline-a 'FLAGS' --pipeline-b 'FLAGS' [-j 2] [--sizes 1,2,3,4,8] [--out DIR]

For a dynamic ONNX model and the data that shows its wrong answer (--inputs, any format `reduce`
reads), with the two pipelines that disagree on it:

1. the original at the data's size, dynamic and made static at that size (does the bug need the
   dim dynamic?), and the dynamic model at each of --sizes on seeded data (which sizes fail);
2. `reduce` (uncached, --no-cache) of the ONNX model, and of its torch-onnx MLIR
   (`iree-import-onnx`), both with `miscompile` and the data: nodes / ops, bytes, calls, seconds;
3. each result checked 1-minimal by bench/minimality, apart from the reducer's passes: deleting
   any one node or op, bypassing it (its readers read a same-typed input) or halving any static
   dimension, each judged uncached with `miscompile` pinned to the original's wrong answer, must
   lose the failure.

One table per step is printed; --out keeps the results and a JSON record, --results writes the
tables to docs/results/dynamic_minimality.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench import results
from bench.minimality.judging import check_command
from oracles import Candidate, OracleOptions, Verdict, make_oracle
from oracles.inputs.attach import attach
from oracles.inputs.dims import sized_inputs, sizes_run_at
from oracles.inputs.readers import read_sources
from oracles.onnx.importer import onnx_oracle
from oracles.toolchain.tools import Limits
from reducer.graphs import onnx_model
from reducer.passes.onnx.pin_dims import pinned

ORACLE = "miscompile"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--inputs", action="append", required=True, help="the data that shows the wrong answer")
    parser.add_argument("--pipeline-a", required=True)
    parser.add_argument("--pipeline-b", required=True)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--sizes", default="1,2,3,4,5,8,16", help="sizes the dynamic model is also judged at")
    parser.add_argument("--out", type=Path, help="where the results go (default: a fresh temporary directory)")
    results.add_option(parser)
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="dynamic-"))
    out.mkdir(parents=True, exist_ok=True)
    options = OracleOptions(pipeline_a=shlex.split(args.pipeline_a), pipeline_b=shlex.split(args.pipeline_b),
                            limits=Limits(timeout_s=120))
    record: dict = {"model": str(args.model)}
    data = read_sources(args.inputs)
    original = attach(Candidate(args.model.name, (), ".onnx", args.model.read_bytes()), data)
    record["sizes"] = _sizes(original, options, [int(s) for s in args.sizes.split(",") if s])
    mlir = out / "model.mlir"
    subprocess.run(["iree-import-onnx", str(args.model), "-o", str(mlir)], check=True)
    record["reductions"] = {}
    for kind, source in (("onnx", args.model), ("mlir", mlir)):
        reduced = _reduce(source, args, out / f"{kind}.reduced{source.suffix}")
        if "output" in reduced:
            found = check_command(_command(source, args), Path(reduced["output"]))
            reduced["minimal"] = {"minimal": found.minimal, "cell": found.cell(), "seconds": round(found.seconds, 1)}
        record["reductions"][kind] = reduced
    (out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    notes, table = _size_lines(record), _reductions(record)
    print("\n".join(notes) + "\n\n" + table.markdown())
    print(f"results in {out}")
    if args.results:
        results.write(__file__, [table], notes, argv)
    return 0


def _judge(candidate: Candidate, options: OracleOptions, reference: Verdict | None = None) -> Verdict:
    oracle = make_oracle(ORACLE, options)
    oracle = onnx_oracle(oracle) if candidate.binary is not None else oracle
    return (oracle.calibrated(reference) if reference is not None else oracle).judge(candidate)


def _sizes(original: Candidate, options: OracleOptions, sizes: list[int]) -> dict:
    """The original at its data's size, dynamic and pinned static there; the dynamic model at each size."""
    run_at = sizes_run_at(original)
    static = pinned(onnx_model.parse(original.binary), run_at)
    rows = {"run_at": run_at, "dynamic": _judge(original, options).detail,
            "static": _judge(Candidate("static", (), ".onnx", onnx_model.serialise(static), original.data), options).detail
            if static is not None else "cannot be made static"}
    key = next(iter(run_at), None)
    rows["other_sizes"] = {}
    for size in sizes if key is not None else []:
        seeded = sized_inputs(Candidate("m", (), ".onnx", original.binary), {key: size}, seed=0)
        verdict = _judge(attach(Candidate("m", (), ".onnx", original.binary), seeded), options)
        rows["other_sizes"][size] = "wrong" if verdict.interesting else "right" if "agree" in verdict.detail else verdict.detail[:80]
    return rows


def _command(source: Path, args) -> list[str]:
    """The reduce command line of `source`, without its run options (-j, cache, output)."""
    return [str(source), f"--oracle={ORACLE}", f"--pipeline-a={args.pipeline_a}", f"--pipeline-b={args.pipeline_b}",
            *(f"--inputs={i}" for i in args.inputs)]


def _reduce(source: Path, args, output: Path) -> dict:
    argv = [sys.executable, "-m", "reducer", *_command(source, args), "-j", str(args.jobs), "--no-cache", "--json", "-o", str(output)]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}", "seconds": seconds}
    summary = json.loads(done.stdout)
    return {"output": str(output), "seconds": round(seconds, 1), "calls": summary["oracle_calls"],
            "before": summary["original"]["size"], "after": summary["reduced"]["size"],
            "bytes_before": summary["original"]["bytes"], "bytes_after": summary["reduced"]["bytes"],
            "sizes": summary["sizes"], "original_sizes": summary["original_sizes"], "failure": summary["failure"]}


def _size_lines(record: dict) -> list[str]:
    sizes = record["sizes"]
    return [f"the original at {sizes['run_at']}: dynamic -> {sizes['dynamic']}",
            f"made static there -> {sizes['static']}",
            "the dynamic model at other sizes (seeded data): " + ", ".join(f"{s}: {v}" for s, v in sizes["other_sizes"].items())]


def _reductions(record: dict) -> results.Table:
    columns = ["input", "before", "after", "bytes", "calls", "seconds", "sizes after", "1-minimal"]
    rows = []
    for kind, row in record["reductions"].items():
        if "error" in row:
            rows.append([kind, row["error"], *[""] * (len(columns) - 2)])
            continue
        verdict = row["minimal"]["cell"]
        rows.append([kind, row["before"], row["after"], f"{row['bytes_before']} -> {row['bytes_after']}", row["calls"],
                     f"{row['seconds']:.1f}", json.dumps(row["sizes"]), verdict])
    return results.Table(columns, rows, "the reductions (uncached), each result checked 1-minimal (bench/minimality):")

if __name__ == "__main__":
    sys.exit(main())
