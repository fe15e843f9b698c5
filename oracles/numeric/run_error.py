"""run-error: the program compiles, then fails when it runs.

A module initialiser that cannot allocate, a runtime check that fires, a kernel that crashes:
`iree-run-module` ends with an IREE status or dies by a signal, on the device the compile
targets (or --device). Compile errors and wrong answers
have their oracles; this one pins a run's failure so that the fuzzer's run-time findings reduce
like the others. The candidate is compiled with the user's flags (the generic CPU when they name
no target), run in a child process on seeded inputs (or --inputs), and the run's first status
(its code and message, numbers normalised: sizes change as shapes shrink) or its signal is the
signature; calibrated, a candidate must fail with the original's. A run that rejects its own
inputs is not the program's failure: the original is refused with it
(oracles/toolchain/tool_errors.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from oracles.base import Oracle
from oracles.candidate import Candidate
from oracles.data.run import no_module, run_commands, runnable, start_run
from oracles.signature import excerpt, first_error
from oracles.toolchain.flags import with_default_target
from oracles.verdict import Verdict

_STATUS_CODES = (
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED", "DEFERRED", "INCOMPATIBLE",
)
# `<where>: CODE; message; context; ...` as the runtime prints a failed status.
_STATUS = re.compile(rf"\b({'|'.join(_STATUS_CODES)}); ([^;\n]*)")


def status_signature(stderr: str) -> str | None:
    """'run-error: CODE; message' for the first IREE status in a run's output (digits as N), or None."""
    match = _STATUS.search(stderr)
    if match is None:
        return None
    message = " ".join(re.sub(r"\d+", "N", match.group(2)).split())
    return f"run-error: {match.group(1)}; {message}"


def status_line(stderr: str) -> str:
    """The line of the first IREE status, as the runtime printed it (one line)."""
    match = _STATUS.search(stderr)
    if match is None:
        return first_error(stderr)
    start = stderr.rfind("\n", 0, match.start()) + 1
    end = stderr.find("\n", match.end())
    return stderr[start : end if end >= 0 else len(stderr)].strip()


class RunError(Oracle):
    name = "run-error"
    output_name = "out.vmfb"
    warm_ok = True  # a compile that fails is never interesting here; one that crashes is re-run isolated
    runs_modules = True

    def compile_flags(self, user_flags):
        return with_default_target(user_flags)

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """Compile, then run on the inputs the oracle used (oracles/data/run.py)."""
        flags = self.compile_flags(candidate.flags)
        return run_commands(candidate, path, self.options.seed, [("out", flags, self.run_device(candidate.flags))])

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        program = runnable(candidate, self.options.seed, self.name)
        if isinstance(program, Verdict):
            return program
        function = program.function
        compiled = self.compile(candidate, workdir)
        unbuilt = no_module(compiled, "the program")
        if unbuilt is not None:
            return unbuilt
        run = start_run(compiled.output, function, program.inputs, workdir, self.options.limits, device=self.run_device(candidate.flags))
        if isinstance(run, str):
            return Verdict(False, "", f"cannot run @{function}: {run}")
        process = run.process
        if process.timed_out:
            return Verdict(False, "", f"the run of @{function} timed out after {process.seconds:.0f} s")
        if process.returncode == 0:
            return Verdict(False, "", f"@{function} runs fine")
        if process.signal_name:
            signature, detail = f"run-crash: {process.signal_name}", f"iree-run-module crashed with {process.signal_name} in @{function}"
        else:
            signature = status_signature(process.stderr) or f"run-error: exit {process.returncode}"
            detail = status_line(process.stderr) or signature
        verdict = Verdict(False, signature, detail, excerpt=excerpt(process.stderr))
        verdict.interesting = self.reference is None or signature == self.reference.signature
        if not verdict.interesting:
            verdict.detail = f"fails differently: {signature}"
        return verdict
