"""The user's data attached to the original: checked against its arguments, and for an ONNX model
also the value of every tensor the original computes on it (what a cut argument receives).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from oracles import refusals
from oracles.candidate import Candidate
from oracles.data.arrays import entry_function, parse_type
from oracles.data.binding import UserData, UserDataError, bind
from oracles.data.carried import INPUT, INTERMEDIATE, INTERMEDIATE_BYTES, OUTPUT, pack
from oracles.formats import Format


def attach(candidate: Candidate, user: UserData) -> Candidate:
    """`candidate` carrying the user's data, checked against its arguments (UserDataError if it
    does not fit); for an ONNX model also the value of every tensor the original computes on it."""
    if user.expected and not user.inputs:
        raise UserDataError(refusals.EXPECTED_WITHOUT_INPUTS.say())
    if candidate.format is Format.ONNX:
        return _attach_onnx(candidate, user)
    try:
        _, arg_types, result_texts = entry_function(candidate.text, dynamic=True)
    except ValueError as err:
        raise UserDataError(refusals.CANNOT_BIND_INPUTS.say(error=err)) from None
    args = [(f"arg{i}", arg) for i, arg in enumerate(arg_types)]
    arrays = {INPUT + name: value for name, value in bind(user.inputs, args).items()}
    if user.expected:
        results = []
        for j, text in enumerate(result_texts):
            try:
                results.append((f"result{j}", parse_type(text, f"result {j}", dynamic=True)))
            except ValueError as err:
                raise UserDataError(refusals.CANNOT_BIND_EXPECTED.say(error=err)) from None
        arrays |= {OUTPUT + name: value for name, value in bind(user.expected, results, "output").items()}
    return _with_data(candidate, arrays)


def _attach_onnx(candidate: Candidate, user: UserData) -> Candidate:
    import onnx

    from oracles.onnx import reference

    model = onnx.load_from_string(candidate.binary)
    try:
        args = reference.graph_inputs(model)
    except ValueError as err:
        raise UserDataError(refusals.CANNOT_BIND_INPUTS.say(error=err)) from None
    inputs = bind(user.inputs, args)
    arrays = {INPUT + name: value for name, value in inputs.items()}
    if user.expected:
        outputs = reference.graph_outputs(model)
        arrays |= {OUTPUT + name: value for name, value in bind(user.expected, outputs, "output").items()}
    try:
        computed = reference.intermediate_values(model, inputs)
    except Exception:  # noqa: BLE001  (the reference cannot run it: cut arguments get seeded values)
        computed = {}
    budget = INTERMEDIATE_BYTES
    for name, value in computed.items():
        if name in inputs or budget < value.nbytes:
            continue
        budget -= value.nbytes
        arrays[INTERMEDIATE + name] = value
    return _with_data(candidate, arrays)


def _with_data(candidate: Candidate, arrays: dict[str, np.ndarray]) -> Candidate:
    return replace(candidate, data=pack(arrays))
