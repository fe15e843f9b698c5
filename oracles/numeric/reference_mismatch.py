"""reference-mismatch: an ONNX model computed by IREE gives a different answer from `onnx.reference`.

`miscompile` needs a second pipeline that gets the answer right; for a wrong answer every
pipeline shares (a front-end lowering) or one that the other pipeline cannot compile, there is
none. This oracle compares with the spec itself: each candidate model is imported
(`iree-import-onnx`), compiled with the candidate's flags (the generic CPU when they name no
target), run on local-task with seeded small-integer inputs built from the model's input types,
and compared with `onnx.reference` on the same inputs (spec rounding for QLinearConv and
QLinearMatMul, see oracles/onnx_reference.py), with `compare_outputs`' dtype-aware tolerance
scaled by the graph's longest reduction.

It judges the ONNX model directly (`judges_onnx`), so it is never wrapped in `ImportedOnnx`.
A candidate that fails to import, compile or run, or whose reference fails, is not finite or
has a quantization scale that is not positive, is not interesting: a reduction must keep a
wrong answer, not trade it for another failure or for a degenerate model. Calibrated, a candidate
must be wrong the original's way: the same kind on the corresponding output, with at least
`--wrong-share` of its wrong fraction and error (oracles/numeric/wrong_answer.py).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np

from oracles.base import Oracle, OracleOptions, OracleSetupError
from oracles.candidate import Candidate
from oracles.compiling.signature import excerpt, first_error
from oracles.numeric import case_data
from oracles.numeric.arrays import array_file, entry_function, input_flag
from oracles.numeric.compare import compare_outputs
from oracles.numeric.run import RUN_DEVICE, run_module
from oracles.numeric.user_data import expected_for, has_inputs, inputs_for
from oracles.numeric.wrong_answer import check_share
from oracles.onnx.importer import (
    import_command,
    import_error_line,
    import_model,
    mlir_path_for,
)
from oracles.toolchain.flags import with_default_target
from oracles.verdict import Verdict

SIGNATURE = "reference-mismatch"


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


class ReferenceMismatch(Oracle):
    name = "reference-mismatch"
    judges_onnx = True
    warm_ok = True  # a compile failure is only "not interesting"; a worker's crash is re-run isolated
    output_name = "model.vmfb"

    def __init__(self, options: OracleOptions | None = None) -> None:
        super().__init__(options)
        bad_share = check_share(self.options.wrong_share)
        if bad_share:
            raise OracleSetupError(bad_share)

    def compile_flags(self, user_flags):
        return with_default_target(list(user_flags))

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        if candidate.binary is None:
            return Verdict(False, "", "reference-mismatch judges ONNX models; this candidate is MLIR (use miscompile)")
        ref = _reference()
        try:
            model = _parse(candidate.binary)
            inputs = model_inputs(model, candidate.data, self.options.seed)
        except ValueError as err:
            return Verdict(False, "", f"cannot build inputs for the model: {err}", {"stage": "inputs"})
        try:
            expected = ref.reference_outputs(model, inputs, strict=True)
        except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
            return Verdict(False, "", f"onnx.reference fails: {_one_line(err)}", {"stage": "reference"})
        bad = ref.non_finite_output(expected)
        if bad is not None:
            return Verdict(False, "", f"onnx.reference gives NaN or Inf in output {bad}: no exact answer to compare with", {"stage": "reference"})
        # The user's expected outputs check the reference on the original (calibration) only: once
        # a pass changed what feeds an output they are stale, and onnx.reference judges alone.
        disagreement = _reference_disagrees(model, candidate.data, expected) if self.reference is None else None
        if disagreement:
            return Verdict(False, "", disagreement, {"stage": "reference"})

        limits = self.options.limits
        text, imported = import_model(candidate.binary, workdir, limits, self.options.opset_version)
        if text is None:
            why = "timed out" if imported.timed_out else import_error_line(imported.stderr)
            return Verdict(False, "", f"iree-import-onnx fails: {why}", {"stage": "import"}, excerpt(imported.stderr))
        compiled = self.compile(Candidate(text, candidate.flags), workdir)
        if compiled.process.timed_out:
            return Verdict(False, "", f"compile timed out after {compiled.process.seconds:.0f} s", {"stage": "compile"})
        if not compiled.ok:
            stderr = compiled.process.stderr
            why = first_error(stderr) or compiled.process.signal_name or f"exit {compiled.process.returncode}"
            return Verdict(False, "", f"fails to compile: {why}", {"stage": "compile"}, excerpt(stderr))
        try:
            function, arg_types, result_types = entry_function(text)
        except ValueError as err:
            return Verdict(False, "", f"cannot run the imported model: {err}", {"stage": "run"})
        if len(arg_types) != len(inputs):
            why = f"@{function} takes {len(arg_types)} arguments for the model's {len(inputs)} inputs"
            return Verdict(False, "", f"cannot run the imported model: {why}", {"stage": "run"})
        actual = run_module(compiled.output, function, list(inputs.values()), workdir, limits, result_types=result_types)
        if isinstance(actual, str):
            return Verdict(False, "", f"fails to run @{function}: {actual}", {"stage": "run"})

        comparison = compare_outputs(
            expected, actual, reduction_length=ref.reduction_length(model), quantized=ref.is_quantized(model)
        )
        metrics = comparison.metrics()
        if comparison.matches:
            return Verdict(False, "", f"IREE matches onnx.reference on @{function}: {comparison.description}", metrics)
        examples = "; ".join(comparison.examples[:3])
        slipped = comparison.differs_from(self.reference, self.options.wrong_share)
        if slipped:
            return Verdict(False, "", f"IREE differs from onnx.reference on @{function}, {slipped}", metrics, "\n".join(comparison.examples))
        return Verdict(
            True,
            SIGNATURE,
            f"IREE differs from onnx.reference on @{function}: {comparison.description}{comparison.headline()}" + (f" ({examples})" if examples else ""),
            metrics,
            "\n".join(comparison.examples),
        )

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """Import, compile, write the inputs (arg<i>) and the reference's outputs (expected<j>),
        run (result<j>); last, `check` runs the oracle once and prints the differing elements.
        A candidate with the user's data gets it written to `path.data/` (case_data.py): arg<i>
        for iree-run-module, test_data_set_0/ with onnx.reference's outputs for `check`."""
        mlir, vmfb = mlir_path_for(path), str(Path(path).with_suffix(".vmfb"))
        model_flags = ["--seed", str(self.options.seed)]
        opset = [] if self.options.opset_version is None else ["--opset-version", str(self.options.opset_version)]
        imported = import_command(path, mlir, self.options.opset_version)
        imported[0] = "iree-import-onnx"
        lines = [
            shlex.join(imported),
            shlex.join(["iree-compile", *self.compile_flags(candidate.flags), mlir, "-o", vmfb]),
        ]
        if has_inputs(candidate.data):  # the user's data, cut to the case: written beside it
            try:
                lines.append(_write_case_data(candidate, path, vmfb, self.options.seed))
                model_flags = ["--inputs", str(case_data.data_dir(path) / "test_data_set_0")]
            except ValueError:
                pass
        else:
            lines.append(shlex.join(["python", "-m", "oracles.onnx_reference", "write-inputs", path, *model_flags]))
            try:
                lines.append(run_command(candidate.binary or b"", vmfb, self.options.seed))
            except ValueError:
                pass
        flags = ["--", *candidate.flags] if candidate.flags else []
        lines.append(shlex.join(["python", "-m", "oracles.onnx_reference", "check", path, *model_flags, *opset, *flags]))
        return "\n".join(lines)


def model_inputs(model, data: tuple[tuple[str, bytes], ...], seed: int) -> dict:
    """The inputs a model runs on by name: the user's data where the candidate carries some
    (oracles/numeric/user_data.py), else the seeded small integers."""
    ref = _reference()
    if not has_inputs(data):
        return ref.seeded_inputs(model, seed)
    named = ref.graph_inputs(model)
    return {name: np.asarray(value) for (name, _), value in zip(named, inputs_for(data, named, seed))}


def _reference_disagrees(model, data: tuple[tuple[str, bytes], ...], reference_outputs: list) -> str | None:
    """Why onnx.reference cannot judge the candidates, when the user's expected outputs (of the
    original's outputs) say it is wrong itself; None when they agree or do not apply."""
    ref = _reference()
    outputs = ref.graph_outputs(model)
    wanted = expected_for(data, [name for name, _ in outputs], [t for _, t in outputs])
    if wanted is None:
        return None
    comparison = compare_outputs(wanted, reference_outputs, reduction_length=ref.reduction_length(model),
                                 quantized=ref.is_quantized(model))
    if comparison.matches:
        return None
    return (f"onnx.reference differs from the expected outputs ({comparison.description}): "
            "no reference can judge candidates of this model")


def _reference():
    """oracles.onnx.reference, imported late: onnx.reference is slow to load, and every user of
    the oracle registry (an external reducer's per-candidate judge included) would pay for it."""
    from oracles.onnx import reference

    return reference


def _parse(data: bytes):
    """The ModelProto in `data`; ValueError (one line) when the bytes are no ONNX model."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        return onnx.load_from_string(data)
    except (DecodeError, RuntimeError) as err:
        raise ValueError(f"cannot parse the model: {' '.join(str(err).split())}") from None


def _write_case_data(candidate: Candidate, path: str, vmfb: str, seed: int) -> str:
    """Writes the case's inputs and onnx.reference's outputs beside it; the iree-run-module line."""
    model = _parse(candidate.binary or b"")
    inputs = model_inputs(model, candidate.data, seed)
    try:
        expected = _reference().reference_outputs(model, inputs)
    except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
        raise ValueError(_one_line(err)) from None
    case_data.write_onnx_test_data(inputs, list(zip([o.name for o in model.graph.output], expected)), path)
    values = list(inputs.values())
    case_data.write_inputs(values, path)
    return shlex.join(_run_argv(model, vmfb, case_data.input_flags(values, path)))


def _run_argv(model, vmfb: str, input_flags: list[str]) -> list[str]:
    from onnx import helper

    argv = ["iree-run-module", f"--device={RUN_DEVICE}", f"--module={vmfb}", f"--function={model.graph.name}", *input_flags]
    for j, output in enumerate(model.graph.output):
        dtype = helper.tensor_dtype_to_np_dtype(output.type.tensor_type.elem_type)
        argv.append(f"--output=@{array_file(dtype, f'result{j}')}")
    return argv


def run_command(model_bytes: bytes, vmfb: str, seed: int) -> str:
    """The `iree-run-module` line reading `write-inputs`' files and writing result<j>.npy / .bin."""
    model = _parse(model_bytes)
    inputs = _reference().seeded_inputs(model, seed)
    return shlex.join(_run_argv(model, vmfb, [input_flag(value, f"arg{i}")[0] for i, value in enumerate(inputs.values())]))
