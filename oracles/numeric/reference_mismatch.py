"""reference-mismatch: an ONNX model computed by IREE gives a different answer from `onnx.reference`.

`miscompile` needs a second pipeline that gets the answer right; for a wrong answer every
pipeline shares (a front-end lowering) or one that the other pipeline cannot compile, there is
none. This oracle compares with the spec itself: each candidate model is imported
(`iree-import-onnx`), compiled with the candidate's flags (the generic CPU when they name no
target), run on the device the compile targets (or --device) with seeded small-integer inputs built from the model's input types,
and compared with `onnx.reference` on the same inputs (spec rounding for QLinearConv and
QLinearMatMul, see oracles/onnx_reference.py), with `compare_outputs`' dtype-aware tolerance
scaled by the graph's longest reduction.

It judges the ONNX model directly (`judges_onnx`), so it is never wrapped in `ImportedOnnx`.
torch-onnx IR (what `iree-import-onnx` emits: `torch.operator "onnx.*"` ops) is judged as it is:
IREE compiles and runs the candidate's text, and onnx.reference evaluates the graph it lifts to
(oracles/onnx/lift.py, its constants' data included) on the same inputs, bound by position.
Other IR (linalg, flow, a torch op with no ONNX counterpart) has no reference: `cannot_judge`
names the op that stops the lift.
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

from oracles import refusals
from oracles.base import mlir_path_for
from oracles.candidate import Candidate
from oracles.data import case_data
from oracles.data.arrays import array_file, entry_function, input_flag
from oracles.data.carried import (
    INTERMEDIATE_BYTES,
    expected_for,
    has_inputs,
    inputs_for,
    program_expected,
    program_inputs,
)
from oracles.data.intermediates import Position, smallest_within
from oracles.data.run import compiled_answer
from oracles.numeric.against_reference import AgainstReference
from oracles.numeric.compare import compare_outputs
from oracles.onnx.importer import import_command, import_error_line, import_model
from oracles.signature import excerpt
from oracles.verdict import Verdict

SIGNATURE = "reference-mismatch"


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


class ReferenceMismatch(AgainstReference):
    name = "reference-mismatch"
    judges_onnx = True

    def cannot_judge(self, candidate: Candidate) -> str | None:
        missing = super().cannot_judge(candidate)
        if missing or candidate.binary is not None:
            return missing
        try:
            _lift(candidate.text)
        except ValueError as err:
            return refusals.NOT_LIFTABLE.say(error=err)
        return None

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        if candidate.binary is None:
            return self._observe_program(candidate, workdir)
        ref = _reference()
        try:
            model = _parse(candidate.binary)
            inputs = model_inputs(model, candidate.data, self.options.seed)
        except ValueError as err:
            return Verdict(False, "", f"cannot build inputs for the model: {err}", {"stage": "inputs"})
        outputs = ref.graph_outputs(model)
        wanted = expected_for(candidate.data, [name for name, _ in outputs], [t for _, t in outputs]) if self.reference is None else None
        expected = self._reference_answer(model, inputs, wanted)
        if isinstance(expected, Verdict):
            return expected

        limits = self.options.limits
        text, imported = import_model(candidate.binary, workdir, limits, self.options.opset_version)
        if text is None:
            why = "timed out" if imported.timed_out else import_error_line(imported.stderr)
            return Verdict(False, "", f"iree-import-onnx fails: {why}", {"stage": "import"}, excerpt(imported.stderr))
        try:
            function, arg_types, result_types = entry_function(text, dynamic=True)
        except ValueError as err:
            return Verdict(False, "", f"cannot run the imported model: {err}", {"stage": "run"})
        if len(arg_types) != len(inputs):
            why = f"@{function} takes {len(arg_types)} arguments for the model's {len(inputs)} inputs"
            return Verdict(False, "", f"cannot run the imported model: {why}", {"stage": "run"})
        actual = self._iree_answer(Candidate(text, candidate.flags), function, list(inputs.values()), result_types, workdir)
        if isinstance(actual, Verdict):
            return actual
        return self._compared(model, function, expected, actual)

    def _observe_program(self, candidate: Candidate, workdir: Path) -> Verdict:
        """torch-onnx IR: IREE runs the text as it is, onnx.reference the graph it lifts to."""
        try:
            model, inputs, (function, result_types) = program_reference_inputs(candidate, self.options.seed)
        except ValueError as err:
            return Verdict(False, "", f"cannot judge the program against onnx.reference: {err}", {"stage": "inputs"})
        wanted = program_expected(candidate.data, result_types) if self.reference is None else None
        expected = self._reference_answer(model, inputs, wanted)
        if isinstance(expected, Verdict):
            return expected
        actual = self._iree_answer(candidate, function, list(inputs.values()), result_types, workdir)
        if isinstance(actual, Verdict):
            return actual
        return self._compared(model, function, expected, actual)

    def _reference_answer(self, model, inputs: dict, wanted: list[np.ndarray] | None) -> list[np.ndarray] | Verdict:
        """onnx.reference's outputs, or the verdict that there is no exact answer to compare with.
        The user's expected outputs (`wanted`, of the original's outputs) check the reference; the
        callers pass them on the original (calibration) only: once a pass changed what feeds an
        output they are stale, and onnx.reference judges alone."""
        ref = _reference()
        try:
            expected = ref.reference_outputs(model, inputs, strict=True)
        except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
            return Verdict(False, "", refusals.REFERENCE_FAILS.say(error=_one_line(err)), {"stage": "reference"})
        bad = ref.non_finite_output(expected)
        if bad is not None:
            return Verdict(False, "", f"onnx.reference gives NaN or Inf in output {bad}: no exact answer to compare with", {"stage": "reference"})
        disagreement = _reference_disagrees(model, wanted, expected)
        if disagreement:
            return Verdict(False, "", disagreement, {"stage": "reference"})
        return expected

    def _iree_answer(self, program: Candidate, function: str, inputs: list, result_types: list[str], workdir: Path) -> list[np.ndarray] | Verdict:
        """The program compiled with the candidate's flags and run on `inputs`; or why not."""
        return compiled_answer(self, program, function, inputs, result_types, workdir)

    def _compared(self, model, function: str, expected: list[np.ndarray], actual: list[np.ndarray]) -> Verdict:
        ref = _reference()
        comparison = compare_outputs(
            expected, actual, reduction_length=ref.reduction_length(model), quantized=ref.is_quantized(model)
        )
        return comparison.verdict(self.reference, self.options.wrong_share, SIGNATURE, "onnx.reference", function)

    def values_at(self, candidate: Candidate) -> dict[Position, np.ndarray] | str:
        """What onnx.reference computes at each op result of torch-onnx IR on the candidate's data
        (smallest first, up to the byte cap in all): the reference a cut argument must carry."""
        try:
            lifted = _lift(candidate.text)
            model, inputs, _ = program_reference_inputs(candidate, self.options.seed, lifted.model)
            values = _reference().intermediate_values(model, inputs)
        except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
            return f"onnx.reference cannot compute the program's values: {_one_line(err)}"
        found = {position: values[name] for position, name in lifted.names.items() if name in values}
        kept = smallest_within({position: value.nbytes for position, value in found.items()}, INTERMEDIATE_BYTES)
        return {position: found[position] for position in kept}

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """Import, compile, write the inputs (arg<i>) and the reference's outputs (expected<j>),
        run (result<j>); last, `check` runs the oracle once and prints the differing elements.
        A candidate with the user's data gets it written to `path.data/` (case_data.py): arg<i>
        for iree-run-module, test_data_set_0/ with onnx.reference's outputs for `check`.
        torch-onnx IR is compiled as it is, without the import."""
        vmfb = str(Path(path).with_suffix(".vmfb"))
        model_flags = ["--seed", str(self.options.seed)]
        opset = [] if self.options.opset_version is None else ["--opset-version", str(self.options.opset_version)]
        if candidate.binary is None:
            compiled, opset = path, []
            lines = []
        else:
            compiled = mlir_path_for(path)
            imported = import_command(path, compiled, self.options.opset_version)
            imported[0] = "iree-import-onnx"
            lines = [shlex.join(imported)]
        lines.append(shlex.join(["iree-compile", *self.compile_flags(candidate.flags), compiled, "-o", vmfb]))
        try:
            model, inputs, names = self._case(candidate)
        except ValueError:
            model = None
        if model is not None and has_inputs(candidate.data):  # the user's data, cut to the case: written beside it
            try:
                lines.append(_write_case_data(model, inputs, names, path, vmfb, self.run_device(candidate.flags)))
                model_flags = ["--inputs", str(case_data.data_dir(path) / "test_data_set_0")]
            except ValueError:
                pass
        elif model is not None:
            lines.append(shlex.join(["python", "-m", "oracles.onnx_reference", "write-inputs", path, *model_flags]))
            input_flags = [input_flag(v, f"arg{i}")[0] for i, v in enumerate(inputs.values())]
            lines.append(shlex.join(_run_argv(model, vmfb, input_flags, self.run_device(candidate.flags))))
        flags = ["--", *candidate.flags] if candidate.flags else []
        lines.append(shlex.join(["python", "-m", "oracles.onnx_reference", "check", path, *model_flags, *opset, *flags]))
        return "\n".join(lines)

    def _case(self, candidate: Candidate) -> tuple:
        """(the graph onnx.reference evaluates, its inputs by name, (input names, output names) as
        the case's data is written: the graph's own for a model, argI / resultJ for a program)."""
        if candidate.binary is not None:
            model = _parse(candidate.binary)
            inputs = model_inputs(model, candidate.data, self.options.seed)
            return model, inputs, (list(inputs), [o.name for o in model.graph.output])
        model, inputs, (_, results) = program_reference_inputs(candidate, self.options.seed)
        return model, inputs, ([f"arg{i}" for i in range(len(inputs))], [f"result{j}" for j in range(len(results))])


def model_inputs(model, data: tuple[tuple[str, bytes], ...], seed: int) -> dict:
    """The inputs a model runs on by name: the user's data where the candidate carries some
    (oracles/data/carried.py), else the seeded small integers."""
    ref = _reference()
    if not has_inputs(data):
        return ref.seeded_inputs(model, seed)
    named = ref.graph_inputs(model)
    return {name: np.asarray(value) for (name, _), value in zip(named, inputs_for(data, named, seed))}


def _reference_disagrees(model, wanted: list[np.ndarray] | None, reference_outputs: list) -> str | None:
    """Why onnx.reference cannot judge the candidates, when the user's expected outputs (of the
    original's outputs) say it is wrong itself; None when they agree or do not apply."""
    if wanted is None:
        return None
    ref = _reference()
    comparison = compare_outputs(wanted, reference_outputs, reduction_length=ref.reduction_length(model),
                                 quantized=ref.is_quantized(model))
    if comparison.matches:
        return None
    return (f"onnx.reference differs from the expected outputs ({comparison.description}): "
            "no reference can judge candidates of this model")


def program_reference_inputs(candidate: Candidate, seed: int, model=None) -> tuple:
    """(the lifted graph, its inputs by name, (the entry function, its result types)) of torch-onnx
    IR: the program's own inputs (the candidate's data, else seeded), bound to the graph's inputs
    by position, as IREE runs them. ValueError (one line) for IR that does not lift."""
    model = model if model is not None else _lift(candidate.text).model
    function, arg_types, result_types = entry_function(candidate.text, dynamic=True)
    values = program_inputs(candidate.data, arg_types, seed)
    names = [name for name, _ in _reference().graph_inputs(model)]
    if len(names) != len(values):
        raise ValueError(f"the lifted graph has {len(names)} inputs for @{function}'s {len(values)} arguments")
    return model, {name: np.asarray(value) for name, value in zip(names, values)}, (function, result_types)


def _lift(text: str):
    """The LiftedProgram of torch-onnx IR, every constant's data read (NotLiftable, a ValueError, if not)."""
    from oracles.onnx.lift import lift_program

    return lift_program(text)


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


def _write_case_data(model, inputs: dict, names: tuple[list[str], list[str]], path: str, vmfb: str, device: str) -> str:
    """Writes the case's inputs and onnx.reference's outputs beside it; the iree-run-module line."""
    try:
        expected = _reference().reference_outputs(model, inputs)
    except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
        raise ValueError(_one_line(err)) from None
    input_names, output_names = names
    values = list(inputs.values())
    case_data.write_onnx_test_data(dict(zip(input_names, values)), list(zip(output_names, expected)), path)
    case_data.write_inputs(values, path)
    return shlex.join(_run_argv(model, vmfb, case_data.input_flags(values, path), device))


def _run_argv(model, vmfb: str, input_flags: list[str], device: str) -> list[str]:
    from onnx import helper

    argv = ["iree-run-module", f"--device={device}", f"--module={vmfb}", f"--function={model.graph.name}", *input_flags]
    for j, output in enumerate(model.graph.output):
        dtype = helper.tensor_dtype_to_np_dtype(output.type.tensor_type.elem_type)
        argv.append(f"--output=@{array_file(dtype, f'result{j}')}")
    return argv
