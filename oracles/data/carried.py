"""The data a candidate carries: the user's own values and what the original computes, as named
arrays in `Candidate.data`, and the values a program runs on from them.

Some wrong answers show only with particular values (a range that saturates, a zero point that
matters, a scale the tool would never draw), so `miscompile` and `reference-mismatch` run a
candidate on the user's data when it carries some. It travels in `Candidate.data` under these
names, so that the verdict cache keys on it:

- `in:NAME`: the user's value of argument NAME (an ONNX graph input's name, `argI` for MLIR);
- `at:NAME`: the value the original computes for tensor NAME on the user's inputs (ONNX), which
  an argument a cut made out of that tensor receives instead of a random one;
- `out:NAME`: an expected output (by ONNX output name, or `resultJ`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from oracles.data.arrays import ArgType, dtype_named, inputs_for_signature, parse_type, raw_element_type
from oracles.data.binding import fit, same_shape

INPUT, INTERMEDIATE, OUTPUT = "in:", "at:", "out:"

# Intermediate values kept for cuts up to this many bytes in all (a large model's would not be).
INTERMEDIATE_BYTES = 64 << 20


def pack(arrays: dict[str, np.ndarray]) -> tuple[tuple[str, bytes], ...]:
    """Named arrays as a candidate's `data` (.npy bytes; bf16 / f8 as their bits, typed by name)."""
    packed = []
    for name, value in arrays.items():
        value = np.asarray(value)
        element = raw_element_type(value.dtype)
        if element is not None:  # .npy cannot say bfloat16: store the bits, the type in the name
            name, value = f"{name}|{element}", value.view(f"u{value.dtype.itemsize}")
        buffer = io.BytesIO()
        np.save(buffer, value, allow_pickle=False)
        packed.append((name, buffer.getvalue()))
    return tuple(packed)


def unpack(data: tuple[tuple[str, bytes], ...]) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for name, raw in data:
        value = np.load(io.BytesIO(raw), allow_pickle=False)
        if "|" in name:
            name, element = name.rsplit("|", 1)
            value = value.view(dtype_named(element, name))
        arrays[name] = value
    return arrays


def has_inputs(data: tuple[tuple[str, bytes], ...]) -> bool:
    """Whether some argument runs on carried data: the user's, or what the original computes at a cut."""
    return any(name.startswith((INPUT, INTERMEDIATE)) for name, _ in data)


def inputs_for(data: tuple[tuple[str, bytes], ...], args: Sequence[tuple[str, ArgType]], seed: int) -> list[np.ndarray | np.generic]:
    """The values a candidate runs on: per argument, the user's (fitted to its shape now), else
    what the original computes there (an argument a cut made), else the seeded draw."""
    stored = unpack(data)
    carried: list[np.ndarray | None] = []
    for name, arg in args:
        prefix = next((p for p in (INPUT, INTERMEDIATE) if p + name in stored), None)
        carried.append(None if prefix is None else fit(stored[prefix + name], arg))
    # One seeded draw for every argument, at the carried data's shape where there is some (a
    # dynamic dim has no other size): the draws of the others do not depend on which are carried.
    drawn_at = [arg if value is None else (value.shape, arg[1]) for (_, arg), value in zip(args, carried)]
    seeded = inputs_for_signature(drawn_at, seed)
    values: list[np.ndarray | np.generic] = []
    for (_, arg), drawn, chosen in zip(args, seeded, carried):
        if chosen is None:
            values.append(drawn)
        else:
            values.append(chosen[()] if arg[0] is None else chosen)
    return values


def program_inputs(data: tuple[tuple[str, bytes], ...], arg_types: Sequence[ArgType], seed: int) -> list[np.ndarray | np.generic]:
    """An MLIR program's inputs (arguments are named by position, `argI`): `inputs_for`."""
    if not has_inputs(data):
        return inputs_for_signature(arg_types, seed)
    return inputs_for(data, [(f"arg{i}", arg) for i, arg in enumerate(arg_types)], seed)


def program_expected(data: tuple[tuple[str, bytes], ...], result_texts: Sequence[str]) -> list[np.ndarray] | None:
    """An MLIR program's expected outputs (`resultJ`) when its results are the original's."""
    if not any(name.startswith(OUTPUT) for name, _ in data):
        return None
    try:
        types = [parse_type(text, dynamic=True) for text in result_texts]
    except ValueError:
        return None
    return expected_for(data, [f"result{j}" for j in range(len(types))], types)


def expected_for(data: tuple[tuple[str, bytes], ...], names: Sequence[str], types: Sequence[ArgType | None]) -> list[np.ndarray] | None:
    """The user's expected outputs when the candidate's results are the original's (by name and
    type); None otherwise (a reduction changed them: the reference judges alone)."""
    stored = unpack(data)
    found = []
    for name, arg in zip(names, types, strict=True):
        value = stored.get(OUTPUT + name)
        if value is None or (arg is not None and (value.dtype != np.dtype(arg[1]) or not same_shape(value.shape, arg[0]))):
            return None
        found.append(value)
    return found or None
