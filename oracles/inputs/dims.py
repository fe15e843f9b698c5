"""Dynamic dimensions: the sizes a program runs at, named by `--dim KEY=SIZE`, and the seeded
inputs drawn at them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from oracles import refusals
from oracles.candidate import Candidate
from oracles.data.arrays import DYNAMIC, ArgType, entry_function, inputs_for_signature
from oracles.data.binding import UserArray, UserData, UserDataError
from oracles.data.carried import INPUT, INTERMEDIATE, has_inputs, unpack
from oracles.formats import Format


@dataclass(frozen=True)
class DynamicDim:
    """One dynamic dim of a program's arguments: `--dim KEY=SIZE` names its size."""

    argument: str  # the ONNX input's name, `argI` for MLIR
    axis: int
    key: str  # the ONNX dim_param (else `input.axis`), `argI.axis` for MLIR


def argument_types(candidate: Candidate) -> tuple[list[tuple[str, ArgType]], list[DynamicDim]]:
    """The candidate's arguments by name (`argI` for MLIR) with their types, a dynamic dim as
    DYNAMIC, and its dynamic dims; ValueError (one line) when it has none to read."""
    if candidate.format is Format.ONNX:
        import onnx

        from oracles.onnx import reference

        model = onnx.load_from_string(candidate.binary)
        args = reference.graph_inputs(model)
        params = reference.dim_names(model)
        keys = {(name, axis): param or f"{name}.{axis}" for (name, axis), param in params.items()}
    else:
        _, types, _ = entry_function(candidate.text, dynamic=True)
        args = [(f"arg{i}", arg) for i, arg in enumerate(types)]
        keys = {}
    dims = [DynamicDim(name, axis, keys.get((name, axis), f"{name}.{axis}"))
            for name, (shape, _) in args if shape is not None for axis, d in enumerate(shape) if d == DYNAMIC]
    return args, dims


def parse_dims(texts: Sequence[str]) -> dict[str, int]:
    """`--dim M=1 --dim arg0.1=4` as {"M": 1, "arg0.1": 4}; UserDataError for a malformed one."""
    sizes: dict[str, int] = {}
    for text in texts:
        key, _, size = text.partition("=")
        if not key.strip() or not size.strip().isdigit() or int(size) < 1:
            raise UserDataError(refusals.DIM_MALFORMED.say(text=text))
        sizes[key.strip()] = int(size)
    return sizes


def sized_inputs(candidate: Candidate, sizes: dict[str, int], seed: int) -> UserData:
    """Seeded inputs of a program with dynamic dims, drawn at the sizes `--dim` names: the same
    draw every run, carried as the user's data so that every step runs the program at them."""
    try:
        args, dims = argument_types(candidate)
    except ValueError as err:
        raise UserDataError(refusals.CANNOT_SIZE.say(error=err)) from None
    known = {dim.key for dim in dims}
    unknown = sorted(set(sizes) - known)
    if unknown:
        raise UserDataError(refusals.DIM_UNKNOWN.say(key=unknown[0], known=", ".join(sorted(known)) or "none"))
    missing = [dim.key for dim in dims if dim.key not in sizes]
    if missing:
        raise UserDataError(refusals.DIM_NOT_GIVEN.say(key=missing[0]))
    sized = dict(args)
    for dim in dims:
        shape, dtype = sized[dim.argument]
        sized[dim.argument] = (tuple(sizes[dim.key] if axis == dim.axis else d for axis, d in enumerate(shape)), dtype)
    values = inputs_for_signature([sized[name] for name, _ in args], seed)
    return UserData(tuple(UserArray(np.asarray(v), f"--dim (seed {seed})", name) for (name, _), v in zip(args, values)))


def sizes_run_at(candidate: Candidate) -> dict[str, int]:
    """The size each dynamic dim of the candidate runs at (its data's), by --dim key; {} for a
    static program or one without data."""
    if not has_inputs(candidate.data):
        return {}
    try:
        _, dims = argument_types(candidate)
    except ValueError:
        return {}
    stored = unpack(candidate.data)
    found = {}
    for dim in dims:  # the user's value, or (an argument a cut made) the original's there
        value = stored.get(INPUT + dim.argument, stored.get(INTERMEDIATE + dim.argument))
        if value is not None and value.ndim > dim.axis:
            found[dim.key] = int(value.shape[dim.axis])
    return found
