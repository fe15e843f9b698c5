"""Every dispatch's input and output tensors, as a traced run prints them, and the first wrong one.

Compiled with `--iree-flow-trace-dispatch-tensors`, a module prints (to standard error) before and after each dispatch
`=== exe::entry inputs ===` / `outputs ===` and one `4x8xf32=[..][..]` line per tensor, in full
and in execution order. Tracing leaves the fusion as the user has it (returning an intermediate
as a result would pull it out of its dispatch, and a wrong value could move or vanish).

The culprit of a wrong answer is the first dispatch whose inputs agree with the reference run
while its outputs do not. "The earliest differing value" is not enough: a later Relu or Clip
can hide part of an error, and a wrong op on a side branch is not on the path to the first
differing output; a dispatch fed correct values that computes a wrong one is the op to blame.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from oracles.candidate import Candidate
from oracles.data.arrays import parse_type
from oracles.data.run import RUN_DEVICE, run_module
from oracles.mlir.locations import DEBUGINFO, SOURCES_DUMP, SourceLoc, failing_dispatch
from oracles.numeric.compare import Comparison, compare_outputs
from oracles.numeric.wrong_answer import primary
from oracles.signature import first_error
from oracles.toolchain.tools import Limits, compile_candidate

TRACE_FLAG = "--iree-flow-trace-dispatch-tensors"
_HEADER = re.compile(r"=== (\S+) (inputs|outputs) ===")
T = TypeVar("T")
_VIEW = re.compile(r"^((?:\d+x)*)([a-z][a-z0-9]*)=(.*)$", re.DOTALL)


@dataclass
class TracedDispatch:
    """One executed dispatch: `exe::entry`, and the tensors it read and wrote."""

    name: str
    inputs: list[np.ndarray]
    outputs: list[np.ndarray]
    root: tuple[tuple[int, int], ...] = ()  # (line, col) of the source ops at its root, when dumped
    fused: list[SourceLoc] = field(default_factory=list)  # every source op it holds (root first)

    @property
    def executable(self) -> str:
        """The `hal.executable` it runs (what `--iree-hal-dump-executable-sources-to` names)."""
        return self.name.split("::", 1)[0]


@dataclass
class WrongDispatch:
    """The first dispatch fed agreeing inputs that computes a differing output."""

    position: int  # in execution order, from 0
    name: str
    inputs: list[np.ndarray]  # the reference run's values (they agree with the wrong run's)
    expected: list[np.ndarray]  # the reference run's outputs
    got: list[np.ndarray]  # the wrong run's outputs
    comparison: Comparison
    dispatches: int  # how many dispatches ran
    fused: list[SourceLoc] = field(default_factory=list)  # its source ops, root first

    @property
    def executable(self) -> str:
        return self.name.split("::", 1)[0]


def parse_buffer_view(text: str) -> np.ndarray:
    """`2x3xf32=[1 2 3][4 5 6]` (a 0-d tensor: `f32=1`) as an array."""
    match = _VIEW.match(text.strip())
    if match is None:
        raise ValueError(f"not a traced tensor: {text[:60]!r}")
    dims, element, values = match.groups()
    shape, dtype = parse_type(f"tensor<{dims}{element}>")
    tokens = values.replace("[", " ").replace("]", " ").split()
    if dtype == np.bool_:
        flat = np.array([token not in ("0", "false") for token in tokens], dtype=np.bool_)
    else:
        flat = np.array([float(token) for token in tokens], dtype=np.float64).astype(dtype)
    size = int(np.prod(shape)) if shape else 1
    if flat.size != size:
        raise ValueError(f"traced tensor {dims}{element} has {flat.size} values, not {size}")
    return flat.reshape(shape or ())


def parse_trace(stdout: str) -> list[TracedDispatch]:
    """The dispatches a traced run printed, in execution order (results printed between are ignored)."""
    traced: list[TracedDispatch] = []
    headers = list(_HEADER.finditer(stdout))
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(stdout)
        body = stdout[header.end():end]
        tensors = [parse_buffer_view(line) for line in body.splitlines() if _VIEW.match(line.strip())]
        name, side = header.group(1), header.group(2)
        if side == "inputs":
            traced.append(TracedDispatch(name, tensors, []))
        elif traced and traced[-1].name == name:
            traced[-1].outputs = tensors
    return traced


def trace_run(
    candidate: Candidate,
    flags: Sequence[str],
    function: str,
    inputs: Sequence[np.ndarray | np.generic],
    workdir: Path,
    limits: Limits,
    result_types: Sequence[str] | None = None,
    device: str = RUN_DEVICE,
) -> list[TracedDispatch] | str:
    """Compiles with dispatch tracing, runs `function` once; its dispatches, or why not. Each
    dispatch's source ops come from its dumped executable (debug locations change no code)."""
    dump = workdir / "dispatches"
    compiled = compile_candidate(candidate, [*flags, TRACE_FLAG, DEBUGINFO, f"{SOURCES_DUMP}={dump}"], workdir, limits, "traced.vmfb")
    if not compiled.ok:
        return f"the traced compile fails: {first_error(compiled.process.stderr) or compiled.process.returncode}"
    printed = workdir / "trace.txt"
    result = run_module(compiled.output, function, inputs, workdir, limits, device=device, result_types=result_types,
                        stderr_file=printed)
    if isinstance(result, str):
        return f"the traced run fails: {result}"
    try:
        traced = parse_trace(printed.read_text(errors="replace"))
    except ValueError as err:
        return f"cannot read the trace: {err}"
    sources = {}
    for dispatch in traced:
        if dispatch.executable not in sources:
            sources[dispatch.executable] = failing_dispatch(dump, [], dispatch.executable)
        source = sources[dispatch.executable]
        if source is not None:
            dispatch.root = tuple((loc.line, loc.col) for loc in source.root)
            dispatch.fused = [*source.root, *source.fused]
    return traced


def first_wrong_dispatch(
    wrong: list[TracedDispatch], reference: list[TracedDispatch], kind: str | None = None, **tolerance
) -> WrongDispatch | str:
    """The first dispatch of `wrong` whose inputs agree with the reference's and whose outputs do not.

    Dispatches pair by executable and occurrence (one executable may run several times), so a
    pipeline that adds or drops a dispatch elsewhere still pairs the rest. With two such dispatches
    (two wrong ops apart), the first wrong in the original's way (`kind`, its headline: NaN where
    one op gives NaN and another is a few LSB off) is the culprit. Returns why not when none
    qualifies (the runs agree everywhere, or every differing dispatch was fed differing inputs).
    """
    paired = _pairs(wrong, reference)
    if not paired:
        return "no dispatch of the two traced runs pairs up (their dispatches differ)"
    differing = 0
    culprits = []
    for bad, good in paired:
        outputs = _compare(good.outputs, bad.outputs, tolerance)
        if outputs.matches:
            continue
        differing += 1
        if not _compare(good.inputs, bad.inputs, tolerance).matches:
            continue
        culprits.append(WrongDispatch(wrong.index(bad), bad.name, good.inputs, good.outputs, bad.outputs, outputs, len(wrong), bad.fused))
    if culprits:
        return wrong_the_original_way(culprits, kind, lambda c: c.comparison)
    if not differing:
        return f"all {len(paired)} paired dispatches agree"
    return f"{differing} dispatches differ, each fed inputs that already differ"


def wrong_the_original_way(culprits: list[T], kind: str | None, comparison: Callable[[T], Comparison]) -> T:
    """The first culprit whose own wrong answer's headline is `kind`, else the first."""
    return next((c for c in culprits if (top := primary(comparison(c).wrong)) is not None and top.kind == kind), culprits[0])


def _pairs(wrong: list[TracedDispatch], reference: list[TracedDispatch]) -> list[tuple[TracedDispatch, TracedDispatch]]:
    """(wrong, reference) in the wrong run's order: the first unpaired reference dispatch with the
    same root source op (the executable's name without locations) and the same tensor shapes. Two
    pipelines may split a program into different dispatches (a cast of their own, say); the ops'
    source locations still say which computes the same value."""
    unpaired = list(reference)
    paired = []
    for bad in wrong:
        for good in unpaired:
            if _key(bad) == _key(good) and _same_shapes(bad, good):
                paired.append((bad, good))
                unpaired.remove(good)
                break
    return paired


def _key(dispatch: TracedDispatch) -> tuple:
    return dispatch.root or (dispatch.executable,)


def _same_shapes(a: TracedDispatch, b: TracedDispatch) -> bool:
    return [x.shape for x in a.inputs] == [x.shape for x in b.inputs] and [x.shape for x in a.outputs] == [x.shape for x in b.outputs]


def _compare(expected: list[np.ndarray], got: list[np.ndarray], tolerance: dict) -> Comparison:
    """Compares at the precision both sides have: where a pipeline keeps a tensor in a narrower
    float type (bf16 for f32, by its own choice), the reference is rounded to it first."""
    if len(expected) != len(got):
        raise ValueError("different tensor counts")
    rounded = []
    for want, have in zip(expected, got, strict=True):
        if want.dtype != have.dtype and want.dtype.kind == "f" and have.dtype.kind in "fV" and have.dtype.itemsize < want.dtype.itemsize:
            want = want.astype(have.dtype)
        elif want.dtype != have.dtype and have.dtype.kind == "f" and want.dtype.kind in "fV" and want.dtype.itemsize < have.dtype.itemsize:
            have = have.astype(want.dtype)
        rounded.append((want, have))
    return compare_outputs([w for w, _ in rounded], [h for _, h in rounded], **tolerance)
