"""Writes the documentation's tables from the code: `python docs/gen.py` (`--check`: only say which are stale).

The oracle table, the pass table, the fuzz pipelines and targets, the `reduce` and `fuzz` option
references, the corpus table and the troubleshooting list each come from the one place that
declares them (the registries, the argument parsers, corpus/entries/*/entry.json,
oracles/refusals.py), so the docs cannot drift from the code: the pages include these files,
and tests/test_docs.py fails when one is stale.
"""

from __future__ import annotations

import argparse
import json
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
from fuzz.pipelines import DEFAULT_PIPELINES, DEFAULT_TARGETS, GROUPS, PIPELINES
from fuzz.root_cause import corpus_groups
from oracles import refusals
from oracles.registry import ORACLE_TABLE
from reducer import cli as reduce_cli
from reducer.corpus_entries import load_entries
from reducer.passes.kinds import InputKind
from reducer.passes.registry import ONE_PASS_REPRO_PASSES, PASSES
from reducer.storage.verdict_store import default_cache_dir


def _header(source: str) -> str:
    return f"<!-- Generated from {source} by `{COMMAND}`: edit the source, not this file. -->\n"


def _cell(text: object) -> str:
    """Text that stays in one markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def oracles_page() -> str:
    lines = [_header("oracles/registry.py (ORACLE_TABLE)"),
             "| oracle | inputs | one call runs | interesting when |", "|---|---|---|---|"]
    lines += [f"| `{row.name}` | {_cell(row.inputs)} | {_cell(row.runs)} | {_cell(row.summary)} |" for row in ORACLE_TABLE]
    return "\n".join(lines) + "\n"


def _inputs(kinds: frozenset[InputKind]) -> str:
    return ", ".join(kind.value for kind in InputKind if kind in kinds)


def passes_page() -> str:
    lines = [_header("reducer/passes/registry.py (PASSES, ONE_PASS_REPRO_PASSES)"),
             "In the order they run, to a fixpoint; an input runs the rows whose inputs hold its kind.", "",
             "| # | pass | reduces | search | inputs | what it does |", "|---|---|---|---|---|---|"]
    lines += [f"| {i} | `{row.name}` | {_cell(row.reduces)} | {row.search.value} | {_inputs(row.inputs)} | {_cell(row.description)} |"
              for i, row in enumerate(PASSES, 1)]
    lines += ["", "A one-pass repro (the IR in front of a failing pass) also runs:", "",
              "| pass | reduces | search | inputs | what it does |", "|---|---|---|---|---|"]
    lines += [f"| `{row.name}` | {_cell(row.reduces)} | {row.search.value} | {_inputs(row.inputs)} | {_cell(row.description)} |"
              for row in ONE_PASS_REPRO_PASSES]
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
    return str(action.metavar or action.dest.upper())


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


PAGES: dict[str, Callable[[], str]] = {
    "oracles.md": oracles_page,
    "passes.md": passes_page,
    "pipelines.md": pipelines_page,
    "reduce-options.md": reduce_options_page,
    "fuzz-options.md": fuzz_options_page,
    "corpus.md": corpus_page,
    "troubleshooting.md": troubleshooting_page,
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
    args = parser.parse_args(argv)
    if args.check:
        names = stale()
        for name in names:
            print(f"docs/generated/{name} is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if names else 0
    for path in write():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
