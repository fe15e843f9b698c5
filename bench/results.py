"""A benchmark's results as a markdown file the docs include: `docs/results/<script>.md`.

Every `bench/` script prints its tables; with `--results` it also writes them here, headed by
where they come from (the machine's CPU and cores, the date, the IREE version, the commit and the
exact command line), and docs/performance.md includes the file. So a figure on the page is the
last run of the command beside it, and the file's git history is the history of the figure.
Writing is a choice (`--results`), not the default: a quick or trial run (CI's dry run, a test,
`--only` one case) must not replace the measurement the docs show.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
OPTION = "--results"


def add_option(parser: argparse.ArgumentParser) -> None:
    """`--results`: the same option, with the same help, in every script."""
    parser.add_argument(OPTION, action="store_true",
                        help="also write the tables to docs/results/SCRIPT.md, headed by the machine, date, IREE version, "
                             "commit and this command line (docs/performance.md includes that file)")


# --- Markdown -------------------------------------------------------------------------------------

def cell(value: object) -> str:
    """A value that stays in one markdown table cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


def row_line(cells: Sequence[object]) -> str:
    return "| " + " | ".join(cell(c) for c in cells) + " |"


def head_lines(columns: Sequence[str]) -> list[str]:
    return [row_line(columns), "|" + "---|" * len(columns)]


@dataclass
class Table:
    """One table of a run: its columns, its rows (a cell per column) and a line that says what it is."""

    columns: Sequence[str]
    rows: list[Sequence[object]] = field(default_factory=list)
    title: str = ""

    @classmethod
    def of_dicts(cls, rows: Sequence[dict], title: str = "") -> Table:
        """Rows given as dicts: the first one's keys are the columns."""
        columns = list(rows[0]) if rows else []
        return cls(columns, [[row.get(c, "") for c in columns] for row in rows], title)

    def print_head(self) -> None:
        """Prints the title and the column heads, before the rows come."""
        print("\n".join([self.title] * bool(self.title) + head_lines(self.columns)), flush=True)

    def add(self, cells: Sequence[object]) -> None:
        """Adds a row and prints it at once: a long run shows its figures as it goes."""
        self.rows.append(list(cells))
        print(row_line(cells), flush=True)

    def markdown(self) -> str:
        lines = [self.title, ""] if self.title else []
        lines += [*head_lines(self.columns), *map(row_line, self.rows)] if self.rows else ["(no rows)"]
        return "\n".join(lines) + "\n"


def stream(rows: Iterable[dict]) -> list[dict]:
    """Prints markdown rows as they come (the first row's keys are the columns), each at once, so a
    long run shows its figures as it goes; returns the rows for the results file."""
    printed: list[dict] = []
    for row in rows:
        if not printed:
            print("\n".join(head_lines(list(row))))
        printed.append(row)
        print(row_line([row.get(c, "") for c in printed[0]]), flush=True)
    return printed


# --- Where the figures come from ------------------------------------------------------------------

def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (else what Python knows of the machine)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores"


def commit(tree: Path = ROOT) -> str:
    """The checkout's commit, with "+changes" when its tracked files differ from it (results files
    aside: one benchmark's written results change nothing the next one measures)."""
    def git(*words: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *words], check=False, capture_output=True, text=True).stdout.strip()

    found = git("rev-parse", "--short", "HEAD") or tree.name
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RESULTS.relative_to(ROOT).as_posix()}")
    return found + ("+changes" if changed else "")


def command_line(script: str, argv: Sequence[str]) -> str:
    """The command as it is run from the checkout's root; a path of this machine outside the
    checkout shows as its name in a scratch folder (`/.../run2/m.json` -> `SCRATCH/m.json`)."""
    return shlex.join(["python", f"bench/{Path(script).name}", *map(_portable, argv)])


def _portable(word: str) -> str:
    if not word.startswith("/"):
        return word
    path = Path(word)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else f"SCRATCH/{path.name}"


def provenance(script: str, argv: Sequence[str]) -> dict[str, str]:
    from oracles.toolchain.tools import (
        iree_version,  # late: a script may put another checkout's code first
    )

    return {
        "command": f"`{command_line(script, argv)}`",
        "machine": machine(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "IREE": iree_version(),
        "commit": commit(),
    }


# --- The file -------------------------------------------------------------------------------------

def render(script: str, header: dict[str, str], tables: Sequence[Table], notes: Sequence[str] = ()) -> str:
    name = Path(script).name
    lines = [f"<!-- Written by `python bench/{name} ... {OPTION}`: run the command below again to replace it. -->", ""]
    lines += [f"- **{key}**: {value}" for key, value in header.items()]
    for table in tables:
        lines += ["", table.markdown().rstrip("\n")]
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def path_for(script: str, directory: Path = RESULTS) -> Path:
    return directory / f"{Path(script).stem}.md"


def write(script: str, tables: Sequence[Table], notes: Sequence[str] = (), argv: Sequence[str] | None = None,
          directory: Path = RESULTS) -> Path:
    """Writes `tables` (and `notes`) for `script` (its `__file__`), run with `argv` (default: this
    process's arguments); the path written."""
    argv = sys.argv[1:] if argv is None else list(argv)
    path = path_for(script, directory)
    text = render(script, provenance(script, argv), tables, notes)  # the commit before the file changes it
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"{Path(script).stem}: wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", file=sys.stderr)
    return path
