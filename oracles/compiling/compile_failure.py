"""Oracles on how compilation ends: an error, a crash, a hang."""

from __future__ import annotations

import re
from pathlib import Path

from oracles import refusals
from oracles.base import Oracle, OracleSetupError
from oracles.candidate import Candidate
from oracles.mlir.locations import diagnostic_locations
from oracles.signature import (
    crash_signature,
    error_lines,
    error_signature,
    excerpt,
    first_error,
    is_crash,
)
from oracles.toolchain.deadlock import QUIET_S
from oracles.toolchain.flags import CODEGEN_PHASES, with_default_target, without_phase
from oracles.toolchain.tools import Limits
from oracles.verdict import Verdict


def _compiled_regex(pattern: str | None) -> re.Pattern | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as err:
        raise OracleSetupError(refusals.BAD_REGEX.say(option="--match", pattern=pattern, error=err)) from None


class CompileError(Oracle):
    name = "compile-error"

    locates = True
    stops_early = True
    judges_located = True  # an error's signature strips locations and paths
    warm_ok = True

    def __init__(self, options=None) -> None:
        super().__init__(options)
        self.match = _compiled_regex(self.options.match)
        self.stop_phase: str | None = None

    def stopping_at(self, phase: str | None) -> Oracle:
        return self._evolved(stop_phase=phase)

    def call_flags(self, user_flags):
        return with_default_target(user_flags)

    def compile_flags(self, user_flags):
        """The user's flags; while `stop_phase` is set, compiles end there (the failure happens by then)."""
        flags = self.call_flags(user_flags)
        if self.stop_phase is None:
            return flags
        return [*without_phase(flags), f"--compile-to={self.stop_phase}"]

    def signature_of(self, returncode: int, stderr: str, signal_name: str | None) -> str:
        return crash_signature(returncode, stderr, signal_name) if is_crash(returncode, stderr) else error_signature(stderr)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        result = self.compile(candidate, workdir).process
        if result.timed_out:
            return Verdict(False, "timeout", f"timed out after {result.seconds:.0f} s")
        if result.returncode == 0:
            return Verdict(False, "", "compiles fine")
        signature = self.signature_of(result.returncode, result.stderr, result.signal_name)
        where = [str(loc) for loc in diagnostic_locations(result.stderr)]
        known = self._reference_error(result.stderr) if signature.startswith("error:") else None
        if known is not None:
            signature = self.reference.signature
            where = list(dict.fromkeys([str(loc) for loc in diagnostic_locations(known)] + where))
        # A crash with no diagnostic says what killed it; its first output line is often noise.
        detail = first_error(result.stderr) if "error:" in result.stderr or not signature.startswith("crash:") else signature
        verdict = Verdict(False, signature, detail, excerpt=excerpt(result.stderr), locations=where)
        if self.match is not None:
            verdict.interesting = bool(self.match.search(result.stderr))
            if not verdict.interesting:
                verdict.detail = f"fails, but the output does not match --match: {verdict.detail}"
        else:
            verdict.interesting = self.accepts(signature)
            if not verdict.interesting:
                verdict.detail = f"fails differently: {signature}"
        return verdict

    def accepts(self, signature: str) -> bool:
        return self.reference is None or signature == self.reference.signature

    def failing_dispatch(self) -> str:
        """The dumped dispatch the original's located error points into, once codegen was the
        failing phase (an error at an op a dispatch also holds may come from host code); none
        with `--match`, which may accept an error printed anywhere."""
        site = self.reference.site if self.reference is not None else None
        if self.match is not None or site is None or site.phase not in CODEGEN_PHASES:
            return ""
        return site.dispatch

    def _reference_error(self, stderr: str) -> str | None:
        """The error line with the original's signature, if any: codegen compiles dispatches in
        parallel and prints their errors in no fixed order, so the original's may not come first."""
        if self.reference is None or not self.reference.signature.startswith("error:"):
            return None
        return next((line for line in error_lines(stderr) if error_signature(line) == self.reference.signature), None)


class Crash(CompileError):
    name = "crash"
    warm_ok = False  # every interesting candidate would cost a worker and an isolated re-run

    def accepts(self, signature: str) -> bool:
        return signature.startswith("crash:") and super().accepts(signature)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        verdict = super().observe(candidate, workdir)
        if not verdict.signature.startswith("crash:") and verdict.detail and not verdict.interesting:
            verdict.detail = f"no crash: {verdict.detail}"
        return verdict


# The signature of a compile stopped as deadlocked (oracles/toolchain/deadlock.py).
DEADLOCK = "hang: deadlock"


class Timeout(CompileError):
    name = "timeout"
    locates = False  # one more compile that hangs teaches nothing
    stops_early = False  # a hang may sit in any phase
    warm_ok = False

    def stopping_at(self, phase: str | None) -> Oracle:
        return self

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        limit = self.options.hang_seconds
        limits = Limits(timeout_s=limit, memory_cap_mb=self.options.limits.memory_cap_mb)
        result = self.compile(candidate, workdir, limits=limits).process
        if result.deadlocked:
            verdict = Verdict(True, DEADLOCK, f"deadlocked after {result.seconds:.0f} s: every thread blocked, no CPU time for {QUIET_S:g} s")
        elif result.timed_out:
            verdict = Verdict(True, f"timeout: compile ran past {limit:g} s", f"still compiling after {limit:g} s")
        if result.timed_out:
            # Calibrated, a hang must be the original's kind: a deadlock is not a slow compile.
            if not self.accepts(verdict.signature):
                verdict.interesting = False
                verdict.detail = f"hangs differently: {verdict.detail}"
            return verdict
        state = "compiles fine" if result.returncode == 0 else f"fails: {first_error(result.stderr)}"
        return Verdict(False, "", f"finished in {result.seconds:.1f} s (< {limit:g} s): {state}")
