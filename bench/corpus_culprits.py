"""Runs the culprit step on every corpus entry it applies to and records what it found there.

    python bench/corpus_culprits.py [--jobs 2] [--only NAME ...] [--update-readme] [--results]

For each `reproduces` entry of compile-error or crash (an ONNX import failure has no pass): the
failing pass and phase, the reduced one-pass repro (`pass.mlir`) and its lit test (`lit.mlir`)
are written into the entry and recorded in `entry.json` with the ops and the compiles and
seconds the step took; for lds-limit, the dispatch's configuration. Every figure is measured in
this run. `--update-readme` rewrites the tables between the markers in corpus/README.md;
`--results` writes them to docs/results/corpus_culprits.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from oracles import OracleOptions, make_oracle
from reducer.corpus_entries import (
    REPRODUCES,
    CorpusEntry,
    culprit_record,
    load_entries,
    write_entry,
)
from reducer.culprit import CULPRIT_ORACLES
from reducer.culprit_only import culprit_only
from reducer.session import Request
from reducer.user_error import UserError

ENTRIES = ROOT / "corpus" / "entries"
README = ROOT / "corpus" / "README.md"
BEGIN, END = "<!-- culprits:begin -->", "<!-- culprits:end -->"


def annotate(entry: CorpusEntry, jobs: int) -> CorpusEntry:
    """The entry with its culprit (or dispatch configuration) found now, files written."""
    options = OracleOptions(**entry.options, opset_version=entry.opset_version)
    with tempfile.TemporaryDirectory(prefix="culprit-") as tmp:
        base = Path(tmp) / f"repro{entry.input_path.suffix}"
        request = Request(entry.input_path, make_oracle(entry.oracle, options), list(entry.flags), base, [], jobs=jobs)
        found = culprit_only(request, base)
    if found.culprit is not None and not found.culprit.concluded:
        print(f"{entry.name}: did not conclude: {found.culprit.why}", file=sys.stderr)
    for name in ("pass.mlir", "lit.mlir"):
        (entry.directory / name).unlink(missing_ok=True)
    culprit = culprit_record(entry.directory, found.culprit)
    config = dataclasses.asdict(found.dispatch_config) if found.dispatch_config else None
    return dataclasses.replace(entry, culprit=culprit, dispatch_config=config)


def applies(entry: CorpusEntry) -> bool:
    return entry.state == REPRODUCES and (entry.oracle in CULPRIT_ORACLES or entry.oracle == "lds-limit")


def culprit_table(entries: list[CorpusEntry]) -> results.Table:
    table = results.Table(["entry", "pass", "phase", "one-pass repro ops", "compiler's reproducer ops", "source repro ops",
                           "compiles", "iree-opt calls", "seconds"])
    for entry in entries:
        c = entry.culprit
        if entry.oracle not in CULPRIT_ORACLES:
            continue
        if not c:
            reason = "import failure: no pass" if entry.signature.startswith("import:") else "did not conclude"
            table.rows.append([f"`{entry.name}`", f"- ({reason})", *["-"] * 7])
            continue
        source = f"{c['source_ops']}" + (" (1 node)" if entry.input_file.endswith(".onnx") else "")
        table.rows.append([f"`{entry.name}`", f"`{c['pass']}`", c["phase"], c["pass_repro_ops"], c["reproducer_ops"], source,
                           c["compiles"], c["reduction_calls"], f"{c['find_seconds']:.1f} + {c['reduction_seconds']:.1f}"])
    return table


def config_table(entries: list[CorpusEntry]) -> results.Table:
    table = results.Table(["entry", "dispatch", "pipeline", "workgroup size", "subgroup size", "root op", "tile sizes"],
                          title="LDS entries, the over-limit dispatch as configured:")
    for entry in entries:
        c = entry.dispatch_config
        if not c:
            continue
        tiles = ", ".join(f"{level} {sizes}" for level, sizes in c["tile_sizes"].items()) or c["lowering_config"]
        table.rows.append([f"`{entry.name}`", f"`{c['dispatch']}`", c["pipeline"], c["workgroup_size"], c["subgroup_size"],
                           f"`{c['root_op']}`", tiles])
    return table


def update_readme(text: str) -> None:
    readme = README.read_text()
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--update-readme", action="store_true")
    results.add_option(parser)
    args = parser.parse_args(argv)
    entries = load_entries(ENTRIES)
    for i, entry in enumerate(entries):
        if applies(entry) and (args.only is None or entry.name in args.only):
            try:
                entries[i] = annotate(entry, args.jobs)
            except UserError as err:
                print(f"{entry.name}: {err}", file=sys.stderr)
                continue
            write_entry(entries[i])
            print(f"{entry.name}: {entries[i].culprit or entries[i].dispatch_config}", file=sys.stderr, flush=True)
    tables = [culprit_table(entries), config_table(entries)]
    text = "\n".join(table.markdown() for table in tables).rstrip("\n")
    print(text)
    if args.update_readme:
        update_readme(text)
    if args.results:
        results.write(__file__, tables, argv=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
