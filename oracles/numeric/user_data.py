"""The user's own input data: read it (iree-run-module flags, flagfiles, .npy, .npz, ONNX test
data), check it against a program's arguments, and carry it with a candidate.

Some wrong answers show only with particular values (a range that saturates, a zero point that
matters, a scale the tool would never draw), so `miscompile` and `reference-mismatch` run a
candidate on the user's data when it carries some. It travels in `Candidate.data` under these
names, so that the verdict cache keys on it:

- `in:NAME`: the user's value of argument NAME (an ONNX graph input's name, `argI` for MLIR);
- `at:NAME`: the value the original computes for tensor NAME on the user's inputs (ONNX), which
  an argument a cut made out of that tensor receives instead of a random one;
- `out:NAME`: an expected output (by ONNX output name, or `resultJ`).

`fit` adapts a stored array to the argument a candidate has now: the same shape keeps the
values; a smaller shape of the same rank takes the leading block (a dimension the reduction
shrank); anything else has no user value.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oracles import refusals
from oracles.numeric.arrays import (
    DYNAMIC,
    ELEMENT_TYPES,
    ArgType,
    dtype_named,
    entry_function,
    inputs_for_signature,
    parse_type,
    raw_element_type,
    spelled_shape,
)

INPUT, INTERMEDIATE, OUTPUT = "in:", "at:", "out:"
# Flags of an iree-run-module flagfile: those that carry data, and those that say nothing about it.
DATA_FLAGS = {"--input": INPUT, "--expected_output": OUTPUT}
IGNORED_FLAGS = frozenset({"--module", "--function", "--device", "--output", "--expected_f32_threshold",
                           "--expected_f16_threshold", "--expected_f64_threshold"})
_TYPED_VALUE = re.compile(r"^((?:\d+x)*)([a-zA-Z][a-zA-Z0-9]*)=(.*)$", re.DOTALL)


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


# ---------------------------------------------------------------------------------------------
# Reading


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


# ---------------------------------------------------------------------------------------------
# Binding to a program's arguments


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


# ---------------------------------------------------------------------------------------------
# Carried with a candidate


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


# ---------------------------------------------------------------------------------------------
# Dynamic dimensions: the sizes a program runs at


@dataclass(frozen=True)
class DynamicDim:
    """One dynamic dim of a program's arguments: `--dim KEY=SIZE` names its size."""

    argument: str  # the ONNX input's name, `argI` for MLIR
    axis: int
    key: str  # the ONNX dim_param (else `input.axis`), `argI.axis` for MLIR


def argument_types(candidate) -> tuple[list[tuple[str, ArgType]], list[DynamicDim]]:
    """The candidate's arguments by name (`argI` for MLIR) with their types, a dynamic dim as
    DYNAMIC, and its dynamic dims; ValueError (one line) when it has none to read."""
    if candidate.is_onnx:
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


def sized_inputs(candidate, sizes: dict[str, int], seed: int) -> UserData:
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


def sizes_run_at(candidate) -> dict[str, int]:
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


# Intermediate values kept for cuts up to this many bytes in all (a large model's would not be).
INTERMEDIATE_BYTES = 64 << 20


def attach(candidate, user: UserData):
    """`candidate` carrying the user's data, checked against its arguments (UserDataError if it
    does not fit); for an ONNX model also the value of every tensor the original computes on it."""
    if user.expected and not user.inputs:
        raise UserDataError(refusals.EXPECTED_WITHOUT_INPUTS.say())
    if candidate.is_onnx:
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


def _attach_onnx(candidate, user: UserData):
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


def as_program_data(data: tuple[tuple[str, bytes], ...], model_bytes: bytes, seed: int) -> tuple[tuple[str, bytes], ...]:
    """An ONNX candidate's data keyed as its imported program's (`in:argI`, `out:resultJ`):
    iree-import-onnx keeps the graph's inputs and outputs in order, so an oracle that judges the
    imported MLIR (`miscompile`) runs on the user's values, fitted to the candidate's shapes."""
    if not has_inputs(data):
        return ()
    import onnx

    from oracles.onnx import reference

    model = onnx.load_from_string(model_bytes)
    try:
        values = inputs_for(data, reference.graph_inputs(model), seed)
    except ValueError:
        return ()
    arrays = {f"{INPUT}arg{i}": np.asarray(value) for i, value in enumerate(values)}
    stored = unpack(data)
    for j, (name, _) in enumerate(reference.graph_outputs(model)):
        if OUTPUT + name in stored:
            arrays[f"{OUTPUT}result{j}"] = stored[OUTPUT + name]
    return pack(arrays)


def _with_data(candidate, arrays: dict[str, np.ndarray]):
    from dataclasses import replace

    return replace(candidate, data=pack(arrays))
