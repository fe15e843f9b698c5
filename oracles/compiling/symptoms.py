"""Symptoms: the offending ops an IR-phase oracle counts, one by one, numbered for the user.

A transient-copy original shows copies and transient allocations of several kinds (the op and
its source -> target lifetimes) in several functions; a readwrite-constant original shows
dispatches tied in place to constants. The calibration lists them numbered (kind, function,
and the source location of the op behind each when compiled with debug locations). A reduction
keeps every kind the original showed, not every instance; `--keep KIND-or-N` keeps only the one
an engineer files the issue about. Localisation (reducer/localize/symptom_slice.py) starts from
their source locations.

Symptoms travel in a verdict's metrics as plain text (one line each, tab-separated), so a
cached verdict keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles import refusals
from oracles.base import OracleSetupError

METRIC = "symptoms"
# The stream and flow phases wrap each public function `f` as `f$async` (the coarse-fences ABI).
ASYNC_SUFFIX = "$async"
# A symptom's locations are cut to this many leaves: a transient allocation fuses the location of
# every op whose result it holds (hundreds on a real model).
MAX_LOCATIONS = 8


@dataclass(frozen=True)
class Symptom:
    """One offending op: its kind, the function it is in, the source ops behind it."""

    kind: str
    function: str = ""
    locations: tuple[str, ...] = ()  # `file:line:col` leaves of its printed location (with debug info)
    # Whether its locations name the ops behind it. A transient allocation's fuse every op whose
    # result lives in it: no place to start from, it follows from the copies.
    seeds: bool = True

    def spelled(self) -> str:
        where = f" in {self.function}" if self.function else ""
        at = f" at {', '.join(self.locations[:3])}" if self.locations else ""
        more = f" (+{len(self.locations) - 3} more)" if len(self.locations) > 3 else ""
        return f"{self.kind}{where}{at}{more}"


@dataclass(frozen=True)
class Keep:
    """What `--keep` asks a candidate to show: one kind, in one function or in any."""

    kind: str
    function: str | None = None

    def spelled(self) -> str:
        return self.kind + (f" in {self.function}" if self.function else "")


def function_of(op) -> str:
    """The name of the top-level function `op` is in ('' outside one), without the ABI's `$async`."""
    from iree.compiler import ir

    parent = op.parent
    while parent is not None and parent.parent is not None and parent.parent.name != "builtin.module":
        parent = parent.parent
    if parent is None or "sym_name" not in parent.attributes:
        return ""
    name = ir.StringAttr(parent.attributes["sym_name"]).value
    return name.removesuffix(ASYNC_SUFFIX)


def encode(symptoms: list[Symptom]) -> str:
    return "\n".join(
        "\t".join([s.kind, s.function, " ".join(s.locations[:MAX_LOCATIONS]), "" if s.seeds else "no-seed"])
        for s in symptoms
    )


def decode(spelled: str | float | None) -> list[Symptom]:
    if not isinstance(spelled, str) or not spelled:
        return []
    found = []
    for line in spelled.split("\n"):
        kind, function, locations, flag = (line.split("\t") + ["", "", ""])[:4]
        found.append(Symptom(kind, function, tuple(locations.split()), flag != "no-seed"))
    return found


def numbered(symptoms: list[Symptom]) -> list[str]:
    """`N. kind in function at file:line:col`, one line each, numbered from 1 (what --keep N names)."""
    return [f"{n}. {symptom.spelled()}" for n, symptom in enumerate(symptoms, 1)]


def resolve_keep(spec: str, symptoms: list[Symptom]) -> Keep:
    """`--keep N` (symptom N's kind in N's function) or `--keep KIND` (a kind, or a part of one that
    names a single kind of the original's, in any function); a one-line error otherwise."""
    spec = spec.strip()
    listing = "; ".join(numbered(_without_locations(symptoms))) or "none"
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= len(symptoms):
            raise OracleSetupError(refusals.KEEP_OUT_OF_RANGE.say(spec=spec, count=len(symptoms), listing=listing))
        chosen = symptoms[n - 1]
        return Keep(chosen.kind, chosen.function or None)
    kinds = list(dict.fromkeys(s.kind for s in symptoms))
    exact = [k for k in kinds if k.lower() == spec.lower()]
    matching = exact or [k for k in kinds if spec.lower() in k.lower()]
    if len(matching) == 1:
        return Keep(matching[0])
    why = "names none" if not matching else f"names {len(matching)} ({', '.join(matching)})"
    raise OracleSetupError(refusals.KEEP_NO_KIND.say(spec=spec, why=why, listing=listing))


def shows(symptoms: list[Symptom], keep: Keep) -> bool:
    return any(s.kind == keep.kind and (keep.function is None or s.function == keep.function) for s in symptoms)


def missing_kinds(have: list[Symptom], original: list[Symptom]) -> list[str]:
    """The original's kinds a candidate no longer shows (at least one instance of each is kept)."""
    present = {s.kind for s in have}
    return [kind for kind in dict.fromkeys(s.kind for s in original) if kind not in present]


def _without_locations(symptoms: list[Symptom]) -> list[Symptom]:
    return [Symptom(s.kind, s.function) for s in symptoms]
