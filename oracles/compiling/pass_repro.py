"""One failing pass alone: the compiler's pass reproducer, an `iree-opt` oracle on its pipeline, lit tests.

`iree-compile ... --mlir-pass-pipeline-crash-reproducer=R --mlir-pass-pipeline-local-reproducer
--mlir-disable-threading` writes R when a pass fails or crashes: the IR in front of that pass and,
in R's `mlir_reproducer` resource, a pipeline of that one pass anchored where it ran. The IR with
`iree-opt --pass-pipeline=PIPELINE` is a one-pass repro. `PassError` and `PassCrash` judge
candidates of it exactly as `compile-error` and `crash` judge compiles (same signatures, same
`--match`), the pipeline and the original's verdict fixed when they are made. A lit test is that
IR with its RUN line and `expected-*` annotations where `--verify-diagnostics` reports them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from oracles.base import OracleOptions
from oracles.candidate import Candidate
from oracles.compiling.compile_failure import CompileError, Crash
from oracles.toolchain.tools import (
    Limits,
    ProcessResult,
    find_tool,
    run_tool,
)
from oracles.verdict import Verdict

IREE_OPT = "iree-opt"
LOCAL_REPRODUCER = ("--mlir-pass-pipeline-local-reproducer", "--mlir-disable-threading")
VERIFY_DIAGNOSTICS = "--verify-diagnostics"
RUN_PREFIX = "// RUN: "
XFAIL_LINE = "// XFAIL: *"
_PIPELINE = re.compile(r'\bpipeline:\s*"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2}|.)")
# `--verify-diagnostics` on a file without annotations: "FILE:L:C: error: unexpected error: MSG".
_UNEXPECTED = re.compile(r"^(.*?):(\d+):(\d+): error: unexpected (error|warning|note|remark): (.*)$")
# Where a message starts printing an op ("...marked illegal: %7 = ..."): the annotation stops there.
_PRINTED_OP = re.compile(r':\s+(?:%|")')
_MAX_MESSAGE = 160


def reproducer_flags(path: Path) -> list[str]:
    """The flags that make one compile write the failing pass's local reproducer to `path`."""
    return [f"--mlir-pass-pipeline-crash-reproducer={path}", *LOCAL_REPRODUCER]


@dataclass(frozen=True)
class PassReproducer:
    """A reproducer the compiler wrote: its whole text and the pipeline stored in it."""

    text: str
    pipeline: str

    @property
    def pass_name(self) -> str:
        return innermost_pass(self.pipeline)


def read_reproducer(path: Path) -> PassReproducer | None:
    """The reproducer at `path`, or None when the compiler wrote none (the failure is in no pass)."""
    if not path.is_file():
        return None
    text = path.read_text(errors="replace")
    trailer = text[text.rfind("{-#") :] if "{-#" in text else ""
    found = _PIPELINE.search(trailer)
    if found is None:
        return None
    return PassReproducer(text, _unescape(found.group(1)))


def _unescape(spelled: str) -> str:
    """MLIR's string escapes: `\\XX` hex bytes, `\\\\`, `\\"`."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if len(m.group(1)) == 2 else m.group(1), spelled)


def innermost_pass(pipeline: str) -> str:
    """`builtin.module(func.func(pass-a{opt=1}))` -> `pass-a`: the pass a local reproducer names."""
    depth, start, end = 0, 0, len(pipeline)
    for i, char in enumerate(pipeline):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0 and char == "(":
            start = i + 1
        elif depth == 0 and char == ")":
            end = i
            break
    name = pipeline[start:end].strip()
    return name.split("{", 1)[0].split(",", 1)[0].strip()


class _OnePassPipeline:
    """Runs `iree-opt --pass-pipeline=P` where a compile-failure oracle runs `iree-compile`."""

    warm_ok = False  # a crash would cost a worker and an isolated re-run per interesting candidate
    locates = False
    stops_early = False
    output_name = "out.mlir"
    compile_tool = IREE_OPT

    def __init__(self, pipeline: str, options: OracleOptions | None = None) -> None:
        super().__init__(options)  # type: ignore[call-arg]
        self.pipeline = pipeline

    def stopping_at(self, phase: str | None):
        return self  # one pass: nothing to stop early

    def compile_flags(self, user_flags) -> list[str]:
        return [f"--pass-pipeline={self.pipeline}"]

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        return shlex.join([IREE_OPT, *self.compile_flags(candidate.flags), path])


class PassError(_OnePassPipeline, CompileError):
    name = "pass-error"
    # A warm worker runs the pipeline in-process (oracles/toolchain/warm.py): a hundredth of a
    # second where `iree-opt` spends a third of one starting.
    warm_ok = True
    summary = "iree-opt on one pass pipeline fails with the original compile error's signature"


class PassCrash(_OnePassPipeline, Crash):
    name = "pass-crash"
    summary = "iree-opt on one pass pipeline crashes with the original crash's signature"


def one_pass_kind(reference: Verdict) -> type[PassError] | type[PassCrash]:
    """The one-pass oracle's class for the failure `reference` describes (a crash or an error)."""
    return PassCrash if reference.signature.startswith("crash:") else PassError


def one_pass_oracle(pipeline: str, reference: Verdict, options: OracleOptions | None = None) -> CompileError:
    """The oracle for a one-pass repro of the failure `reference` describes."""
    return one_pass_kind(reference)(pipeline, options).calibrated(reference)  # type: ignore[return-value]


@dataclass(frozen=True)
class Expected:
    """One diagnostic `--verify-diagnostics` must see: its kind, 1-based line and message."""

    kind: str
    line: int
    message: str


def run_command(pipeline: str, verify: bool) -> list[str]:
    """The RUN line's command, `%s` for the file."""
    return [IREE_OPT, f"--pass-pipeline={pipeline}", *([VERIFY_DIAGNOSTICS] if verify else []), "%s"]


def expected_diagnostics(path: Path, pipeline: str, limits: Limits) -> tuple[list[Expected], ProcessResult]:
    """Every diagnostic the pass reports at a line of `path` (one `--verify-diagnostics` run of it
    without annotations, which names each one as unexpected)."""
    result = _run_on(path, run_command(pipeline, verify=True), limits)
    found = []
    for line in result.stderr.splitlines():
        match = _UNEXPECTED.match(line.strip())
        if match and Path(match.group(1)).name == path.name:
            found.append(Expected(match.group(4), int(match.group(2)), annotation_message(match.group(5))))
    return list(dict.fromkeys(found)), result


def annotation_message(message: str) -> str:
    """The stable head of a diagnostic: no printed op (its SSA numbers change), no `}}`."""
    head = _PRINTED_OP.split(message, 1)[0].split("}}", 1)[0].strip()
    return head[:_MAX_MESSAGE]


def lit_test_text(ir_text: str, pipeline: str, expected: list[Expected], xfail_reason: str = "") -> str:
    """The lit test: RUN line, then the IR with an `expected-*` line above each diagnosed line.

    A crash has nothing to expect: the test is marked XFAIL with the crash, so the fix (which
    makes it pass) is what turns it into a regression test.
    """
    verify = not xfail_reason
    head = [RUN_PREFIX + shlex.join(run_command(pipeline, verify))]
    if xfail_reason:
        head += [XFAIL_LINE, f"// {xfail_reason}"]
    by_line: dict[int, list[Expected]] = {}
    for item in expected:
        by_line.setdefault(item.line, []).append(item)
    body = []
    for number, line in enumerate(ir_text.rstrip("\n").splitlines(), 1):
        here = by_line.get(number, [])
        indent = line[: len(line) - len(line.lstrip())]
        for i, item in enumerate(here):
            body.append(f"{indent}// expected-{item.kind} @+{len(here) - i} {{{{{item.message}}}}}")
        body.append(line)
    return "\n".join([*head, "", *body]) + "\n"


@dataclass
class LitCheck:
    """What running a lit test's RUN line gave: passed (an XFAIL test passes by failing)."""

    passed: bool
    detail: str
    seconds: float


def run_lit_test(path: Path, limits: Limits | None = None) -> LitCheck:
    """Runs the file's RUN line with `%s` as the file; an XFAIL test must fail, any other pass."""
    text = path.read_text()
    lines = text.splitlines()
    run = next((line[len(RUN_PREFIX) :] for line in lines if line.startswith(RUN_PREFIX)), None)
    if run is None:
        return LitCheck(False, f"{path}: no `{RUN_PREFIX.strip()}` line", 0.0)
    xfail = any(line.startswith(XFAIL_LINE) for line in lines)
    result = _run_on(path, shlex.split(run), limits or Limits())
    failed = result.returncode != 0 or result.timed_out
    output = next((line.strip() for line in result.stderr.splitlines() if "error:" in line), result.stderr.strip()[:200])
    if xfail:
        passed, detail = failed, ("fails as expected (XFAIL)" if failed else "XPASS: it no longer fails; the bug looks fixed")
    else:
        passed, detail = not failed, ("passes" if not failed else f"fails: {output}")
    return LitCheck(passed, detail, result.seconds)


def _run_on(path: Path, words: list[str], limits: Limits) -> ProcessResult:
    """A RUN line's words run on `path`: `%s` is the file, `iree-opt` the installed tool. It runs in
    the file's folder, as lit runs it, so the file is named there by its name (a relative path with
    a folder, named again from inside that folder, is a file that is not there)."""
    argv = [find_tool(IREE_OPT) if word == IREE_OPT else path.name if word == "%s" else word for word in words]
    return run_tool(argv, limits, cwd=str(path.parent))
