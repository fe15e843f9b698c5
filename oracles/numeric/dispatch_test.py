"""A dispatch-level numerical test: the program that computes a wrong value, alone, with its data.

Localisation (reducer/localize/wrong_value.py) cuts the culprit dispatch's source ops out of the
program as a function of their own, fed the values the reference run captured there. This
writes that function as a test an IREE engineer runs by itself: `test.mlir`, its inputs
`input_I.npy` and the reference pipeline's outputs `expected_J.npy` (`.bin`, typed in the flag,
for integers), and the `iree-compile` +
`iree-run-module --expected_output=` commands that fail on the wrong pipeline; then runs those
commands once to say whether the test reproduces the wrong answer alone.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from oracles.candidate import Candidate
from oracles.data.arrays import entry_function, input_flag, write_array
from oracles.data.run import RUN_DEVICE, run_module
from oracles.numeric.compare import tolerance_for
from oracles.signature import first_error
from oracles.toolchain.devices import is_gpu
from oracles.toolchain.tools import (
    Limits,
    compile_candidate,
    find_tool,
    run_tool,
    scratch_dir,
)

PROGRAM_NAME = "test.mlir"
MODULE_NAME = "wrong.vmfb"
_THRESHOLD_FLAGS = {np.dtype(np.float32): "--expected_f32_threshold", np.dtype(np.float16): "--expected_f16_threshold",
                    np.dtype(np.float64): "--expected_f64_threshold"}


@dataclass
class DispatchTest:
    directory: Path
    commands: list[str] = field(default_factory=list)  # run in `directory`
    reproduces: bool = False  # the run command fails with the wrong pipeline's output
    detail: str = ""  # what the run printed ([FAILED] result[0]: ...) or why no test was written


def write_dispatch_test(
    program: Candidate,
    inputs: Sequence[np.ndarray | np.generic],
    wrong_flags: Sequence[str],
    directory: Path,
    limits: Limits,
    *,
    right_flags: Sequence[str] | None = None,
    expected: Sequence[np.ndarray] | None = None,
    reduction_length: int = 1,
    quantized: bool = False,
    wrong_device: str = RUN_DEVICE,
    right_device: str = RUN_DEVICE,
) -> DispatchTest:
    """Writes the test into `directory` and checks it: the expected outputs are given (onnx.reference's)
    or computed by the right pipeline on `right_device`; the wrong one's module is run against them
    on `wrong_device` (a GPU's wrong answer is tested where it is computed) by the printed command."""
    directory = directory.resolve()  # the tools run with their own working directories
    directory.mkdir(parents=True, exist_ok=True)
    test = DispatchTest(directory)
    try:
        function, _, result_types = entry_function(program.text, dynamic=True)
    except ValueError as err:
        test.detail = f"cannot run the cut-out program: {err}"
        return test
    (directory / PROGRAM_NAME).write_text(program.text)
    if expected is None:
        computed = _run_right(program, inputs, right_flags or [], function, result_types, limits, right_device)
        if isinstance(computed, str):
            test.detail = computed
            return test
        expected = computed
    input_flags = []
    for i, value in enumerate(inputs):
        name = f"input_{i}.npy"
        write_array(np.asarray(value), directory / name)
        input_flags.append(f"--input=@{name}")
    expected_flags = [_expected_flag(np.asarray(value), f"expected_{j}", directory) for j, value in enumerate(expected)]
    compile_argv = ["iree-compile", *wrong_flags, PROGRAM_NAME, "-o", MODULE_NAME]
    run_argv = ["iree-run-module", f"--device={wrong_device}", f"--module={MODULE_NAME}", f"--function={function}",
                *input_flags, *expected_flags, *_tolerance_flags(expected, reduction_length, quantized)]
    test.commands = [shlex.join(compile_argv), shlex.join(run_argv)]
    built = run_tool([find_tool("iree-compile"), *compile_argv[1:]], limits, cwd=str(directory))
    if built.returncode != 0:
        test.detail = f"the wrong pipeline fails to compile it: {first_error(built.stderr)}"
        return test
    ran = run_tool([find_tool("iree-run-module"), *run_argv[1:]], limits, cwd=str(directory), resident_cap=is_gpu(wrong_device))
    printed = ran.stdout + ran.stderr
    failed = [line.strip() for line in printed.splitlines() if line.startswith("[FAILED]")]
    test.reproduces = ran.returncode != 0 and bool(failed)
    if failed or ran.returncode != 0:
        test.detail = failed[0] if failed else first_error(printed) or f"iree-run-module exits {ran.returncode}"
    else:
        test.detail = "all outputs match the expected values"
    return test


def _expected_flag(value: np.ndarray, stem: str, directory: Path) -> str:
    """`--expected_output=` for one expected output, its file written. iree-run-module compares
    element types as well as values, and a .npy of integers reads as signed (si8) where the program
    returns signless i8 (a test would fail on the type alone): integers go as raw bits with the
    signless type spelled out, `2x3xi8=@expected_0.bin`; floats as .npy (bf16 / f8 as raw bits)."""
    if value.dtype.kind in "iu":
        shape = "x".join(str(d) for d in value.shape)
        np.ascontiguousarray(value).tofile(directory / f"{stem}.bin")
        return f"--expected_output={shape + 'x' if shape else ''}i{value.dtype.itemsize * 8}=@{stem}.bin"
    flag, path = input_flag(value, stem)
    write_array(value, directory / path.name if path is not None else None)
    return flag.replace("--input=", "--expected_output=", 1)


def _tolerance_flags(expected: Sequence[np.ndarray], reduction_length: int, quantized: bool) -> list[str]:
    """The oracle's own tolerance for the expected outputs' float types, as iree-run-module flags."""
    flags, rtol = [], 0.0
    for dtype in sorted({np.asarray(v).dtype for v in expected if np.asarray(v).dtype in _THRESHOLD_FLAGS}, key=str):
        atol, dtype_rtol = tolerance_for(dtype, reduction_length, quantized)
        flags.append(f"{_THRESHOLD_FLAGS[dtype]}={atol:.3g}")
        rtol = max(rtol, dtype_rtol)
    return [*flags, f"--expected_rtol={rtol:.3g}"] if flags else flags


def _run_right(program: Candidate, inputs, right_flags: Sequence[str], function: str, result_types, limits: Limits,
               device: str) -> list[np.ndarray] | str:
    """The reference pipeline's outputs of the program, or why there are none."""
    with scratch_dir() as right_dir:
        compiled = compile_candidate(Candidate(program.text, ()), list(right_flags), Path(right_dir), limits, "right.vmfb")
        if not compiled.ok:
            return f"the reference pipeline fails to compile it: {first_error(compiled.process.stderr)}"
        ran = run_module(compiled.output, function, inputs, right_dir, limits, device=device, result_types=result_types)
    return ran if not isinstance(ran, str) else f"the reference pipeline fails to run it: {ran}"
