"""Writes the documentation's tables from the code: `python docs/gen.py` (`--check`: only say which are stale;
`--sample`: also run the sample reductions the pages show, a few minutes).

The oracle table, the pass table, the fuzz pipelines, targets and features, the `reduce` and `fuzz`
option references, the files each command writes, the exit statuses, the corpus table and its counts,
the conformance counts and the troubleshooting list each come from the one place that declares them
(the registries, the argument parsers, the functions that name the output files,
oracles/refusals.py, corpus/entries/*/entry.json, the expectations file), so the docs cannot drift
from the code: the pages include these files, and tests/test_docs.py fails when one is stale. The
sample report and summaries come from real reductions (`--sample`); a nightly test checks them.
"""

from __future__ import annotations

import argparse
import json
import re
import string
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "docs" / "generated"
COMMAND = "python docs/gen.py"
if str(ROOT) not in sys.path:  # run as a script from anywhere: the project's packages come from this checkout
    sys.path.insert(0, str(ROOT))

from fuzz import cli as fuzz_cli
from fuzz.campaign import DB_NAME
from fuzz.campaign_report import REPORT_NAME
from fuzz.findings import NOT_REDUCED_NAME, RECORD_NAME, REDUCED_NAME, SPEC_NAME
from fuzz.generation.features import (
    BASE_PROBABILITY,
    EPILOGUE_FEATURES,
    OP_FEATURES,
    OWN_STREAM_FEATURES,
    SHAPE_FEATURES,
    TYPE_FEATURES,
)
from fuzz.pipelines import DEFAULT_PIPELINES, DEFAULT_TARGETS, GROUPS, PIPELINES
from fuzz.root_cause import corpus_groups
from fuzz.torch_gen.features import ATTENTION_FEATURES, BLOCK_FEATURES, SHARED_FEATURES, TORCH_BASE_PROBABILITY
from fuzz.triage import TEST_DATA_NAME, finding_directory
from oracles import refusals
from oracles.base import OracleOptions, mlir_path_for
from oracles.data.case_data import data_dir
from oracles.registry import ORACLE_TABLE, OracleRow
from oracles.toolchain.flags import GENERIC_CPU, GFX942
from oracles.torch.imported import script_path_for
from reducer import cli as reduce_cli
from reducer.corpus_entries import DATA_FILE, ENTRY_FILE, LIT_TEST_FILE, PASS_REPRO_FILE, load_entries
from reducer.culprit import lit_test_path, pass_repro_path
from reducer.formats.mlir_bytecode_input import text_path_for
from reducer.formats.registry import format_for
from reducer.localize.failure_site import dispatch_path
from reducer.localize.wrong_value import wrong_dispatch_path
from reducer.passes.kinds import InputKind
from reducer.passes.registry import PASSES
from reducer.storage.resume_state import state_path
from reducer.storage.verdict_store import DB_NAME as VERDICTS_NAME
from reducer.storage.verdict_store import default_cache_dir


def _header(source: str) -> str:
    return f"<!-- Generated from {source} by `{COMMAND}`: edit the source, not this file. -->\n"


def _cell(text: object) -> str:
    """Text that stays in one markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


# Options that let every oracle be made, to ask it what it compiles for when the flags name no target.
_ANY_OPTIONS = OracleOptions(threshold=1, phase="flow", pattern="x", cmd="true", pipeline_a=["--iree-opt-level=O1"],
                             pipeline_b=["--iree-opt-level=O2"])
_TARGETS = {GENERIC_CPU: "the generic CPU (llvm-cpu)", GFX942: "gfx942 (hip)"}


def _default_target(row: OracleRow) -> str:
    """What the oracle compiles for when the flags after `--` name no target, as its own flags say."""
    oracle = row.oracle(_ANY_OPTIONS)
    pipelines = oracle.run_pipelines([]) or [("", oracle.compile_flags([]), "")]
    targets = {tuple(f for f in flags if not f.startswith("--compile-to") and not f.startswith("--iree-opt-level"))
               for _, flags, _ in pipelines}
    return " / ".join(_TARGETS.get(t, " ".join(t) or "none: the command compiles") for t in sorted(targets))


def oracles_page() -> str:
    lines = [_header("oracles/registry.py (ORACLE_TABLE; the target: each oracle's compile flags)"),
             "| oracle | inputs | target when the flags name none | one call runs | interesting when |", "|---|---|---|---|---|"]
    lines += [f"| `{row.name}` | {_cell(row.inputs)} | {_default_target(row)} | {_cell(row.runs)} | {_cell(row.summary)} |"
              for row in ORACLE_TABLE]
    return "\n".join(lines) + "\n"


def _inputs(kinds: frozenset[InputKind]) -> str:
    return ", ".join(kind.value for kind in InputKind if kind in kinds)


def passes_page() -> str:
    lines = [_header("reducer/passes/registry.py (PASSES)"),
             ("In the order they run, to a fixpoint; an input runs the rows whose inputs hold its kind (a compile-only "
              "row only for an oracle that does not run the module, unless named with `--passes`)."), "",
             "| # | pass | reduces | search | inputs | what it does |", "|---|---|---|---|---|---|"]
    lines += [f"| {i} | `{row.name}` | {_cell(row.reduces)} | {row.search.value} | {_inputs(row.inputs)} | {_cell(row.description)} |"
              for i, row in enumerate(PASSES, 1)]
    return "\n".join(lines) + "\n"


def pipelines_page() -> str:
    lines = [_header("fuzz/pipelines.py (PIPELINES, GROUPS, DEFAULT_PIPELINES, DEFAULT_TARGETS)"),
             (f"Default pipelines: {', '.join(map(_code, DEFAULT_PIPELINES))}; default GPU targets: "
             f"{', '.join(map(_code, DEFAULT_TARGETS))}."), "",
             "| name | kind | runs on | what it is | flags |", "|---|---|---|---|---|"]
    for p in PIPELINES.values():
        if any(p.name in members for members in GROUPS.values()):
            continue
        kind = "GPU target" if p.gpu else "pipeline"
        lines.append(f"| `{p.name}` | {kind} | `{p.driver}` | {_cell(p.description)} | {_code(' '.join(p.flags))} |")
    for group, members in GROUPS.items():
        lines += ["", f"The group `{group}` stands for {len(members)} pipelines:", "",
                  "| name | what it is | flags |", "|---|---|---|"]
        lines += [f"| `{name}` | {_cell(PIPELINES[name].description)} | {_code(' '.join(PIPELINES[name].flags))} |"
                  for name in members]
    return "\n".join(lines) + "\n"


def _default_shown(action: argparse.Action) -> str:
    # The cache directory follows $XDG_CACHE_HOME and the home directory: name the rule, not this machine's path.
    if isinstance(action.default, Path) and action.default.is_relative_to(default_cache_dir()):
        below = action.default.relative_to(default_cache_dir()).as_posix().replace(".", "")
        below = f"/{below}" if below else ""
        return f"~/.cache/iree-reduce-fuzz{below}, or $XDG_CACHE_HOME/iree-reduce-fuzz{below}"
    return str(action.default)


def _argument(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices:
        return "{" + ",".join(map(str, action.choices)) + "}"
    name = str(action.metavar or action.dest.upper())
    return f"{name} (optional)" if action.nargs == "?" and action.option_strings else name


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    lines = ["| option | argument | what it does |", "|---|---|---|"]
    for action in parser._actions:  # argparse keeps its actions here; there is no public list
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(action.option_strings) or action.dest
        help_text = (action.help or "") % {"default": _default_shown(action), "prog": parser.prog}
        lines.append(f"| `{name}` | {_code(_argument(action))} | {_cell(help_text)} |")
    return lines


def reduce_options_page() -> str:
    parser = reduce_cli.build_parser()
    lines = [_header("reducer/cli.py (build_parser)"), (f"`{parser.prog} INPUT --oracle=NAME [options] [-- iree-compile flags]`: "
             f"{parser.description}"), ""]
    return "\n".join(lines + _options_table(parser)) + "\n"


def fuzz_options_page() -> str:
    parser = fuzz_cli.build_parser()
    lines = [_header("fuzz/cli.py (build_parser)"), f"`{parser.prog} COMMAND [options]`: {parser.description}", ""]
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    for name, sub in commands.choices.items():
        lines += [f"### `fuzz {name}`", "", f"{helps.get(name, '')}.", ""]
        lines += _options_table(sub) if len(sub._actions) > 1 else ["No options."]
        lines.append("")
    return "\n".join(lines)


def _target(entry: dict) -> str:
    """The flags that say where an entry compiles (and, for two pipelines, both)."""
    options = entry.get("options", {})
    if options.get("pipeline_a") or options.get("pipeline_b"):
        return "A: " + _code(" ".join(options.get("pipeline_a", []))) + "<br>B: " + _code(" ".join(options.get("pipeline_b", [])))
    return _code(" ".join(entry.get("flags", []))) or "none: the oracle's default target"


def _oracle(entry: dict) -> str:
    options = {k: v for k, v in entry.get("options", {}).items() if k not in ("pipeline_a", "pipeline_b", "device_a", "device_b")}
    spelled = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sorted(options.items()) if v not in (None, False, "", []))
    return _code(entry["oracle"]) + (f" {_code(spelled)}" if spelled else "")


def corpus_page(entries_dir: Path = ROOT / "corpus" / "entries") -> str:
    entries = [json.loads(path.read_text()) for path in sorted(entries_dir.glob("*/entry.json"))]
    same = _same_bug(entries_dir)
    lines = [_header("corpus/entries/*/entry.json"), f"{len(entries)} entries.", "",
             ("\"Same bug as\" names the entries with the same root-cause key (target, failing pass and error; a wrong "
             "answer's op, pipeline and dtype: fuzz/root_cause.py): one bug reached through another graph."), "",
             ("\"Since when\" is the entry's `fails_since`: its repro judged under the IREE releases by bisection "
              "(bench/corpus_releases.py; [Since when](reduce/releases.md))."), "",
             "| entry | oracle | flags / target | state | what fails | since when | same bug as |", "|---|---|---|---|---|---|---|"]
    lines += [f"| `{e['name']}` | {_oracle(e)} | {_target(e)} | {e.get('state', '')} | {_cell(e.get('description', ''))} | "
              f"{_cell((e.get('fails_since') or {}).get('summary', '-'))} | "
              f"{', '.join(f'`{n}`' for n in same.get(e['name'], [])) or '-'} |" for e in entries]
    return "\n".join(lines) + "\n"


def _same_bug(entries_dir: Path) -> dict[str, list[str]]:
    """Each entry's fellow entries under one root-cause key."""
    groups = corpus_groups(load_entries(entries_dir))
    return {name: [other for other in names if other != name] for names in groups.values() if len(names) > 1 for name in names}


def _spelled(template: str) -> str:
    """A template with each field as <field>: the message as the user sees it, its variable parts named."""
    parts = []
    for literal, name, _, conversion in string.Formatter().parse(template):
        parts.append(literal)
        if name is not None:
            parts.append(f"'<{name}>'" if conversion == "r" else f"<{name}>")
    return "".join(parts)


def troubleshooting_page() -> str:
    lines = [_header("oracles/refusals.py (CATALOGUE)")]
    for topic in refusals.TOPICS:
        entries = [r for r in refusals.CATALOGUE if r.topic == topic]
        lines += [f"## {topic}", ""]
        for entry in entries:
            status = f" Exit status {entry.exit_code}." if entry.exit_code != 1 else ""
            lines += [f"### {entry.id}", "", "```text", _spelled(entry.template), "```", "",
                      f"**Cause.** {entry.cause}{status}", "", f"**What to do.** {entry.action}", ""]
    return "\n".join(lines)


# --- The files each command writes, and the exit statuses --------------------------------------------

def _named(path: str | Path) -> str:
    return f"`{path}`"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def reduce_outputs_page() -> str:
    """Every file `reduce` writes, named by the functions that name them (for `bug.mlir` and its kin)."""
    out = format_for("bug.mlir").default_output(Path("bug.mlir"))
    onnx_out = format_for("model.onnx").default_output(Path("model.onnx"))
    pt2_out = format_for("model.pt2").default_output(Path("model.pt2"))
    bc_out = format_for("bug.mlirbc").default_output(Path("bug.mlirbc"))
    rows = [
        (_named(out), "always (`-o PATH` names it)", "the reduced input, rewritten after every improvement; the input itself is never modified"),
        (f"{_named(onnx_out)}, {_named(pt2_out)}, {_named(bc_out)}", "an ONNX model, a `.pt2` program, MLIR bytecode",
         "the result in the input's own format"),
        (_named(mlir_path_for(str(onnx_out))), "`.onnx` and `.pt2` input", "what the result imports to: the MLIR the printed "
         "`iree-compile` command compiles"),
        (_named(script_path_for(str(pt2_out))), "`.pt2` input", "a standalone script: torch and the IREE wheels alone show the "
         "failure; it exits 1 while the failure shows"),
        (_named(text_path_for(bc_out)), "`.mlirbc` input", "the bytecode result as text"),
        (_named(dispatch_path(out)), "the failure sits in one dispatch", "that dispatch alone, as a `hal.executable`, "
         "with its own `iree-compile --compile-mode=hal-executable` command in the summary"),
        (_named(pass_repro_path(out)), "`compile-error`, `crash` (`--culprit`, on by default)",
         "the IR in front of the failing pass, reduced; `iree-opt` with that one pass shows the failure"),
        (_named(lit_test_path(out)), "likewise", "a lit test of it (`// RUN: iree-opt ...`, `expected-error`; a crash's is `XFAIL`)"),
        (_named(f"{data_dir(out)}/"), "a data oracle (`miscompile`, `reference-mismatch`, `eager-mismatch`, `run-error`)",
         "the result's inputs (`argI.npy`; ONNX: `test_data_set_0/`), read by the printed commands"),
        (_named(f"{wrong_dispatch_path(out)}/"), "a wrong answer", "the dispatch-level test: `test.mlir`, its inputs and "
         "expected outputs, and the commands that run it"),
        (_named(state_path(out)), "while it runs; removed when it finishes", "the state `--resume` continues from"),
        ("the `--report` path", "`--report PATH`", "an issue-ready markdown report ([Filing an IREE issue](filing.md))"),
        (f"`corpus/entries/NAME/`: {_named(ENTRY_FILE)}, `repro.*`, {_named(PASS_REPRO_FILE)}, {_named(LIT_TEST_FILE)}, "
         f"{_named(DATA_FILE)}", "`--save-to-corpus NAME` (`--corpus-dir DIR` moves it)", "a corpus entry ([Corpus](corpus.md))"),
        (f"`~/.cache/iree-reduce-fuzz/{VERDICTS_NAME}`", "unless `--no-cache` (`--cache-dir DIR` moves it)",
         "verdicts kept across runs"),
        ("`~/.cache/iree-reduce-fuzz/releases/`", "`--releases`, `--releases-only` (`--releases-cache DIR` moves it)",
         "one environment per IREE release judged"),
    ]
    lines = [_header("the functions that name each file (reducer/formats/, reducer/culprit.py, reducer/localize/, "
                     "oracles/data/case_data.py, reducer/storage/)"),
             "| file | written when | what it holds |", "|---|---|---|"]
    lines += [f"| {name} | {when} | {what} |" for name, when, what in rows]
    return "\n".join(lines) + "\n"


def fuzz_outputs_page() -> str:
    """The layout of a campaign directory, from the names fuzz/ writes."""
    finding = finding_directory(Path("OUT"), "a signature").relative_to("OUT")
    rows = [
        (f"`OUT/{DB_NAME}`", "`fuzz run`, `fuzz nightly`", "every case, finding, reduction and coverage record (SQLite); "
         "`fuzz show` and `fuzz report` read it"),
        (f"`OUT/{finding.parent.as_posix()}/<id>/`", "a finding", f"one directory per distinct finding (`<id>`: 12 hex "
         f"digits of its signature): `{RECORD_NAME}`, `{SPEC_NAME}` (the drawn graph), `model.onnx` and its "
         f"`{TEST_DATA_NAME}/`"),
        (f"`OUT/{finding.parent.as_posix()}/<id>/{REDUCED_NAME}`, `reduced.mlir`, `command.txt`, `report.md`",
         "the finding was reduced", "the reduced repro, its import, the command that reproduces it and an issue-ready report"),
        (f"`OUT/{finding.parent.as_posix()}/<id>/{NOT_REDUCED_NAME}`", "the reduction failed or was refused", "why"),
        ("`OUT/corpus/NAME/`", "the finding was reduced", "its corpus entry, ready to copy into `corpus/entries/`"),
        (f"`OUT/{REPORT_NAME}`", "`fuzz report OUT` (`-o PATH` moves it), `fuzz nightly`", "one self-contained page: plots "
         "and a section per root cause"),
        ("`OUT/summary.md`", "`fuzz nightly`", "new root causes, known ones seen again, since when each fails, corpus "
         "entries that changed state"),
    ]
    lines = [_header("fuzz/campaign.py, fuzz/findings.py, fuzz/triage.py, fuzz/campaign_report.py"),
             "| path | written when | what it holds |", "|---|---|---|"]
    lines += [f"| {name} | {when} | {what} |" for name, when, what in rows]
    return "\n".join(lines) + "\n"


def exit_codes_page() -> str:
    lines = [_header("oracles/refusals.py (EXIT_STATUSES, and each refusal's exit_code)"),
             "| status | command | means | refusals that end with it |", "|---|---|---|---|"]
    for status in refusals.EXIT_STATUSES:
        ids = [r.id for r in refusals.CATALOGUE if r.exit_code == status.code and status.code != refusals.EXIT_REFUSED
               and "reduce" in status.commands]
        named = ", ".join(f"[`{i}`](troubleshooting.md#{i})" for i in ids) or ("every other one" if status.code == refusals.EXIT_REFUSED else "-")
        lines.append(f"| {status.code} | {status.commands} | {_cell(status.meaning)} | {named} |")
    return "\n".join(lines) + "\n"


# --- fuzz --require, and the counts the user pages state -----------------------------------------------

def features_page() -> str:
    groups = {"ops": OP_FEATURES, "shapes": SHAPE_FEATURES, "epilogues": EPILOGUE_FEATURES,
              "element types": TYPE_FEATURES, "other": tuple(f for f in OWN_STREAM_FEATURES if f not in TYPE_FEATURES)}
    lines = [_header("fuzz/generation/features.py"), "| group | feature (chance a case draws it, before feedback) |", "|---|---|"]
    lines += [f"| {group} | {', '.join(f'`{f}` ({BASE_PROBABILITY[f]:.0%})' for f in names)} |" for group, names in groups.items()]
    return "\n".join(lines) + "\n"


def torch_features_page() -> str:
    """The PyTorch front end's catalogue (fuzz/torch_gen/features.py), as the ONNX one's page is made."""
    groups = {"blocks": BLOCK_FEATURES, "shapes, finishes, types": SHARED_FEATURES, "attention": ATTENTION_FEATURES}
    lines = [_header("fuzz/torch_gen/features.py"), "| group | feature (chance a case draws it, before feedback) |", "|---|---|"]
    lines += [f"| {group} | {', '.join(f'`{f}` ({TORCH_BASE_PROBABILITY[f]:.0%})' for f in names)} |" for group, names in groups.items()]
    return "\n".join(lines) + "\n"


_WRONG = ("miscompile", "reference-mismatch", "eager-mismatch")
_GPU_DRIVERS = ("cuda", "hip", "vulkan")


def corpus_counts_page(entries_dir: Path = ROOT / "corpus" / "entries") -> str:
    """One sentence of counts that the corpus page includes: never typed by hand."""
    entries = [json.loads(path.read_text()) for path in sorted(entries_dir.glob("*/entry.json"))]
    by = {name: sum(e["oracle"] == name for e in entries) for name in {e["oracle"] for e in entries}}
    wrong = sum(by.get(name, 0) for name in _WRONG)
    gpu = sum(any(d in _GPU_DRIVERS for d in e.get("devices") or []) for e in entries)
    pt2 = sum(str(e.get("input_file", "")).endswith(".pt2") for e in entries)
    fixed = sum(e.get("state") == "fixed" for e in entries)
    ir = sum(by.get(n, 0) for n in ("transient-copy", "readwrite-constant", "dispatch-count", "ir-match"))
    parts = [_count(by.get("compile-error", 0), "compile error"), _count(by.get("crash", 0), "crash", "crashes"),
             _count(by.get("timeout", 0), "hang"), f"{by.get('lds-limit', 0)} over a GPU's shared memory",
             _count(ir, "IR symptom"), f"{_count(wrong, 'wrong answer')} ({gpu} of them only a GPU computes)",
             _count(by.get("run-error", 0), "run error")]
    return (_header("corpus/entries/*/entry.json") + f"The corpus holds **{_count(len(entries), 'entry', 'entries')}**: "
            f"{', '.join(parts)}; {_count(pt2, 'is a PyTorch program', 'are PyTorch programs')} (`.pt2`), "
            f"{_count(fixed, 'is', 'are')} marked fixed.\n")


def conformance_counts_page(path: Path = ROOT / "tests" / "onnx_conformance_expectations.json") -> str:
    expected = json.loads(path.read_text())
    lists = {k.removeprefix("expected_").replace("_", " "): len(v) for k, v in expected.items() if k.startswith("expected_")}
    total = sum(lists.values())
    return (_header("tests/onnx_conformance_expectations.json") + f"The expectations file lists **{total} node tests** IREE "
            f"{_iree_release()} does not pass: {', '.join(f'{n} {kind}' for kind, n in lists.items())}.\n")


def _iree_release() -> str:
    pins = [line for line in (ROOT / "pyproject.toml").read_text().splitlines() if "iree-base-compiler==" in line]
    return pins[0].split("==")[1].split('"')[0] if pins else "?"


# --- The sample report: a real reduction, run by `python docs/gen.py --sample` and checked by a test -----

# A MatMul of a 4-D tensor by a vector, as the fuzzer found it (the corpus entry
# fuzz-matmul-4d-by-vector-not-legalized), with an Add and a Relu after it: IREE fails it on every target.
SAMPLE_ARGS = ["model.onnx", "--oracle=compile-error", "-j", "1", "--no-cache", "--report", "bug.md", "--",
               "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
SAMPLE_PAGES = ("sample-report.md", "sample-summary.md", "shipped-summary.md")
# The README's first command, on a copy of the shipped example (uncached, two jobs: a 2-core machine).
SHIPPED = ROOT / "examples" / "qdq_conv_lds_overrun.mlir"
SHIPPED_ARGS = [SHIPPED.name, "--oracle=lds-limit", "-j", "2", "--no-cache"]


def write_sample_model(path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(nodes, "scorer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 64, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 64])],
                              [numpy_helper.from_array(np.array([1, 2, 3], np.float32), "w"),
                               numpy_helper.from_array(np.ones([64], np.float32), "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


def _reduce(args: list[str], workdir: Path) -> str:
    """`reduce ARGS` run in `workdir` with this checkout's code; its summary (stdout)."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "reducer", *args], cwd=workdir, env=env, capture_output=True,
                         text=True, timeout=1800, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"reduce {' '.join(args)} failed ({run.returncode}): {run.stderr[-2000:]}")
    return run.stdout.strip()


def sample_pages(workdir: Path, shipped: bool = True) -> dict[str, str]:
    """Reduces the sample model (and the shipped example) in `workdir` with the real tools: the
    report and the summaries as pages."""
    write_sample_model(workdir / "model.onnx")
    summary = _reduce(SAMPLE_ARGS, workdir)
    header = _header(f"a real reduction: `{COMMAND} --sample` runs `reduce {' '.join(SAMPLE_ARGS)}`")
    pages = {"sample-report.md": f"{header}\n````markdown\n{(workdir / 'bug.md').read_text().strip()}\n````\n",
             "sample-summary.md": f"{header}\n```text\n$ reduce {' '.join(SAMPLE_ARGS)}\n{summary}\n```\n"}
    if shipped:
        (workdir / SHIPPED.name).write_bytes(SHIPPED.read_bytes())
        pages["shipped-summary.md"] = shipped_page(_reduce(SHIPPED_ARGS, workdir))
    return pages


def shipped_page(summary: str) -> str:
    """The shipped example's summary as Getting started shows it: its wall time is the machine's, and
    the performance page has it measured on an idle one."""
    summary = re.sub(r"(?m)^(  wall time\s+).*$", r"\1(the machine's: the performance page has it measured)", summary)
    header = _header(f"a real reduction: `{COMMAND} --sample` runs `reduce {' '.join(SHIPPED_ARGS)}` in a copy of examples/")
    return f"{header}\n```text\n$ reduce {' '.join(SHIPPED_ARGS)}\n{summary}\n```\n"


def comparable(page: str) -> str:
    """A sample page with what differs from run to run taken out: seconds, and the calls that
    idle workers' guesses add with more than one job."""
    page = re.sub(r"(wall time\s+).*", r"\1...", page)
    page = re.sub(r"(oracle calls\s+).*", r"\1...", page)
    return re.sub(r"\d+(\.\d+)? s\b", "N s", page)


PAGES: dict[str, Callable[[], str]] = {
    "oracles.md": oracles_page,
    "passes.md": passes_page,
    "pipelines.md": pipelines_page,
    "reduce-options.md": reduce_options_page,
    "fuzz-options.md": fuzz_options_page,
    "corpus.md": corpus_page,
    "troubleshooting.md": troubleshooting_page,
    "reduce-outputs.md": reduce_outputs_page,
    "fuzz-outputs.md": fuzz_outputs_page,
    "exit-codes.md": exit_codes_page,
    "features.md": features_page,
    "torch-features.md": torch_features_page,
    "corpus-counts.md": corpus_counts_page,
    "conformance-counts.md": conformance_counts_page,
}


def pages() -> dict[str, str]:
    """Every generated page: file name -> markdown."""
    return {name: make() for name, make in PAGES.items()}


def stale(directory: Path = GENERATED, fresh: dict[str, str] | None = None) -> list[str]:
    """The generated pages in `directory` that differ from what the code says now (or are missing)."""
    fresh = pages() if fresh is None else fresh
    return [name for name, text in fresh.items()
            if not (directory / name).is_file() or (directory / name).read_text() != text]


def write(directory: Path = GENERATED) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages().items():
        (directory / name).write_text(text)
        written.append(directory / name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the stale pages")
    parser.add_argument("--sample", action="store_true", help="also run the sample reduction and write its report and summary "
                        "(a minute or two)")
    args = parser.parse_args(argv)
    if args.check:
        names = stale()
        for name in names:
            print(f"docs/generated/{name} is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if names else 0
    for path in write():
        print(f"wrote {path.relative_to(ROOT)}")
    if args.sample:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            for name, text in sample_pages(Path(tmp)).items():
                (GENERATED / name).write_text(text)
                print(f"wrote docs/generated/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
