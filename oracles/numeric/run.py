"""Running a compiled module in a child `iree-run-module` process (a miscompiled module may crash)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles.compiling.signature import first_error
from oracles.numeric.arrays import (
    ArgType,
    array_file,
    input_flag,
    parse_type,
    write_array,
)
from oracles.toolchain.tools import Limits, find_tool, run_tool

RUN_DEVICE = "local-task"


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
    """
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
    process = run_tool(argv, limits, cwd=str(workdir), stderr_file=stderr_file)
    if process.timed_out:
        return f"iree-run-module timed out after {process.seconds:.0f} s"
    if process.signal_name:
        return f"iree-run-module crashed with {process.signal_name}"
    if process.returncode != 0:
        return first_error(process.stderr) or f"iree-run-module exited {process.returncode}"
    arrays = []
    for path, raw in outputs:
        try:
            if raw is not None:
                shape, dtype = raw
                arrays.append(np.fromfile(path, dtype=dtype).reshape(shape))
            else:
                arrays.append(np.load(path))
        except (OSError, ValueError, EOFError) as err:
            return f"cannot read {path.name}: {err}"
    return arrays


