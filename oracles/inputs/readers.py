"""The user's data files read into arrays: iree-run-module flags and flagfiles, .npy, .npz, ONNX
test data (`.pb` tensors, a test's data sets), and `torch.save` files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles import refusals
from oracles.data.arrays import dtype_named
from oracles.data.binding import UserArray, UserData, UserDataError
from oracles.data.carried import INPUT, OUTPUT

# Flags of an iree-run-module flagfile: those that carry data, and those that say nothing about it.
DATA_FLAGS = {"--input": INPUT, "--expected_output": OUTPUT}
IGNORED_FLAGS = frozenset({"--module", "--function", "--device", "--output", "--expected_f32_threshold",
                           "--expected_f16_threshold", "--expected_f64_threshold"})
_TYPED_VALUE = re.compile(r"^((?:\d+x)*)([a-zA-Z][a-zA-Z0-9]*)=(.*)$", re.DOTALL)


def read_sources(input_sources: Sequence[str], expected_sources: Sequence[str] = ()) -> UserData:
    """The arrays of every `--inputs SOURCE` and `--expected-outputs SOURCE`, in order.

    A flagfile or an ONNX test-data directory given to --inputs brings its expected outputs too.
    """
    inputs: list[UserArray] = []
    expected: list[UserArray] = []
    for source in input_sources:
        got_in, got_out = _read(source, INPUT)
        inputs += got_in
        expected += got_out
    for source in expected_sources:
        got_in, got_out = _read(source, OUTPUT)
        expected += got_out + got_in  # a file or flag given as an expected output is one
    return UserData(tuple(inputs), tuple(expected))


def _read(source: str, role: str) -> tuple[list[UserArray], list[UserArray]]:
    """(inputs, expected outputs) of one source; `role` says which a bare array is."""
    text = source.strip()
    for flag, flag_role in DATA_FLAGS.items():
        if text.startswith(flag + "="):
            return _placed(flag_role, [_value(text[len(flag) + 1 :], Path.cwd(), source)])
    path = Path(text.removeprefix("@"))
    if path.is_dir():
        return _onnx_test_data(path)
    if path.suffix == ".npz":
        return _placed(role, _npz(path))
    if path.suffix == ".pb":
        return _placed(role, [_tensor_proto(path)])
    if path.suffix == ".npy":
        return _placed(role, [UserArray(_load_npy(path), str(path))])
    if path.suffix == ".pt":
        return _placed(role, _torch_file(path))
    if _TYPED_VALUE.match(text) or text.startswith("@"):
        return _placed(role, [_value(text, Path.cwd(), source)])
    if path.is_file():
        return _flagfile(path)
    raise UserDataError(refusals.DATA_SOURCE_MISSING.say(source=source))


def _placed(role: str, arrays: list[UserArray]) -> tuple[list[UserArray], list[UserArray]]:
    return (arrays, []) if role == INPUT else ([], arrays)


def _flagfile(path: Path) -> tuple[list[UserArray], list[UserArray]]:
    """--input= / --expected_output= lines (as iree-test-suites keeps beside each test); file
    references are read relative to the flagfile; an unknown flag is an error, not skipped."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise UserDataError(refusals.DATA_UNREADABLE.say(path=path, error=err)) from None
    found: dict[str, list[UserArray]] = {INPUT: [], OUTPUT: []}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        flag, _, value = line.partition("=")
        where = f"{path}:{number}"
        if flag in DATA_FLAGS:
            found[DATA_FLAGS[flag]].append(_value(value, path.parent, where))
        elif flag not in IGNORED_FLAGS:
            raise UserDataError(refusals.FLAGFILE_UNKNOWN_FLAG.say(
                where=where, flag=flag, known=", ".join([*DATA_FLAGS, *sorted(IGNORED_FLAGS)])))
    return found[INPUT], found[OUTPUT]


def _value(spec: str, base: Path, where: str) -> UserArray:
    """One iree-run-module value: `@x.npy`, `2x3xf32=@x.bin`, `2x2xi32=1,2,3,4`, `f32=1.5`."""
    spec = spec.strip()
    if spec.startswith("@"):
        path = _resolve(spec[1:], base, where)
        if path.suffix != ".npy":
            raise UserDataError(refusals.VALUE_NEEDS_TYPE.say(where=where, spec=spec, name=path.name))
        return UserArray(_load_npy(path), where)
    match = _TYPED_VALUE.match(spec)
    if not match:
        raise UserDataError(refusals.VALUE_UNREADABLE.say(where=where, spec=spec))
    shape = tuple(int(d) for d in match.group(1).rstrip("x").split("x") if d)
    try:
        dtype = dtype_named(match.group(2), where)
    except ValueError as err:
        raise UserDataError(str(err)) from None
    body = match.group(3).strip()
    count = int(np.prod(shape, dtype=np.int64))
    if body.startswith("@"):
        path = _resolve(body[1:], base, where)
        if path.suffix == ".npy":
            array = _load_npy(path)
        else:
            raw = path.read_bytes()
            if len(raw) != count * dtype.itemsize:
                raise UserDataError(refusals.VALUE_WRONG_BYTES.say(where=where, name=path.name, size=len(raw),
                                                                   type=match.group(1) + match.group(2),
                                                                   needed=count * dtype.itemsize))
            array = np.frombuffer(raw, dtype=dtype)
    else:
        try:
            numbers = [float(v) if is_float_name(match.group(2)) else int(v, 0) for v in re.split(r"[,\s]+", body) if v]
        except ValueError:
            raise UserDataError(refusals.VALUE_NOT_NUMBERS.say(where=where, text=body[:40], element=match.group(2))) from None
        array = np.asarray(numbers).astype(dtype)
        if array.size == 1 and count != 1:
            array = np.full(count, array[0], dtype)  # a splat
    if array.size != count:
        raise UserDataError(refusals.VALUE_WRONG_COUNT.say(where=where, count=array.size,
                                                           type=match.group(1) + match.group(2), wanted=count))
    return UserArray(np.asarray(array, dtype=dtype).reshape(shape), where)


def is_float_name(element: str) -> bool:
    return element.startswith(("f", "bf"))


def _resolve(name: str, base: Path, where: str) -> Path:
    """A file a flag names: relative to the flagfile (as the suite runs it), else to the cwd."""
    for path in (base / name, Path(name)):
        if path.is_file():
            return path
    raise UserDataError(refusals.NAMED_FILE_MISSING.say(where=where, name=name))


def _load_npy(path: Path) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise UserDataError(refusals.NO_SUCH_INPUT.say(path=path)) from None
    except (OSError, ValueError, EOFError) as err:
        raise UserDataError(refusals.DATA_UNREADABLE.say(path=path, error=" ".join(str(err).split()))) from None


def _npz(path: Path) -> list[UserArray]:
    """Every array in an .npz, named by its key (arr_0, ... for unnamed ones: bound by order)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return [UserArray(archive[key], f"{path}[{key}]", None if re.fullmatch(r"arr_\d+", key) else key)
                    for key in archive.files]
    except FileNotFoundError:
        raise UserDataError(refusals.NO_SUCH_INPUT.say(path=path)) from None
    except (OSError, ValueError, EOFError) as err:
        raise UserDataError(refusals.DATA_UNREADABLE.say(path=path, error=" ".join(str(err).split()))) from None


def _torch_file(path: Path) -> list[UserArray]:
    """The tensors `torch.save` wrote: one, a list or tuple (bound in order) or a dict (by name)."""
    from oracles.torch import torch_missing

    missing = torch_missing()
    if missing:
        raise UserDataError(refusals.DATA_UNREADABLE.say(path=path, error=missing))
    import torch

    from oracles.torch.eager import to_numpy

    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise UserDataError(refusals.NO_SUCH_INPUT.say(path=path)) from None
    except Exception as err:  # noqa: BLE001  (torch.load raises anything for a file it cannot read)
        raise UserDataError(refusals.DATA_UNREADABLE.say(path=path, error=" ".join(str(err).split())[:200])) from None
    named = saved.items() if isinstance(saved, dict) else enumerate(saved if isinstance(saved, (list, tuple)) else [saved])
    arrays = []
    for key, value in named:
        if not isinstance(value, torch.Tensor):
            raise UserDataError(refusals.DATA_PT_NOT_TENSORS.say(path=path, key=key, kind=type(value).__name__))
        arrays.append(UserArray(to_numpy(value), f"{path}[{key}]", key if isinstance(key, str) else None))
    return arrays


def _tensor_proto(path: Path) -> UserArray:
    import onnx
    from google.protobuf.message import DecodeError
    from onnx import numpy_helper

    try:
        tensor = onnx.TensorProto()
        tensor.ParseFromString(path.read_bytes())
        return UserArray(numpy_helper.to_array(tensor), str(path), tensor.name or None)
    except FileNotFoundError:
        raise UserDataError(refusals.NO_SUCH_INPUT.say(path=path)) from None
    except (DecodeError, OSError, ValueError, TypeError) as err:
        raise UserDataError(refusals.DATA_NOT_TENSOR_PROTO.say(path=path, error=" ".join(str(err).split()))) from None


def _onnx_test_data(path: Path) -> tuple[list[UserArray], list[UserArray]]:
    """ONNX backend-test / model-zoo layout: `test_data_set_0/input_0.pb`, `output_0.pb`, given
    as the data set's directory or the test's (its first data set)."""
    if not list(path.glob("input_*.pb")):
        sets = sorted(path.glob("test_data_set_*"))
        if not sets:
            raise UserDataError(refusals.DATA_NO_TEST_SET.say(path=path))
        path = sets[0]

    def numbered(stem: str) -> list[UserArray]:
        files = sorted(path.glob(f"{stem}_*.pb"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
        return [_tensor_proto(f) for f in files]

    return numbered("input"), numbered("output")
