"""A wrong answer that only a dynamic size shows, end to end: measured, reduced twice, checked minimal.

    python bench/dynamic_minimality.py MODEL.onnx --inputs DATA \\
        --pipeline-a 'FLAGS' --pipeline-b 'FLAGS' [-j 2] [--sizes 1,2,3,4,8] [--out DIR]

For a dynamic ONNX model and the data that shows its wrong answer (--inputs, any format `reduce`
reads), with the two pipelines that disagree on it:

1. the original at the data's size, dynamic and made static at that size (does the bug need the
   dim dynamic?), and the dynamic model at each of --sizes on seeded data (which sizes fail);
2. `reduce` (uncached, --no-cache) of the ONNX model, and of its torch-onnx MLIR
   (`iree-import-onnx`), both with `miscompile` and the data: nodes / ops, bytes, calls, seconds;
3. each result checked locally minimal: removing any one node (ONNX: onnx-remove-nodes' edits;
   MLIR: each op turned into an argument, replace-with-argument), bypassing it (its users read its
   same-typed input: onnx-bypass-nodes, replace-with-operand) or halving any static dimension (the
   shape pass of its kind) must lose the failure.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench import results
from oracles import Candidate, OracleOptions, Verdict, make_oracle
from oracles.candidate import CandidateRejected
from oracles.data.binding import UserArray, UserData
from oracles.inputs.attach import attach
from oracles.inputs.dims import sized_inputs, sizes_run_at
from oracles.inputs.readers import read_sources
from oracles.mlir import ir as irx
from oracles.onnx.importer import import_model, onnx_oracle
from oracles.toolchain.tools import Limits
from reducer.graphs import onnx_model
from reducer.passes.onnx.pin_dims import pinned
from reducer.passes.registry import pass_by_name
from reducer.proposal import Proposal

ORACLE = "miscompile"
# The single edits a locally minimal result must lose its failure to, per input kind: each node (op)
# removed (its value a new input or argument) and bypassed (its users reading its same-typed input).
SINGLE_EDITS = {"onnx": (("removal", "onnx-remove-nodes"), ("bypass", "onnx-bypass-nodes")),
                "mlir": (("removal", "replace-with-argument"), ("bypass", "replace-with-operand"))}


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
        start = original if kind == "onnx" else attach(Candidate(mlir.read_text()), data)
        reduced["minimal"] = _minimality(reduced, kind, original, _judge(start, options), options)
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


def _reduce(source: Path, args, output: Path) -> dict:
    argv = [sys.executable, "-m", "reducer", str(source), f"--oracle={ORACLE}", "--pipeline-a", args.pipeline_a,
            "--pipeline-b", args.pipeline_b, *(f"--inputs={i}" for i in args.inputs), "-j", str(args.jobs), "--no-cache",
            "--json", "-o", str(output)]
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


def _result(reduced: dict, kind: str, original: Candidate) -> Candidate:
    """The reduced case with the data it runs on: an ONNX result keeps the original's tensors by name
    (and what the original computes at each, for inputs a cut made); an MLIR result its written data."""
    path = Path(reduced["output"])
    if kind == "onnx":
        return Candidate(path.name, (), ".onnx", path.read_bytes(), original.data)
    program = Candidate(path.read_text())
    written = sorted(Path(f"{path}.data").glob("arg*.*"), key=lambda p: int(p.stem.removeprefix("arg")))
    if not written:
        return program
    arrays = read_sources([str(p) for p in written if p.suffix == ".npy"]).inputs
    return attach(program, UserData(tuple(UserArray(a.value, a.source, f"arg{i}") for i, a in enumerate(arrays))))


def _minimality(reduced: dict, kind: str, original: Candidate, reference: Verdict, options: OracleOptions) -> dict:
    """Each single removal and halving of the result, judged as the reduction judged its candidates:
    wrong the original's way (`reference`, the original's verdict)."""
    if "output" not in reduced:
        return {}
    result = _result(reduced, kind, original)
    again = _judge(result, options, reference)
    if not again.interesting:
        return {"error": f"the result does not fail when judged again: {again.detail}"}
    ctx = irx.new_context()
    proposal = Proposal(result, reduced["after"])
    kept, tried = [], {}
    for edit, name in SINGLE_EDITS[kind]:
        single = pass_by_name(name).impl
        tried[edit] = 0
        for i in range(single.count(proposal, ctx)):
            candidate = _unless_rejected(single.apply, proposal, [i], ctx)
            if candidate is not None:
                tried[edit] += 1
                if _judge(candidate.candidate, options, reference).interesting:
                    kept.append(f"{edit} {i}")
    shrink = pass_by_name("shrink-shapes" if kind == "onnx" else "shrink-torch-onnx-shapes").impl
    with tempfile.TemporaryDirectory() as scratch:
        def convert(model_bytes: bytes) -> str | None:
            return import_model(model_bytes, Path(scratch), options.limits)[0]

        halvings = 0
        for key, size in shrink.dimensions(proposal, ctx):
            candidate = _unless_rejected(shrink.resize, proposal, key, size // 2, ctx, convert) if size > 1 else None
            if candidate is not None:
                halvings += 1
                if _judge(candidate.candidate, options, reference).interesting:
                    kept.append(f"halving {key}")
    return {"removals": tried["removal"], "bypasses": tried["bypass"], "halvings": halvings, "keep_the_failure": kept,
            "minimal": not kept}


def _unless_rejected(edit: Callable[..., Proposal | None], *args: Any) -> Proposal | None:
    """A pass's edit called directly, as the reducer's problem runs it: a candidate a tool (the
    verifier, the checker) rejects is none."""
    try:
        return edit(*args)
    except CandidateRejected:
        return None


def _size_lines(record: dict) -> list[str]:
    sizes = record["sizes"]
    return [f"the original at {sizes['run_at']}: dynamic -> {sizes['dynamic']}",
            f"made static there -> {sizes['static']}",
            "the dynamic model at other sizes (seeded data): " + ", ".join(f"{s}: {v}" for s, v in sizes["other_sizes"].items())]


def _reductions(record: dict) -> results.Table:
    columns = ["input", "before", "after", "bytes", "calls", "seconds", "sizes after", "locally minimal"]
    rows = []
    for kind, row in record["reductions"].items():
        if "error" in row:
            rows.append([kind, row["error"], *[""] * (len(columns) - 2)])
            continue
        minimal = row["minimal"]
        verdict = minimal.get("error") or (f"yes ({minimal['removals']} removals, {minimal.get('bypasses', 0)} bypasses, "
                                            f"{minimal['halvings']} halvings lose it)"
                                            if minimal["minimal"] else f"NO: {', '.join(minimal['keep_the_failure'])}")
        rows.append([kind, row["before"], row["after"], f"{row['bytes_before']} -> {row['bytes_after']}", row["calls"],
                     f"{row['seconds']:.1f}", json.dumps(row["sizes"]), verdict])
    return results.Table(columns, rows, "the reductions (uncached), each result checked locally minimal:")

if __name__ == "__main__":
    sys.exit(main())
