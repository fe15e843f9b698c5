"""Running a compiled module in a child `iree-run-module` process (a miscompiled module may crash)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oracles.candidate import Candidate
from oracles.data import case_data
from oracles.data.arrays import (
    ArgType,
    array_file,
    entry_function,
    input_flag,
    parse_type,
    write_array,
)
from oracles.data.carried import has_inputs, program_inputs
from oracles.formats import Format
from oracles.signature import excerpt, first_error
from oracles.toolchain.devices import CPU_DEVICE, is_gpu
from oracles.toolchain.tools import (
    CompileResult,
    Limits,
    ProcessResult,
    find_tool,
    run_tool,
)
from oracles.verdict import Verdict

RUN_DEVICE = CPU_DEVICE


def result_file(result_type: str, stem: str) -> tuple[str, ArgType | None]:
    """The output file name for one result; a bf16 / f8 tensor goes to a raw .bin (npy has neither)."""
    try:
        shape, dtype = parse_type(result_type)
    except ValueError:
        return f"{stem}.npy", None
    if shape is None:  # a primitive scalar result
        return f"{stem}.npy", None
    name = array_file(dtype, stem)
    return name, ((shape, dtype) if name.endswith(".bin") else None)


def exported_results(vmfb_path: str | Path, function: str, limits: Limits) -> list[str] | str:
    """Result types of an exported function (builtin syntax, or VM types), or an error string."""
    result = run_tool([find_tool("iree-dump-module"), "--output=metadata", str(vmfb_path)], limits)
    if result.returncode != 0 or result.timed_out:
        return f"iree-dump-module failed: {first_error(result.stderr) or result.returncode}"
    exports: list[str] = []
    lines = result.stdout.splitlines()
    in_exports = False
    for i, line in enumerate(lines):
        if line.startswith("Exported Functions:"):
            in_exports = True
            continue
        if in_exports and line and not line.startswith(" "):
            break
        match = re.match(r"\s*\[\s*\d+\]\s+([^\s(]+)\((.*)\)\s*->\s*\((.*)\)\s*$", line) if in_exports else None
        if not match:
            continue
        exports.append(match.group(1))
        if match.group(1) != function:
            continue
        vm_results = [r.strip() for r in match.group(3).split(",") if r.strip()]
        declaration = lines[i + 1] if i + 1 < len(lines) and "iree.abi.declaration" in lines[i + 1] else ""
        declared = re.findall(r"%output\d+:\s*(tensor<[^>]*>|[^,()\s]+)", declaration.split("->", 1)[-1])
        return declared if len(declared) == len(vm_results) else vm_results
    return f"function @{function} is not exported (exports: {', '.join(exports) or 'none'})"


@dataclass
class Runnable:
    """What a candidate runs: its entry function, result types and inputs."""

    function: str
    results: list[str]
    inputs: list[np.ndarray | np.generic]


def runnable(candidate: Candidate, seed: int, oracle_name: str) -> Runnable | Verdict:
    """The candidate's entry function and the inputs it runs on (the user's, else seeded), or the
    uninteresting verdict on why it cannot run."""
    if candidate.format is Format.ONNX:
        return Verdict(False, "", f"{oracle_name} needs MLIR text; import the model first (iree-import-onnx)")
    try:
        function, args, results = entry_function(candidate.text, dynamic=True)
        return Runnable(function, results, program_inputs(candidate.data, args, seed))
    except ValueError as err:
        return Verdict(False, "", f"cannot run the program: {err}")


def no_module(compiled: CompileResult, what: str) -> Verdict | None:
    """The uninteresting verdict on a compile that made no module to run (`what` names it:
    "pipeline A", "the program"), or None when it made one."""
    if compiled.process.timed_out:
        return Verdict(False, "", f"{what}: compile timed out after {compiled.process.seconds:.0f} s")
    if compiled.ok:
        return None
    stderr = compiled.process.stderr
    why = first_error(stderr) or compiled.process.signal_name or f"exit {compiled.process.returncode}"
    return Verdict(False, "", f"{what} fails to compile: {why}", excerpt=excerpt(stderr))


NONDETERMINISTIC = "nondeterministic"


@dataclass
class ModuleRun:
    """One finished `iree-run-module` process and where its results were written."""

    process: ProcessResult
    outputs: list[tuple[Path, ArgType | None]]  # each result's file, and its raw type for a .bin

    def failure(self) -> str | None:
        """Why the run gave no results (one line), or None when it ran."""
        if self.process.timed_out:
            return f"iree-run-module timed out after {self.process.seconds:.0f} s"
        if self.process.signal_name:
            return f"iree-run-module crashed with {self.process.signal_name}"
        if self.process.returncode != 0:
            return first_error(self.process.stderr) or f"iree-run-module exited {self.process.returncode}"
        return None


def run_module(
    vmfb_path: str | Path,
    function: str,
    inputs: Sequence[np.ndarray | np.generic],
    workdir: str | Path,
    limits: Limits | None = None,
    *,
    device: str = RUN_DEVICE,
    result_types: Sequence[str] | None = None,
    stderr_file: Path | None = None,
    twice: bool = False,
) -> list[np.ndarray] | str:
    """Runs `function` of a compiled module in a child `iree-run-module`; its results, or why not.

    Inputs go through .npy files (bf16 / f8 as raw .bin), scalars (numpy scalars) as literals; each
    result is written to its own .npy (`--output` must be given once per result, so the result
    count is read from the module first, unless the caller knows the `result_types`: the module
    says only `!vm.ref` for a function without an ABI declaration, and a bf16 / f8 result can
    only be read back with its type). Returns a one-line error string when the module is
    missing the function, crashes (a miscompiled module may), times out or reports an error.
    Give each run its own `workdir`: the file names are fixed. `stderr_file`, when given, receives the
    run's whole standard error (a module compiled to trace its dispatches prints their tensors there).
    With `twice` the module runs again and must give the same bits: a GPU's atomics and reduction
    order can change an answer between runs, and such a wrong answer is reported as
    nondeterministic, never reduced as a fixed one (the string for it starts with NONDETERMINISTIC).
    """
    first = _run_once(vmfb_path, function, inputs, workdir, limits, device, result_types, stderr_file)
    if not twice or isinstance(first, str):
        return first
    again = _run_once(vmfb_path, function, inputs, workdir, limits, device, result_types, stderr_file)
    if isinstance(again, str):
        return f"{NONDETERMINISTIC}: the second run on {device} fails: {again}"
    return _differing_runs(first, again, device) or first


NONDETERMINISTIC = "nondeterministic"


def _differing_runs(first: list[np.ndarray], again: list[np.ndarray], device: str) -> str | None:
    """Why two runs of one module on the same inputs differ (bit for bit), or None."""
    for j, (a, b) in enumerate(zip(first, again)):
        a, b = np.asarray(a), np.asarray(b)
        equal = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind in "fc" else a == b
        if not np.all(equal):
            return (f"{NONDETERMINISTIC}: two runs on {device} of the same module and inputs differ in "
                    f"{int(np.count_nonzero(~equal))} of {a.size} elements of output {j} (atomics or reduction order): "
                    "not reduced as a fixed wrong answer")
    return None


def _run_once(vmfb_path, function, inputs, workdir, limits, device, result_types, stderr_file) -> list[np.ndarray] | str:
    run = start_run(vmfb_path, function, inputs, workdir, limits, device=device, result_types=result_types, stderr_file=stderr_file)
    if isinstance(run, str):
        return run
    failure = run.failure()
    if failure is not None:
        return failure
    arrays = []
    for path, raw in run.outputs:
        try:
            if raw is not None:
                shape, dtype = raw
                arrays.append(np.fromfile(path, dtype=dtype).reshape(shape))
            else:
                arrays.append(np.load(path))
        except (OSError, ValueError, EOFError) as err:
            return f"cannot read {path.name}: {err}"
    return arrays


def start_run(
    vmfb_path: str | Path,
    function: str,
    inputs: Sequence[np.ndarray | np.generic],
    workdir: str | Path,
    limits: Limits | None = None,
    *,
    device: str = RUN_DEVICE,
    result_types: Sequence[str] | None = None,
    stderr_file: Path | None = None,
) -> ModuleRun | str:
    """The `iree-run-module` process of `run_module`, however it ended (the run-error oracle
    judges how), or why it could not start (the module lacks the function)."""
    limits = limits or Limits()
    workdir = Path(workdir)
    if result_types is None:
        result_types = exported_results(vmfb_path, function, limits)
        if isinstance(result_types, str):
            return result_types
    module = Path(vmfb_path).resolve()
    argv = [find_tool("iree-run-module"), f"--device={device}", f"--module={module}", f"--function={function}"]
    for i, value in enumerate(inputs):
        flag, path = input_flag(value, f"arg{i}")
        write_array(value, None if path is None else workdir / path)
        argv.append(flag)
    outputs = []
    for j, result_type in enumerate(result_types):
        name, raw = result_file(result_type, f"result{j}")
        argv.append(f"--output=@{name}")
        outputs.append((workdir / name, raw))
    return ModuleRun(run_tool(argv, limits, cwd=str(workdir), stderr_file=stderr_file, resident_cap=is_gpu(device)), outputs)


def compiled_answer(oracle, program: Candidate, function: str, inputs: Sequence[np.ndarray | np.generic],
                    result_types: Sequence[str], workdir: Path) -> list[np.ndarray] | Verdict:
    """The outputs of `program` compiled by `oracle` (its flags, its warm compiler) and run on its
    device on `inputs`; or the uninteresting verdict on why there are none. Uncalibrated, a GPU
    runs it twice: a nondeterministic answer is never the wrong answer a reduction keeps."""
    compiled = oracle.compile(program, workdir)
    if compiled.process.timed_out:
        return Verdict(False, "", f"compile timed out after {compiled.process.seconds:.0f} s", {"stage": "compile"})
    if not compiled.ok:
        stderr = compiled.process.stderr
        why = first_error(stderr) or compiled.process.signal_name or f"exit {compiled.process.returncode}"
        return Verdict(False, "", f"fails to compile: {why}", {"stage": "compile"}, excerpt(stderr))
    device = oracle.run_device(program.flags)
    actual = run_module(compiled.output, function, inputs, workdir, oracle.options.limits, device=device,
                        result_types=result_types, twice=oracle.reference is None and is_gpu(device))
    if isinstance(actual, str) and actual.startswith(NONDETERMINISTIC):
        return Verdict(False, "", actual, {"stage": NONDETERMINISTIC})
    if isinstance(actual, str):
        return Verdict(False, "", f"fails to run @{function} on {device}: {actual}", {"stage": "run"})
    return actual


def run_commands(candidate: Candidate, path: str, seed: int, pipelines: Sequence[tuple[str, Sequence[str], str]]) -> str:
    """The shell lines that compile the case at `path` with each (name, flags, device) pipeline and
    run each module on its device on the inputs the oracle used: a candidate with the user's data
    gets it written to `path.data/` (case_data.py), a seeded one a `write-inputs` line first."""
    lines = []
    try:
        function, args, results = entry_function(candidate.text, dynamic=True)
    except ValueError:
        function, args, results = "main", [], []
    values = program_inputs(candidate.data, args, seed)
    if has_inputs(candidate.data):  # the user's data, cut to the case: written beside it
        case_data.write_inputs(values, path)
        input_flags = case_data.input_flags(values, path)
    else:
        input_flags = [input_flag(v, f"arg{i}")[0] for i, v in enumerate(values)]
        if args:
            lines.append(shlex.join(["python", "-m", "oracles.miscompile", "write-inputs", path, "--seed", str(seed)]))
    for name, flags, _ in pipelines:
        lines.append(shlex.join(["iree-compile", *flags, path, "-o", f"{name}.vmfb"]))
    for name, _, device in pipelines:
        output_flags = [f"--output=@{result_file(t, f'{name}_result{j}')[0]}" for j, t in enumerate(results)]
        run = ["iree-run-module", f"--device={device}", f"--module={name}.vmfb", f"--function={function}"]
        lines.append(shlex.join([*run, *input_flags, *output_flags]))
    return "\n".join(lines)
