"""Input data of a program: argument types, seeded inputs, and arrays as files for `iree-run-module`.

Inputs are small integers, also for float arguments, so matmuls and convolutions are exact in
f32 and differences that remain come from the compilers, not from summation order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles import refusals
from oracles.mlir.types import read_tensor_type

try:  # ships with onnx; numpy has no bfloat16 of its own
    import ml_dtypes

    BFLOAT16: np.dtype | None = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - onnx depends on ml_dtypes
    ml_dtypes = None
    BFLOAT16 = None

# (shape, dtype); shape None means a primitive scalar argument (i32, f32), not a tensor.
ArgType = tuple["tuple[int, ...] | None", np.dtype]
DYNAMIC = -1  # a dynamic dim of an argument that runs on the user's data (parse_type's `dynamic`)

ELEMENT_TYPES: dict[str, str] = {
    "f64": "float64",
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "i1": "bool",
    "si1": "bool",
    "ui1": "bool",
    "index": "int64",
}
for _width in (8, 16, 32, 64):
    ELEMENT_TYPES[f"i{_width}"] = f"int{_width}"
    ELEMENT_TYPES[f"si{_width}"] = f"int{_width}"
    ELEMENT_TYPES[f"ui{_width}"] = f"uint{_width}"
# torch-dialect scalar types, which lower to primitive function arguments.
_TORCH_SCALARS = {"!torch.int": "int64", "!torch.float": "float64", "!torch.bool": "bool"}

# Element types numpy's .npy cannot hold (ml_dtypes): they travel as raw bits, the type spelled out.
RAW_ELEMENT_TYPES = {name: numpy_name for name, numpy_name in ELEMENT_TYPES.items() if numpy_name.startswith(("bfloat", "float8"))}

_TENSOR_DIMS = re.compile(r"tensor<((?:[0-9?]+x)+)")
_TORCH_DIMS = re.compile(r"tensor<\[([0-9?,\s-]+)\]")
_QUANTIZED_MARKERS = re.compile(
    r"QuantizeLinear|QLinear|MatMulInteger|ConvInteger|!quant\.|quant\.uniform|torch\.aten\.quantize|"
    r"torch\.aten\.dequantize|torch\.aten\._make_per_tensor_quantized_tensor|!torch\.q(?:u)?int8"
)


# ---------------------------------------------------------------------------------------------
# Types and signatures


def dtype_named(name: str, where: str) -> np.dtype:
    if name not in ELEMENT_TYPES:
        raise ValueError(refusals.ELEMENT_TYPE_UNSUPPORTED.say(where=where, name=name, supported=", ".join(sorted(ELEMENT_TYPES))))
    numpy_name = ELEMENT_TYPES[name]
    if numpy_name in RAW_ELEMENT_TYPES.values():
        if ml_dtypes is None:
            raise ValueError(refusals.NEEDS_ML_DTYPES.say(where=where, name=name))
        return np.dtype(getattr(ml_dtypes, numpy_name))
    return np.dtype(numpy_name)


def spelled_shape(shape: tuple[int, ...]) -> str:
    """'?x8' for a shape, as MLIR spells it (a DYNAMIC dim as '?')."""
    return "x".join("?" if d == DYNAMIC else str(d) for d in shape)


def parse_type(text: str, where: str = "type", dynamic: bool = False) -> ArgType:
    """(shape, dtype) of a builtin (`tensor<2x3xf32>`, `i32`) or torch (`!torch.vtensor<[2,3],f32>`) type.

    Raises ValueError for dynamic shapes (with `dynamic`, a dynamic dim is DYNAMIC: the data the
    program runs on says its size) and for types that have no numpy counterpart.
    """
    text = text.strip()
    tensor = read_tensor_type(text)
    if tensor is not None:
        if tensor.dims is None:
            why = "is unranked" if not tensor.torch else "has no static shape"
            raise ValueError(refusals.TYPE_NOT_STATIC.say(where=where, why=why, text=text))
        if not tensor.static and not dynamic:
            raise ValueError(refusals.TYPE_NOT_STATIC.say(where=where, why="has a dynamic shape", text=text))
        return tuple(DYNAMIC if d is None else int(d) for d in tensor.dims), dtype_named(tensor.element, where)
    if text in _TORCH_SCALARS:
        return None, np.dtype(_TORCH_SCALARS[text])
    if text in ELEMENT_TYPES:
        return None, dtype_named(text, where)
    raise ValueError(refusals.TYPE_NO_NUMPY.say(where=where, text=text))


def entry_function(mlir_text: str, dynamic: bool = False) -> tuple[str, list[ArgType], list[str]]:
    """Name, argument types and result type texts of the first public function with a body
    (`dynamic`: arguments may have dynamic dims, see parse_type)."""
    from iree.compiler import ir  # imported late: the bindings are slow to load

    from oracles.mlir import ir as irx

    try:
        module = irx.parse(mlir_text, source_name="line")
    except irx.ParseError as err:
        raise ValueError(refusals.PROGRAM_UNPARSEABLE.say(error=err)) from None
    operation = irx.public_entry(module)
    if operation is not None:
        attrs = operation.attributes
        name = ir.StringAttr(attrs["sym_name"]).value
        function_type = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
        args = [parse_type(str(t), f"@{name} argument {i}", dynamic) for i, t in enumerate(function_type.inputs)]
        return name, args, [str(t) for t in function_type.results]
    raise ValueError(refusals.NOTHING_TO_RUN.say())


def entry_signature(mlir_text: str) -> tuple[str, list[ArgType]]:
    """The first public func.func / util.func: its name and (shape, numpy dtype) per argument.

    Reads builtin tensors and torch value tensors (si8/ui8/i1/bf16 included); a primitive
    scalar argument (`i32`, `!torch.int`) has shape None. Raises ValueError, with a message for
    the user, for unparsable programs, dynamic shapes and unsupported element types.
    """
    name, args, _ = entry_function(mlir_text)
    return name, args


def reduction_length_hint(mlir_text: str) -> int:
    """The largest static dimension of any tensor type in the program (an estimate of K for tolerances)."""
    largest = 1
    for match in _TENSOR_DIMS.finditer(mlir_text):
        for dim in match.group(1).rstrip("x").split("x"):
            if dim.isdigit():
                largest = max(largest, int(dim))
    for match in _TORCH_DIMS.finditer(mlir_text):
        for dim in match.group(1).split(","):
            if dim.strip().isdigit():
                largest = max(largest, int(dim))
    return largest


def looks_quantized(mlir_text: str) -> bool:
    """True when the program (de)quantizes: requantization may round 8-bit results 1 LSB apart."""
    return bool(_QUANTIZED_MARKERS.search(mlir_text))


# ---------------------------------------------------------------------------------------------
# Inputs


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or raw_element_type(dtype) is not None


def inputs_for_signature(
    arg_types: Sequence[ArgType], seed: int, *, float_range: int = 4, int_range: int = 8
) -> list[np.ndarray | np.generic]:
    """Seeded inputs for (shape, dtype) arguments: deterministic for one seed, never NaN or Inf.

    Floats hold small integers in [-float_range, float_range] (exact in every float type, so
    references are exact); signed integers lie in [-int_range, int_range], unsigned in
    [0, 2 * int_range], booleans are random. A primitive argument (shape None) gets a numpy scalar.
    """
    rng = np.random.default_rng(seed)
    values: list[np.ndarray | np.generic] = []
    for position, (shape, dtype) in enumerate(arg_types):
        if shape is not None and DYNAMIC in shape:
            raise ValueError(refusals.ARGUMENT_DYNAMIC.say(position=position, shape=spelled_shape(shape),
                                                           axis=shape.index(DYNAMIC)))
        dtype = np.dtype(dtype)
        size = () if shape is None else tuple(shape)
        if dtype == np.bool_:
            array = rng.integers(0, 2, size=size).astype(np.bool_)
        elif dtype.kind == "u":
            array = rng.integers(0, 2 * int_range + 1, size=size).astype(dtype)
        elif dtype.kind == "i":
            array = rng.integers(-int_range, int_range + 1, size=size).astype(dtype)
        elif is_float(dtype):
            array = rng.integers(-float_range, float_range + 1, size=size).astype(np.float32).astype(dtype)
        else:
            raise ValueError(refusals.NO_INPUTS_FOR_DTYPE.say(dtype=dtype))
        values.append(array[()] if shape is None else np.asarray(array))
    return values


# ---------------------------------------------------------------------------------------------
# Array files


def raw_element_type(dtype: np.dtype) -> str | None:
    """IREE's name of an ml_dtypes element type (bf16, f8E4M3FN, ...), which .npy cannot hold."""
    name = np.dtype(dtype).name
    return next((iree for iree, numpy_name in RAW_ELEMENT_TYPES.items() if numpy_name == name), None)


def array_file(dtype: np.dtype, stem: str) -> str:
    """`stem.npy`, or `stem.bin` (raw bits) for bf16 / f8 elements, which .npy cannot hold."""
    return f"{stem}.bin" if raw_element_type(dtype) is not None else f"{stem}.npy"


def input_flag(value: np.ndarray | np.generic, file_stem: str) -> tuple[str, Path | None]:
    """The --input flag for one argument and the file it reads (None for a literal scalar)."""
    if isinstance(value, np.generic):
        literal = int(value) if value.dtype == np.bool_ else value.item()
        return f"--input={literal!r}", None
    path = Path(array_file(value.dtype, file_stem))
    element = raw_element_type(value.dtype)
    if element is not None:  # raw bits: the type is spelled out
        shape = "x".join(str(d) for d in value.shape)
        return f"--input={shape + 'x' if shape else ''}{element}=@{path.name}", path
    return f"--input=@{path.name}", path


def write_array(value: np.ndarray | np.generic, path: Path | None) -> None:
    if path is None:
        return
    if path.suffix == ".bin":
        np.ascontiguousarray(value).tofile(path)
    else:
        np.save(path, value)


