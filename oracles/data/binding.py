"""The user's arrays bound to a program's arguments: by name or in order, checked against each
argument's type, and fitted to the argument a candidate has now.

`fit` adapts a stored array to the argument a candidate has now: the same shape keeps the
values; a smaller shape of the same rank takes the leading block (a dimension the reduction
shrank); anything else has no user value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from oracles import refusals
from oracles.data.arrays import DYNAMIC, ELEMENT_TYPES, ArgType, spelled_shape


class UserDataError(ValueError):
    """Data that cannot be read, or does not fit the program; `str()` is one line for the user."""


@dataclass(frozen=True)
class UserArray:
    """One array the user gave: its name where the source says it (.npz key, ONNX tensor name)."""

    value: np.ndarray
    source: str  # where it came from, for messages
    name: str | None = None


@dataclass(frozen=True)
class UserData:
    inputs: tuple[UserArray, ...] = ()
    expected: tuple[UserArray, ...] = ()


def describe_type(arg: ArgType | None) -> str:
    if arg is None:
        return "a tensor"
    shape, dtype = arg
    element = next((name for name, numpy_name in ELEMENT_TYPES.items() if numpy_name == np.dtype(dtype).name), str(dtype))
    if shape is None:
        return f"a {element} scalar"
    return f"{spelled_shape(shape)}x{element}" if shape else f"a 0-d {element} tensor"


def bind(arrays: Sequence[UserArray], args: Sequence[tuple[str, ArgType | None]], what: str = "argument") -> dict[str, np.ndarray]:
    """The user's arrays by argument name: by name when every array is named after an argument,
    else in order. Raises UserDataError naming the argument and what it expects."""
    names = [name for name, _ in args]
    by_name = bool(arrays) and all(a.name in names for a in arrays)
    if by_name:
        given = {a.name: a for a in arrays}
    else:
        if len(arrays) > len(args):
            raise UserDataError(refusals.TOO_MANY_VALUES.say(count=len(arrays), what=what, wanted=len(args),
                                                             source=arrays[len(args)].source))
        given = dict(zip(names, arrays))
    bound: dict[str, np.ndarray] = {}
    for position, (name, arg) in enumerate(args):
        if name not in given:
            raise UserDataError(refusals.VALUE_MISSING.say(what=what, position=position, name=name, type=describe_type(arg),
                                                           count=len(arrays), wanted=len(args)))
        bound[name] = _checked(given[name], name, arg, what)
    return bound


def _checked(array: UserArray, name: str, arg: ArgType | None, what: str) -> np.ndarray:
    value = np.asarray(array.value)
    if arg is None:  # a type the program does not state statically: any array will do
        return value
    shape, dtype = arg
    if value.dtype != np.dtype(dtype):
        raise UserDataError(refusals.VALUE_WRONG_DTYPE.say(what=what, name=name, type=describe_type(arg),
                                                           source=array.source, dtype=value.dtype))
    wanted = () if shape is None else tuple(shape)
    if len(value.shape) != len(wanted) or any(w not in (v, DYNAMIC) for w, v in zip(wanted, value.shape)):
        got = "x".join(map(str, value.shape)) or "a 0-d array"
        raise UserDataError(refusals.VALUE_WRONG_SHAPE.say(what=what, name=name, type=describe_type(arg),
                                                           source=array.source, shape=got))
    return value


def same_shape(shape: tuple[int, ...], wanted: tuple[int, ...] | None) -> bool:
    """Whether `shape` is `wanted`'s (a DYNAMIC dim takes any size)."""
    wanted = tuple(wanted or ())
    return len(shape) == len(wanted) and all(w in (s, DYNAMIC) for s, w in zip(shape, wanted))


def fit(value: np.ndarray, arg: ArgType) -> np.ndarray | None:
    """`value` for an argument of type `arg` now: itself, its leading block when the reduction
    shrank dimensions, or None when it cannot be (another dtype or rank, a larger dimension); a
    dynamic dim keeps the data's size."""
    shape, dtype = arg
    wanted = () if shape is None else tuple(shape)
    if value.dtype != np.dtype(dtype) or value.ndim != len(wanted) or any(w > v for w, v in zip(wanted, value.shape)):
        return None
    return np.ascontiguousarray(value[tuple(slice(0, None if w == DYNAMIC else w) for w in wanted)])
