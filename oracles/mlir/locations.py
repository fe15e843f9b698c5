"""Where a failure sits: source locations from diagnostics and from dumped dispatch sources.

A compile error's location names the op at the root of the failure (`model.mlir:528:12: error:`);
with `--iree-hal-dump-executable-sources-to` each dispatch is a standalone `hal.executable`
and a codegen error names that file instead. With `--mlir-print-debuginfo` the dumped dispatch
keeps the source locations of the ops fused into it: the executable's own location is its root
op, every other location in it is a fused op. The reducer's localisation starts from these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Flags that make one compile say where its failure is (none changes what is compiled).
DEBUGINFO = "--mlir-print-debuginfo"
SOURCES_DUMP = "--iree-hal-dump-executable-sources-to"
PHASES_DUMP = "--dump-compilation-phases-to"
# Weights need not be written out to learn which phases finished.
ELIDE_RESOURCES = "--mlir-elide-resource-strings-if-larger=64"
# What the bindings call a buffer parsed from text: the location of an op printed without one.
PARSED_BUFFER = "-"

_DIAGNOSTIC = re.compile(r"^(\S+?):(\d+):(\d+):\s*(error|note|warning|remark):", re.MULTILINE)
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @staticmethod
    def parse(spelled: str) -> SourceLoc | None:
        """The inverse of `str()`: 'file:line:col' (the file may itself hold colons)."""
        parts = spelled.rsplit(":", 2)
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            return None
        return SourceLoc(parts[0], int(parts[1]), int(parts[2]))


@dataclass
class DispatchSource:
    """One dumped dispatch: its executable, file, text, root location(s) and fused op locations."""

    name: str
    path: Path
    text: str
    exports: list[str]
    root: list[SourceLoc]
    fused: list[SourceLoc]


@dataclass
class FailureSite:
    """What the failure points at in the compiled input, for localisation.

    `locations` are the ops at the root of the failure (first = most specific), `fused` the
    other source ops of the failing dispatch, `dispatch` / `dispatch_source` that dispatch as a
    standalone `hal.executable` (empty when the failure is not inside one), `phase` the first
    `--compile-to` phase whose compile shows a failing compile (empty when unknown).
    """

    locations: list[SourceLoc] = field(default_factory=list)
    fused: list[SourceLoc] = field(default_factory=list)
    dispatch: str = ""
    dispatch_source: str = ""
    phase: str = ""


def diagnostic_locations(stderr: str) -> list[SourceLoc]:
    """Locations of the compiler's diagnostics, errors before notes, each once, in order."""
    errors: list[SourceLoc] = []
    others: list[SourceLoc] = []
    for match in _DIAGNOSTIC.finditer(stderr):
        loc = SourceLoc(match.group(1), int(match.group(2)), int(match.group(3)))
        if loc.line == 0:
            continue  # `<unknown>:0:0` and `file:0:0` point at nothing
        bucket = errors if match.group(4) == "error" else others
        if loc not in errors and loc not in others:
            bucket.append(loc)
    return errors + others


def location_leaves(spelled: str) -> list[SourceLoc]:
    """File locations in a printed MLIR location, callees only (`callsite(A at B)` gives A's).

    The Python bindings construct callsite and fused locations but cannot take them apart, so
    the printed form is read: a small scanner that skips the caller half of every callsite.
    """
    leaves: list[SourceLoc] = []
    parens: list[str] = []  # per open paren: "callsite", "caller" (after its ` at `) or ""
    i = 0
    while i < len(spelled):
        if spelled[i] == '"':
            match = _FILE_LINE_COL.match(spelled, i)
            if match and "caller" not in parens:
                loc = SourceLoc(match.group(1), int(match.group(2)), int(match.group(3)))
                if loc not in leaves:
                    leaves.append(loc)
            i = match.end() if match else _string_end(spelled, i)
            continue
        if spelled[i] == "(":
            parens.append("callsite" if spelled.endswith("callsite", 0, i) else "")
        elif spelled[i] == ")" and parens:
            parens.pop()
        elif parens and parens[-1] == "callsite" and spelled.startswith(" at ", i):
            parens[-1] = "caller"
        i += 1
    return leaves


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def read_dispatch_source(path: Path) -> DispatchSource | None:
    """One dumped `hal.executable`, parsed with the compiler's bindings (None if it does not parse)."""
    from iree.compiler import ir  # imported late: the bindings are slow to load

    from oracles.mlir import ir as irx

    text = path.read_text(errors="replace")
    ctx = irx.new_context(lenient=True)
    with ctx:
        try:
            module = irx.parse(text, ctx)
        except irx.ParseError:
            return None
        for top in module.body.operations:
            op = top.operation
            if op.name != "hal.executable":
                continue
            exports, spelled = [], []
            _collect(op, exports, spelled)
            root = location_leaves(str(op.location))
            fused: list[SourceLoc] = []
            for text_loc in spelled:
                # Ops printed without a location get the dump's own parse position.
                fused.extend(loc for loc in location_leaves(text_loc) if loc.file != PARSED_BUFFER and loc not in root and loc not in fused)
            name = ir.StringAttr(op.attributes["sym_name"]).value
            return DispatchSource(name, path, text, exports, root, fused)
    return None


def _collect(op, exports: list[str], spelled: list[str]) -> None:
    from iree.compiler import ir

    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                if child.name == "hal.executable.export":
                    exports.append(ir.StringAttr(child.attributes["sym_name"]).value)
                spelled.append(str(child.location))
                _collect(child, exports, spelled)


def failing_dispatch(dump_dir: Path, locations: list[SourceLoc], kernel: str = "") -> DispatchSource | None:
    """The dumped dispatch a failure is in: the file a diagnostic names, or the one exporting `kernel`.

    Only that file is parsed: a large model dumps hundreds of dispatches.
    """
    if not dump_dir.is_dir():
        return None
    for loc in locations:
        path = dump_dir / Path(loc.file).name
        if path.suffix == ".mlir" and path.is_file():
            return read_dispatch_source(path)
    if not kernel:
        return None
    for path in sorted(dump_dir.glob("*.mlir")):
        if kernel not in path.read_text(errors="replace"):
            continue
        dispatch = read_dispatch_source(path)
        if dispatch is not None and (kernel in dispatch.exports or kernel == dispatch.name):
            return dispatch
    return None


def finished_phases(dump_dir: Path, phases: tuple[str, ...]) -> list[str]:
    """Phases whose IR `--dump-compilation-phases-to` wrote (files `<name>.<n>.<phase>.mlir`)."""
    done = set()
    if dump_dir.is_dir():
        for path in dump_dir.iterdir():
            parts = path.name.split(".")
            if len(parts) >= 3 and parts[-2] in phases:
                done.add(parts[-2])
    return [p for p in phases if p in done]


def first_failing_phase(dump_dir: Path, phases: tuple[str, ...]) -> str:
    """The phase after the last one dumped: where a failing compile stopped."""
    done = finished_phases(dump_dir, phases)
    if not done:
        return phases[0]
    index = phases.index(done[-1]) + 1
    return phases[index] if index < len(phases) else ""
