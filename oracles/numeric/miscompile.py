"""miscompile: two compile pipelines give different results for the same program and inputs.

The program is compiled twice (`--pipeline-a`, `--pipeline-b`), both modules run in a child
`iree-run-module` process (a miscompiled module may crash) on the same seeded inputs, and the
outputs are compared with a dtype-aware tolerance (oracles/numeric/compare.py). Calibrated, a
candidate must be wrong the original's way (oracles/numeric/wrong_answer.py); a program that
reads a `tensor.empty` value is never interesting: its answer is undefined
(oracles/mlir/uninitialised.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles import refusals
from oracles.base import Oracle, OracleSetupError
from oracles.candidate import Candidate
from oracles.data import reference_pipeline
from oracles.data.arrays import (
    looks_quantized,
    reduction_length_hint,
)
from oracles.data.carried import program_expected
from oracles.data.run import (
    NONDETERMINISTIC,
    no_module,
    run_commands,
    run_module,
    runnable,
)
from oracles.mlir.uninitialised import uninitialised_reads_in
from oracles.numeric.compare import compare_outputs
from oracles.numeric.wrong_answer import check_share
from oracles.toolchain.devices import is_gpu, runtime_device
from oracles.toolchain.flags import names_any_target, with_default_target
from oracles.toolchain.tools import compile_candidate
from oracles.verdict import Verdict


class Miscompile(Oracle):
    name = "miscompile"
    output_name = "a.vmfb"
    runs_modules = True

    def __init__(self, options=None) -> None:
        super().__init__(options)
        if not self.options.pipeline_a and not self.options.pipeline_b:
            raise OracleSetupError(refusals.MISCOMPILE_NEEDS_PIPELINES.say(reference=reference_pipeline.NAME))
        bad_share = check_share(self.options.wrong_share)
        if bad_share:
            raise OracleSetupError(refusals.relayed(bad_share))

    def pipeline_flags(self, which: str, user_flags: Sequence[str]) -> list[str]:
        """Flags of pipeline 'a' or 'b': the user's, then its own (the compiler's last word for an
        option wins, so a pipeline's own flags override the shared ones); the generic CPU when no
        target is named."""
        own = self.options.pipeline_a if which == "a" else self.options.pipeline_b
        if tuple(own) == reference_pipeline.FLAGS:  # the reference: the user's flags are the case's
            return list(own)
        # A device is a list option (each one named adds a device), not last-wins: where the
        # pipeline names its own target, the shared ones go; a flag it repeats is given once.
        shared = [f for f in user_flags if f not in own and not (names_any_target(own) and names_any_target([f]))]
        return with_default_target([*shared, *own])

    def pipeline_device(self, which: str, user_flags: Sequence[str]) -> str:
        """The device pipeline 'a' or 'b' runs on: --device-a / -b, else --device, else its target's."""
        named = self.options.device_a if which == "a" else self.options.device_b
        return named or self.options.device or runtime_device(self.pipeline_flags(which, user_flags))

    def run_pipelines(self, flags):
        return [(which.upper(), self.pipeline_flags(which, flags), self.pipeline_device(which, flags)) for which in ("a", "b")]

    def compile_flags(self, user_flags):
        return self.pipeline_flags("a", user_flags)

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """Compile and run with both pipelines (oracles/data/run.py)."""
        pipelines = [(name.lower(), flags, device) for name, flags, device in self.run_pipelines(candidate.flags)]
        return run_commands(candidate, path, self.options.seed, pipelines)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        program = runnable(candidate, self.options.seed, self.name)
        if isinstance(program, Verdict):
            return program
        function, result_texts, inputs = program.function, program.results, program.inputs
        undefined = uninitialised_reads_in(candidate.text)
        if undefined:
            return Verdict(False, "", f"reads uninitialised memory, its answer is undefined: {undefined[0]}", {"stage": "undefined"})
        limits = self.options.limits
        outputs: list[list[np.ndarray]] = []
        for which in ("a", "b"):
            label = which.upper()
            subdir = workdir / which
            subdir.mkdir()
            compiled = compile_candidate(candidate, self.pipeline_flags(which, candidate.flags), subdir, limits, f"{which}.vmfb")
            unbuilt = no_module(compiled, f"pipeline {label}")
            if unbuilt is not None:
                return unbuilt
            device = self.pipeline_device(which, candidate.flags)
            result = run_module(compiled.output, function, inputs, subdir, limits, device=device,
                                    twice=self.reference is None and is_gpu(device))
            if isinstance(result, str) and result.startswith(NONDETERMINISTIC):
                return Verdict(False, "", f"pipeline {label}: {result}", {"stage": NONDETERMINISTIC})
            if isinstance(result, str):
                return Verdict(False, "", f"pipeline {label} fails to run @{function} on {device}: {result}")
            outputs.append(result)
        tolerance = {"reduction_length": reduction_length_hint(candidate.text), "quantized": looks_quantized(candidate.text)}
        # The user's expected outputs judge the original (calibration) only: once a pass changed
        # what feeds a result, they are stale, and the reference pipeline judges alone.
        expected = program_expected(candidate.data, result_texts) if self.reference is None else None
        if expected is not None:
            shared = _against_expected(expected, outputs, tolerance)
            if shared:
                return Verdict(False, "", shared, {"stage": "expected"})
        comparison = compare_outputs(outputs[0], outputs[1], **tolerance)
        metrics = comparison.metrics()
        if comparison.matches:
            return Verdict(False, "", f"pipelines agree on @{function}: {comparison.description}", metrics)
        slipped = comparison.differs_from(self.reference, self.options.wrong_share)
        if slipped:
            return Verdict(False, "", f"pipeline B differs from A on @{function}, {slipped}", metrics, "\n".join(comparison.examples))
        return Verdict(
            True,
            f"miscompile: {function} output {comparison.first_mismatch} differs",
            f"pipeline B differs from A on @{function}: {comparison.description}{comparison.headline()}",
            metrics,
            "\n".join(comparison.examples),
        )


def _against_expected(expected: list[np.ndarray], outputs: list[list[np.ndarray]], tolerance: dict) -> str | None:
    """Why the user's expected outputs rule this candidate out: pipeline A gets them right, or
    pipeline B (the reference candidates are judged against) gets them wrong too."""
    a, b = (compare_outputs(expected, got, **tolerance) for got in outputs)
    if a.matches:
        return f"pipeline A matches the expected outputs: {a.description}"
    if not b.matches:
        return (f"pipeline B differs from the expected outputs too ({b.description}): every pipeline shares "
                "the wrong answer, no reference can judge candidates (name a --pipeline-b that gets it right)")
    return None


# ---------------------------------------------------------------------------------------------
