"""eager-mismatch: IREE computes a PyTorch program differently from PyTorch itself.

For a `torch.export` program the right answer is what PyTorch computes when it runs the program
eagerly, not what a second IREE pipeline computes: this oracle compiles the MLIR the program
imports to (the candidate carries it, oracles/torch/imported.py) with the candidate's flags (the
generic CPU when they name no target), runs it on the device the compile targets (or --device)
on the candidate's inputs (the user's --inputs, the sizes its dynamic dims run at, seeded
otherwise; every input carries its values, reducer/graphs/torch_program.py), runs the program
eagerly on the same inputs, and compares with `compare_outputs`' dtype-aware tolerance.

A candidate that fails to compile or run, that PyTorch cannot run, or whose eager answer is not
finite is not interesting: a reduction must keep a wrong answer, not trade it for another
failure. Calibrated, a candidate must be wrong the original's way: the same kind on the
corresponding output, with at least `--wrong-share` of its wrong fraction and error
(oracles/numeric/wrong_answer.py), as `reference-mismatch` pins it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles import refusals
from oracles.base import mlir_path_for
from oracles.candidate import Candidate
from oracles.data.arrays import is_float, looks_quantized, reduction_length_hint
from oracles.data.run import compiled_answer, runnable
from oracles.formats import Format
from oracles.numeric.against_reference import AgainstReference
from oracles.numeric.compare import Comparison, compare_outputs
from oracles.torch.imported import imported_program, script_path_for
from oracles.verdict import Verdict

SIGNATURE = "eager-mismatch"
REFERENCE = "PyTorch eager"


class EagerMismatch(AgainstReference):
    name = "eager-mismatch"
    judges_torch = True

    def cannot_judge(self, candidate: Candidate) -> str | None:
        if candidate.format is not Format.PT2:
            kind = "an ONNX model" if candidate.format is Format.ONNX else "MLIR"
            return refusals.EAGER_NEEDS_PT2.say(kind=kind)
        return super().cannot_judge(candidate)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        program = imported_program(candidate)
        run = runnable(program, self.options.seed, self.name)
        if isinstance(run, Verdict):
            return run
        expected = eager_answer(candidate.binary, run.inputs)
        if isinstance(expected, str):
            return Verdict(False, "", expected, {"stage": "eager"})
        actual = compiled_answer(self, program, run.function, run.inputs, run.results, workdir)
        if isinstance(actual, Verdict):
            return actual
        comparison = eager_comparison(expected, actual, program.text, computed_in(candidate.binary))
        return comparison.verdict(self.reference, self.options.wrong_share, SIGNATURE, REFERENCE, run.function)

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """The script that compares IREE with PyTorch, then the compile of the imported MLIR."""
        mlir = mlir_path_for(path)
        compile_line = shlex.join(["iree-compile", *self.compile_flags(candidate.flags), mlir, "-o", self.output_name])
        return f"python {script_path_for(path)}\n{compile_line}"


def eager_comparison(expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], mlir: str,
                     float_types: Sequence[np.dtype]) -> Comparison:
    """IREE's outputs against PyTorch's with this oracle's tolerance: by dtype, scaled by the
    imported program's (`mlir`) longest reduction, 8-bit results 1 LSB apart where it quantizes,
    a float output at the loosest of the types the program computes in (`float_types`). The
    fuzzer's PyTorch front end judges its cases with it."""
    return compare_outputs(expected, actual, reduction_length=reduction_length_hint(mlir), quantized=looks_quantized(mlir),
                           computed_in=float_types)


def computed_in(archive: bytes) -> list[np.dtype]:
    """The float types the archived program computes in, as numpy types (its answer is as exact as the narrowest)."""
    from oracles.torch import eager, program

    return [eager.numpy_type(t) for t in program.float_types(program.loaded(archive))]


def eager_answer(archive: bytes | None, inputs: list) -> list[np.ndarray] | str:
    """PyTorch's outputs of the archived program on `inputs`, or why there is no exact answer."""
    if archive is None:
        return "no PyTorch program to run"
    from oracles.torch import (  # imported late: torch loads only where a .pt2 is judged
        eager,
        program,
    )

    try:
        outputs = eager.outputs(program.loaded(archive), inputs)
    except (eager.EagerError, program.ArchiveError) as err:
        return str(err)
    for j, value in enumerate(outputs):
        if is_float(value.dtype) and not np.all(np.isfinite(value.astype(np.float64))):
            return f"PyTorch gives NaN or Inf in output {j}: no exact answer to compare with"
    return outputs
