"""IR symptoms at real model scale: a real Llama export reduced for its KV-cache copies, and the
seed-000 / seed-001 corpus originals, with the localisation figures.

    python bench/ir_symptoms_at_scale.py [--jobs 2] [--no-cache] [--only llama-every-kind ...]

Cases:
- `llama-every-kind`: `bench/data/toy_llama_paged.mlir.gz` (sharktank's toy Llama exported by
  `export_paged_llm_v1`: prefill and decode, the paged KV cache written in place, parameters by
  name; 5,037 ops; made by `bench/export_toy_llama.py`), `reduce --oracle=transient-copy` keeping
  every kind of copy / transient allocation the original shows at `--compile-to=stream`;
- `llama-keep-one`: the same with `--keep N`, N the first `slow_memcpy` transient -> transient in
  `decode_bs1` (what an engineer filing seed 000's issue wants);
- `llama-dispatch-count`: the same export, `--oracle=dispatch-count --threshold 2 --phase flow`
  (189 dispatches at flow): localisation keeps two dispatches in a row of one function;
- `seed-000`: `corpus/originals/kv_cache_step.mlir`, transient-copy (the corpus entry
  `kv-cache-context-transient-copies`);
- `seed-001`: `corpus/originals/classifier_head_tosa.mlir`, readwrite-constant (the entry
  `reduction-into-constant-readwrite`).

Every figure printed is measured in this run: ops before and after, wall seconds, CPU seconds (user + system of the reduce and
everything it ran), oracle calls
(cache hits in brackets), symptoms (and kinds) the original shows, ops after localisation and the
candidates it spent. `--no-cache` judges every candidate afresh (no verdict cache at all);
without it each run still starts from an empty cache of its own. The machine's load average at
the start and the end is printed with the table: wall times are only comparable on an idle one.
`--results` also writes the table to docs/results/ir_symptoms_at_scale.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from oracles import Candidate, make_oracle
from oracles.compiling.symptoms import METRIC, decode

LLAMA = ROOT / "bench" / "data" / "toy_llama_paged.mlir.gz"
ORIGINALS = ROOT / "corpus" / "originals"
KEEP_KIND, KEEP_FUNCTION = "slow_memcpy dispatch transient->transient", "decode_bs1"


def keep_number(path: Path) -> str:
    """The number the calibration gives the first slow_memcpy transient -> transient in decode (one compile)."""
    verdict = make_oracle("transient-copy").judge(Candidate(path.read_text()))
    for n, symptom in enumerate(decode(verdict.metrics.get(METRIC)), 1):
        if symptom.kind == KEEP_KIND and symptom.function == KEEP_FUNCTION:
            return str(n)
    raise SystemExit(f"{path.name}: no {KEEP_KIND} in {KEEP_FUNCTION}: {verdict.detail}")


def run_reduce(source: Path, oracle: str, extra: list[str], jobs: int, no_cache: bool, out: Path) -> dict:
    cache = ["--no-cache"] if no_cache else ["--cache-dir", str(out.parent / f"{out.stem}.cache")]
    command = [sys.executable, "-m", "reducer", str(source), f"--oracle={oracle}", "-j", str(jobs), "-q", "--json",
               "-o", str(out), *cache, *extra]
    before = _children_cpu()
    done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        record = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"status": "error", "error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    record["cpu_seconds"] = _children_cpu() - before
    return record


def _children_cpu() -> float:
    """User + system seconds of every waited-for descendant (the reduce, its compiles and workers):
    what a run costs whatever the load, unlike its wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


COLUMNS = ["case", "oracle", "ops", "seconds", "CPU seconds", "oracle calls (cache hits)", "symptoms in the original",
           "ops after localisation"]


def row(name: str, oracle: str, record: dict) -> list[str]:
    if record.get("status") != "reduced":
        return [name, oracle, f"failed: {record.get('error')}", *[""] * (len(COLUMNS) - 3)]
    symptoms = record.get("symptoms") or []
    kinds = len({line.split(". ", 1)[1].split(" in ")[0] for line in symptoms})
    localised = record.get("localised")
    where = f"{localised['size']} in {localised['candidates']} candidates" if localised else "none kept"
    return [name, oracle, f"{record['original']['size']} -> {record['reduced']['size']}", f"{record['seconds']:.1f}",
            f"{record['cpu_seconds']:.0f}", f"{record['oracle_calls']} ({record['cache_hits']})", f"{len(symptoms)} of {kinds} kinds", where]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument("--no-cache", action="store_true", help="pass --no-cache to every reduce")
    parser.add_argument("--only", nargs="*", help="case names to run (default: all)")
    results.add_option(parser)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    table = results.Table(COLUMNS)
    table.print_head()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        llama = work / "toy_llama_paged.mlir"
        llama.write_bytes(gzip.decompress(LLAMA.read_bytes()))
        cases = [
            ("llama-every-kind", llama, "transient-copy", list),
            ("llama-keep-one", llama, "transient-copy", lambda: ["--keep", keep_number(llama)]),
            ("llama-dispatch-count", llama, "dispatch-count", lambda: ["--threshold", "2", "--phase", "flow"]),
            ("seed-000", ORIGINALS / "kv_cache_step.mlir", "transient-copy", list),
            ("seed-001", ORIGINALS / "classifier_head_tosa.mlir", "readwrite-constant", list),
        ]
        for name, source, oracle, extra in cases:
            if args.only and name not in args.only:
                continue
            options = extra()
            record = run_reduce(source, oracle, options, args.jobs, args.no_cache, work / f"{name}.reduced.mlir")
            label = f"{oracle} {' '.join(options)}".strip()
            table.add(row(name, label, record))
    table.title = (f"-j {args.jobs}{', --no-cache' if args.no_cache else ''}; load average {load:.1f} at the start, "
                   f"{os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores")
    print(f"\n{table.markdown()}")
    if args.results:
        results.write(__file__, [table], argv=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
