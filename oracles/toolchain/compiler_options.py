"""The command-line options the installed `iree-compile` accepts, as the compiler itself lists them.

A pasted command line is read against this list rather than a hand-kept one: whether
`--flag value` means a flag and its value or a flag and the input file depends on whether the
flag takes a value, and whether an old flag needs renaming depends on whether this build still
accepts it. `iree-compile --help-list-hidden` prints every registered option once (about 0.3 s),
so it is asked once per process.
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass

from oracles.toolchain.tools import ToolNotFound, find_tool

# "  --name=<type>  - description", "  -o <filename>  - description", "  --name  - description".
# Four-space lines are an enum option's values or the members of an option group's alias list.
_OPTION_LINE = re.compile(r"^  (-{1,2})([A-Za-z0-9][^\s=<]*)(=<[^>]*>| <[^>]*>)?\s")


@dataclass(frozen=True)
class CompilerOptions:
    """Option names (without dashes) and which of them take a value."""

    names: frozenset[str]
    valued: frozenset[str]

    def accepts(self, name: str) -> bool:
        return name in self.names

    def takes_value(self, name: str) -> bool:
        return name in self.valued


def parse_help(text: str) -> CompilerOptions:
    """The options in `iree-compile --help-list-hidden` output."""
    names, valued = set(), set()
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match is None:
            continue
        _, name, value = match.groups()
        names.add(name)
        if value:
            valued.add(name)
    return CompilerOptions(frozenset(names), frozenset(valued))


@functools.cache
def compiler_options() -> CompilerOptions | None:
    """What the installed compiler accepts; None when it cannot say (not installed, or it failed)."""
    try:
        tool = find_tool("iree-compile")
    except ToolNotFound:
        return None
    try:  # not run_tool: its output is clipped to the head and tail, and this list is long
        listed = subprocess.run([tool, "--help-list-hidden"], check=False, capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode != 0:
        return None
    options = parse_help(listed.stdout)
    return options if options.names else None
