"""Oracles that compile only to a phase (`--compile-to=PHASE`) and count something in the IR.

Each one compiles the candidate to its phase, parses the printed IR with the MLIR Python
bindings (a fresh `ir.Context` per candidate) and counts ops of interest; the candidate is
interesting while the count reaches a threshold. A compile that fails before the phase is not
interesting: the failure is someone else's bug.

- transient-copy: copies and transient allocations in the stream schedule (at `stream`).
- readwrite-constant: a `flow.dispatch` updates a constant in place (at `flow`).

Both list what they count as numbered symptoms (oracles/compiling/symptoms.py): calibrated, a
candidate must keep every kind the original showed, or with `--keep` the one kind asked for.
- dispatch-count: the number of dispatches at a phase (`flow.dispatch` at flow, the phase's own
  dispatch op elsewhere: see DISPATCH_OPS).
- ir-match: a regex over the IR text at a phase.

The walks that find what they count are in oracles/compiling/ir_walks.py.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from oracles import refusals
from oracles.base import Oracle, OracleSetupError
from oracles.candidate import Candidate
from oracles.compiling.dispatch_kind import dispatch_kind
from oracles.compiling.ir_walks import readwrite_constant_ops, source_locations, transient_copy_symptoms, walk_ops
from oracles.compiling.symptoms import (
    METRIC,
    Keep,
    Symptom,
    decode,
    encode,
    function_of,
    missing_kinds,
    resolve_keep,
    shows,
)
from oracles.mlir.locations import location_leaves
from oracles.signature import error_signature, excerpt, first_error
from oracles.toolchain.flags import PHASES, with_default_target, without_phase
from oracles.verdict import Verdict

# `end` writes a binary module (vmfb), not IR.
TEXT_PHASES = PHASES[:-1]

# The op that launches a dispatch, by phase: dispatch regions are outlined to `flow.dispatch`
# in the flow phase, become `stream.cmd.dispatch` in the stream schedule, and command-buffer
# recordings at hal. Phases before dispatch-creation have no dispatches; at vm they are calls.
DISPATCH_OPS: dict[str, tuple[str, ...]] = {
    "dispatch-creation": ("flow.dispatch.workgroups", "flow.dispatch.region"),
    "flow": ("flow.dispatch",),
    "stream": ("stream.cmd.dispatch", "stream.async.dispatch"),
    "executable-sources": ("stream.cmd.dispatch", "stream.async.dispatch"),
    "executable-configurations": ("stream.cmd.dispatch", "stream.async.dispatch"),
    "executable-targets": ("stream.cmd.dispatch", "stream.async.dispatch"),
    "hal": ("hal.command_buffer.dispatch", "hal.command_buffer.dispatch.indirect"),
}


def _check_phase(phase: str | None, oracle: str, allowed: tuple[str, ...] = TEXT_PHASES) -> str:
    if not phase:
        raise OracleSetupError(refusals.PHASE_MISSING.say(oracle=oracle, allowed=", ".join(allowed)))
    if phase not in allowed:
        why = "is not a --compile-to phase" if phase not in PHASES else "is not a phase this oracle can inspect"
        raise OracleSetupError(refusals.PHASE_INVALID.say(phase=phase, why=why, oracle=oracle, allowed=", ".join(allowed)))
    return phase


def _check_threshold(threshold: int | None) -> None:
    if threshold is not None and threshold < 1:
        raise OracleSetupError(refusals.THRESHOLD_BELOW_ONE.say(threshold=threshold))


class IRParseError(RuntimeError):
    """The IR a phase printed did not parse with the bindings (an oracle problem, not the candidate's)."""


@dataclass
class Count:
    """What a phase oracle measured: the count it judges by, plus metrics and a place to point at."""

    count: int
    metrics: dict[str, float | int | str] = field(default_factory=dict)
    where: str = ""  # e.g. the first offending dispatch, for the detail sentence
    locations: list[str] = field(default_factory=list)  # printed locations of the offending ops
    symptoms: list[Symptom] = field(default_factory=list)  # the offending ops one by one, in program order


class PhaseOracle(Oracle):
    """Compiles to `phase`, measures the IR there, and is interesting while the count >= threshold.

    Subclasses set `phase` (or override `phase_name`), `noun` (singular, plural) and implement
    `measure(module)` on the parsed IR, or override `measure_text(text)` to work on the text.
    """

    output_name = "out.mlir"
    locates = True
    warm_ok = True
    phase: ClassVar[str] = "flow"
    noun: ClassVar[tuple[str, str]] = ("op", "ops")
    # Whether its symptoms have kinds a reduction keeps (every one, or `--keep`'s).
    has_symptoms: ClassVar[bool] = False

    def __init__(self, options=None) -> None:
        super().__init__(options)
        self.kept: Keep | None = None  # what --keep names among the original's symptoms, once calibrated

    def calibrated(self, original: Verdict) -> PhaseOracle:
        """Pinned to the original; `--keep` is resolved against its numbered symptoms here."""
        kept = resolve_keep(self.options.keep, decode(original.metrics.get(METRIC))) if self.options.keep else None
        return self._evolved(reference=original, kept=kept)

    def original_symptoms(self) -> list[Symptom]:
        return decode(self.reference.metrics.get(METRIC)) if self.reference is not None else []

    def keeps_symptoms(self, found: Count) -> tuple[bool, str]:
        """Calibrated without --threshold: the kept kind, or every kind the original showed; and
        what is lost when not."""
        if self.kept is not None:
            return shows(found.symptoms, self.kept), f"no {self.kept.spelled()} (--keep)"
        missing = missing_kinds(found.symptoms, self.original_symptoms())
        return not missing, f"lost {', '.join(missing)}"

    def phase_name(self) -> str:
        return self.phase

    def threshold(self) -> int:
        return self.options.threshold if self.options.threshold is not None else 1

    def signature(self) -> str:
        return self.name

    def compile_flags(self, user_flags):
        return [*with_default_target(without_phase(user_flags)), f"--compile-to={self.phase_name()}"]

    def measure(self, module) -> Count:
        raise NotImplementedError

    def measure_text(self, text: str) -> Count:
        from oracles.mlir import (
            ir as irx,  # imported late: the bindings are slow to load
        )

        ctx = irx.new_context(lenient=True)
        with ctx:
            try:
                module = irx.parse(text, ctx, source_name="ir")
            except irx.ParseError as err:
                raise IRParseError(str(err)) from None
            return self.measure(module)

    def accepts(self, found: Count) -> bool:
        """`--threshold` (default: the oracle's own) counted; for oracles with symptoms, calibrated
        with no --threshold: at least one of every kind the original showed (not as many), or only
        --keep's, which a threshold also needs."""
        if not self.has_symptoms:
            return found.count >= self.threshold()
        if self.options.threshold is not None or self.reference is None:
            return found.count >= self.threshold() and (self.kept is None or shows(found.symptoms, self.kept))
        return found.count >= 1 and self.keeps_symptoms(found)[0]

    def describe(self, count: int) -> str:
        singular, plural = self.noun
        return f"{count} {singular if count == 1 else plural} at {self.phase_name()}"

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        phase = self.phase_name()
        compiled = self.compile(candidate, workdir)
        result = compiled.process
        if result.timed_out:
            return Verdict(False, "timeout", f"timed out after {result.seconds:.0f} s compiling to {phase}")
        if result.returncode != 0:
            return Verdict(
                False,
                error_signature(result.stderr),
                f"fails before reaching {phase}: {first_error(result.stderr)}",
                excerpt=excerpt(result.stderr),
            )
        text = compiled.output.read_text(errors="replace")
        try:
            found = self.measure_text(text)
        except IRParseError as err:
            message = str(err).strip().splitlines()
            return Verdict(
                False,
                "unparseable-ir",
                f"compiled to {phase}, but its IR did not parse: {' '.join(message[:3])}",
                excerpt=str(err)[:2000],
            )
        threshold = self.threshold()
        metrics = {"count": found.count, "threshold": threshold, **found.metrics}
        if found.symptoms:
            metrics[METRIC] = encode(found.symptoms)
        seen = self.describe(found.count)
        if self.accepts(found):
            where = f"; {found.where}" if found.where else ""
            located = [str(loc) for spelled in found.locations for loc in location_leaves(spelled)]
            return Verdict(True, self.signature(), f"{seen} (threshold {threshold}){where}", metrics, locations=located)
        if self.has_symptoms and self.reference is not None and self.options.threshold is None and found.count:
            detail = f"{seen}; {self.keeps_symptoms(found)[1]}"
        elif self.reference is not None and "count" in self.reference.metrics:
            detail = f"{seen}; the original had {self.reference.metrics['count']} (threshold {threshold})"
        else:
            detail = f"{seen}, below the threshold {threshold}"
        return Verdict(False, "", detail, metrics)


class TransientCopy(PhaseOracle):
    name = "transient-copy"
    phase = "stream"
    noun = ("copy/transient allocation", "copies/transient allocations")
    has_symptoms = True

    def __init__(self, options=None) -> None:
        super().__init__(options)
        _check_threshold(self.options.threshold)

    def measure(self, module) -> Count:
        symptoms = transient_copy_symptoms(module)
        kinds = Counter(s.kind for s in symptoms)
        transients = kinds["stream.resource.alloca transient"]
        counts = {"copies": len(symptoms) - transients, "transient_allocas": transients}
        spelled = ", ".join(f"{n}x {kind}" for kind, n in sorted(kinds.items()))
        # With --mlir-print-debuginfo (Oracle.locate) these name the source ops behind each copy.
        where = [loc for s in symptoms for loc in s.locations]
        return Count(len(symptoms), {**counts, "kinds": spelled}, spelled, where, symptoms)


class ReadwriteConstant(PhaseOracle):
    name = "readwrite-constant"
    phase = "flow"
    noun = ("dispatch tied in place to a constant", "dispatches tied in place to constants")
    has_symptoms = True

    def __init__(self, options=None) -> None:
        super().__init__(options)
        _check_threshold(self.options.threshold)  # default 1: any such dispatch

    def measure(self, module) -> Count:
        found = readwrite_constant_ops(module)
        if not found:
            return Count(0)
        symptoms = [
            Symptom(f"{dispatch_kind(entry)} dispatch tied to {_constant_kind(what)}", function_of(op),
                    source_locations(op))
            for entry, what, op in found
        ]
        dispatch, constant, _ = found[0]
        where = [loc for s in symptoms for loc in s.locations]
        return Count(len(found), {"dispatch": dispatch, "constant": constant}, f"first {dispatch} on {constant}",
                     where, symptoms)


def _constant_kind(what: str) -> str:
    return "an immutable global" if what.startswith("util.global.load") else "a constant"


class DispatchCount(PhaseOracle):
    name = "dispatch-count"
    noun = ("dispatch", "dispatches")

    def __init__(self, options=None) -> None:
        super().__init__(options)
        if self.options.threshold is None:
            raise OracleSetupError(refusals.DISPATCH_COUNT_NEEDS_THRESHOLD.say())
        _check_threshold(self.options.threshold)
        allowed = tuple(DISPATCH_OPS)
        self._phase = _check_phase(self.options.phase or "flow", self.name, allowed)

    def phase_name(self) -> str:
        return self._phase

    def signature(self) -> str:
        return f"dispatch-count: at least {self.threshold()} at {self._phase}"

    def measure(self, module) -> Count:
        names = DISPATCH_OPS[self._phase]
        dispatches = [op for op in walk_ops(module) if op.name in names]
        # One symptom per dispatch, for localisation only (a count has no kinds to keep).
        symptoms = [
            Symptom("dispatch", function_of(op), source_locations(op))
            for op in dispatches
        ]
        return Count(len(dispatches), symptoms=symptoms)


class IrMatch(PhaseOracle):
    name = "ir-match"

    def __init__(self, options=None) -> None:
        super().__init__(options)
        pattern = self.options.pattern
        if not pattern:
            raise OracleSetupError(refusals.IR_MATCH_NEEDS_PATTERN.say())
        try:
            self.regex = re.compile(pattern, re.MULTILINE)
        except re.error as err:
            raise OracleSetupError(refusals.BAD_REGEX.say(option="--pattern", pattern=pattern, error=err)) from None
        _check_threshold(self.options.threshold)
        self._phase = _check_phase(self.options.phase, self.name)

    def phase_name(self) -> str:
        return self._phase

    def signature(self) -> str:
        return f"ir-match: /{self.options.pattern}/ at {self._phase}"

    def describe(self, count: int) -> str:
        return f"{count} match{'' if count == 1 else 'es'} of /{self.options.pattern}/ at {self._phase}"

    def measure_text(self, text: str) -> Count:
        matches = list(self.regex.finditer(text))
        if not matches:
            return Count(0)
        line = text[: matches[0].start()].count("\n") + 1
        return Count(len(matches), {"first_line": line}, f"first at line {line}")
