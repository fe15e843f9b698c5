"""miscompile: two compile pipelines give different results for the same program and inputs.

The program is compiled twice (`--pipeline-a`, `--pipeline-b`), both modules run in a child
`iree-run-module` process (a miscompiled module may crash) on the same seeded inputs, and the
outputs are compared with a dtype-aware tolerance. The helpers above the oracle are pure and
general: the fuzzer reuses them to build inputs, run modules and compare against references.

Inputs are small integers, also for float arguments, so matmuls and convolutions are exact in
f32 and differences that remain come from the compilers, not from summation order.
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from oracles.base import Oracle, OracleSetupError
from oracles.candidate import Candidate
from oracles.flags import with_default_target
from oracles.signature import excerpt, first_error
from oracles.toolchain import Limits, compile_candidate, find_tool, run_tool
from oracles.verdict import Verdict

try:  # ships with onnx; numpy has no bfloat16 of its own
    import ml_dtypes

    BFLOAT16: np.dtype | None = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - onnx depends on ml_dtypes
    ml_dtypes = None
    BFLOAT16 = None

RUN_DEVICE = "local-task"

# (shape, dtype); shape None means a primitive scalar argument (i32, f32), not a tensor.
ArgType = tuple["tuple[int, ...] | None", np.dtype]

_ELEMENT_TYPES: dict[str, str] = {
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
    _ELEMENT_TYPES[f"i{_width}"] = f"int{_width}"
    _ELEMENT_TYPES[f"si{_width}"] = f"int{_width}"
    _ELEMENT_TYPES[f"ui{_width}"] = f"uint{_width}"
# torch-dialect scalar types, which lower to primitive function arguments.
_TORCH_SCALARS = {"!torch.int": "int64", "!torch.float": "float64", "!torch.bool": "bool"}

# Element types numpy's .npy cannot hold (ml_dtypes): they travel as raw bits, the type spelled out.
_RAW_ELEMENT_TYPES = {name: numpy_name for name, numpy_name in _ELEMENT_TYPES.items() if numpy_name.startswith(("bfloat", "float8"))}

_BUILTIN_TENSOR = re.compile(r"^tensor<(.*)>$")
_TORCH_TENSOR = re.compile(r"^!torch\.v?tensor(?:<\s*\[([^\]]*)\]\s*,\s*([^>]+)>)?$")
_TENSOR_DIMS = re.compile(r"tensor<((?:[0-9?]+x)+)")
_TORCH_DIMS = re.compile(r"tensor<\[([0-9?,\s-]+)\]")
_QUANTIZED_MARKERS = re.compile(
    r"QuantizeLinear|QLinear|MatMulInteger|ConvInteger|!quant\.|quant\.uniform|torch\.aten\.quantize|"
    r"torch\.aten\.dequantize|torch\.aten\._make_per_tensor_quantized_tensor|!torch\.q(?:u)?int8"
)


# ---------------------------------------------------------------------------------------------
# Types and signatures


def _dtype_named(name: str, where: str) -> np.dtype:
    if name not in _ELEMENT_TYPES:
        raise ValueError(f"{where}: element type {name} is not supported (supported: {', '.join(sorted(_ELEMENT_TYPES))})")
    numpy_name = _ELEMENT_TYPES[name]
    if numpy_name in _RAW_ELEMENT_TYPES.values():
        if ml_dtypes is None:
            raise ValueError(f"{where}: {name} needs the ml_dtypes package (pip install ml_dtypes)")
        return np.dtype(getattr(ml_dtypes, numpy_name))
    return np.dtype(numpy_name)


def parse_type(text: str, where: str = "type") -> ArgType:
    """(shape, dtype) of a builtin (`tensor<2x3xf32>`, `i32`) or torch (`!torch.vtensor<[2,3],f32>`) type.

    Raises ValueError for dynamic shapes and for types that have no numpy counterpart.
    """
    text = text.strip()
    builtin = _BUILTIN_TENSOR.match(text)
    if builtin:
        body = builtin.group(1).split(",", 1)[0].strip()  # drop an encoding, if any
        if body.startswith("*"):
            raise ValueError(f"{where} is unranked ({text}); the program needs static shapes")
        *dims, element = body.split("x") if body else [""]
        if any(d == "?" for d in dims):
            raise ValueError(f"{where} has a dynamic shape ({text}); the program needs static shapes")
        return tuple(int(d) for d in dims), _dtype_named(element.strip(), where)
    torch = _TORCH_TENSOR.match(text)
    if torch:
        if torch.group(1) is None:
            raise ValueError(f"{where} has no static shape ({text}); the program needs static shapes")
        dims = [d.strip() for d in torch.group(1).split(",") if d.strip()]
        if any(d in ("?", "-1") for d in dims):
            raise ValueError(f"{where} has a dynamic shape ({text}); the program needs static shapes")
        return tuple(int(d) for d in dims), _dtype_named(torch.group(2).strip(), where)
    if text in _TORCH_SCALARS:
        return None, np.dtype(_TORCH_SCALARS[text])
    if text in _ELEMENT_TYPES:
        return None, _dtype_named(text, where)
    raise ValueError(f"{where} has type {text}, which has no numpy counterpart")


def _entry(mlir_text: str) -> tuple[str, list[ArgType], list[str]]:
    """Name, argument types and result type texts of the first public function with a body."""
    from iree.compiler import ir  # imported late: the bindings are slow to load

    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    try:
        module = ir.Module.parse(mlir_text, ctx)
    except ir.MLIRError as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        detail = lines[1] if len(lines) > 1 else (lines[0] if lines else "parse error")
        detail = re.sub(r'^error: "[^"]*":(\d+):(\d+):\s*', r"line \1:\2: ", detail)
        raise ValueError(f"cannot parse the program: {detail}") from None
    for op in module.body.operations:
        operation = op.operation
        if operation.name not in ("func.func", "util.func"):
            continue
        attrs = operation.attributes
        visibility = ir.StringAttr(attrs["sym_visibility"]).value if "sym_visibility" in attrs else "public"
        if visibility != "public" or not operation.regions or len(operation.regions[0].blocks) == 0:
            continue  # private helpers and external declarations
        name = ir.StringAttr(attrs["sym_name"]).value
        function_type = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
        args = [parse_type(str(t), f"@{name} argument {i}") for i, t in enumerate(function_type.inputs)]
        return name, args, [str(t) for t in function_type.results]
    raise ValueError("no public func.func or util.func with a body: nothing to run")


def entry_signature(mlir_text: str) -> tuple[str, list[ArgType]]:
    """The first public func.func / util.func: its name and (shape, numpy dtype) per argument.

    Reads builtin tensors and torch value tensors (si8/ui8/i1/bf16 included); a primitive
    scalar argument (`i32`, `!torch.int`) has shape None. Raises ValueError, with a message for
    the user, for unparsable programs, dynamic shapes and unsupported element types.
    """
    name, args, _ = _entry(mlir_text)
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


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or _raw_element_type(dtype) is not None


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
    for shape, dtype in arg_types:
        dtype = np.dtype(dtype)
        size = () if shape is None else tuple(shape)
        if dtype == np.bool_:
            array = rng.integers(0, 2, size=size).astype(np.bool_)
        elif dtype.kind == "u":
            array = rng.integers(0, 2 * int_range + 1, size=size).astype(dtype)
        elif dtype.kind == "i":
            array = rng.integers(-int_range, int_range + 1, size=size).astype(dtype)
        elif _is_float(dtype):
            array = rng.integers(-float_range, float_range + 1, size=size).astype(np.float32).astype(dtype)
        else:
            raise ValueError(f"no inputs for dtype {dtype}")
        values.append(array[()] if shape is None else np.asarray(array))
    return values


# ---------------------------------------------------------------------------------------------
# Comparison


def tolerance_for(dtype: np.dtype, reduction_length: int = 1, quantized: bool = False) -> tuple[float, float]:
    """(atol, rtol) for comparing two results of one computation in `dtype`.

    f64/f32: 1e-9 / 1e-5 (about 80 f32 ulps, room for different exp/tanh approximations),
    scaled by sqrt(reduction_length) for different summation orders. f16 1e-2 and bf16 5e-2
    (about 10 and 6 ulps), scaled by reduction_length ** 0.25. Integers and booleans are exact,
    except that 8-bit integers may be 1 LSB apart when `quantized` (requantization rounding).
    """
    dtype = np.dtype(dtype)
    k = max(int(reduction_length), 1)
    if dtype == np.bool_:
        return 0.0, 0.0
    if dtype.kind in "iu":
        return (1.0, 0.0) if quantized and dtype.itemsize == 1 else (0.0, 0.0)
    if BFLOAT16 is not None and dtype == BFLOAT16:
        base = 5e-2 * k**0.25
        return base, base
    if dtype == np.float16:
        base = 1e-2 * k**0.25
        return base, base
    if dtype == np.float64:
        base = 1e-9 * math.sqrt(k)
        return base, base
    if dtype == np.float32:
        base = 1e-5 * math.sqrt(k)
        return base, base
    if ml_dtypes is not None:  # f8 and other narrow floats
        try:
            eps = float(ml_dtypes.finfo(dtype).eps)
            return 4 * eps, 4 * eps
        except (ValueError, TypeError):
            pass
    raise ValueError(f"no tolerance for dtype {dtype}")


@dataclass
class Comparison:
    """How far `actual` is from `expected`; `first_mismatch` is the first output beyond tolerance."""

    matches: bool
    max_abs: float
    max_rel: float
    mismatch_fraction: float
    description: str
    first_mismatch: int | None = None
    examples: list[str] = field(default_factory=list)  # a few differing elements, for reports


@dataclass
class _OneOutput:
    mismatches: int
    total: int
    max_abs: float
    max_rel: float
    atol: float
    rtol: float
    note: str = ""
    examples: list[str] = field(default_factory=list)


def _int_like(array: np.ndarray) -> bool:
    return array.dtype == np.bool_ or array.dtype.kind in "iu"


def _examples(mask: np.ndarray, expected: np.ndarray, actual: np.ndarray, index: int, limit: int = 5) -> list[str]:
    found = []
    for position in np.argwhere(mask)[:limit]:
        where = tuple(int(p) for p in position)
        found.append(f"output {index}{list(where)}: expected {_scalar(expected[where])} got {_scalar(actual[where])}")
    return found


def _scalar(value) -> str:
    value = np.asarray(value)
    if value.dtype == np.bool_ or value.dtype.kind in "iu":
        return str(value.item())
    return f"{float(value):.7g}"


def _compare_one(
    expected: np.ndarray, actual: np.ndarray, index: int, tolerance: tuple[float, float], nan_equal: bool
) -> _OneOutput:
    atol, rtol = tolerance
    if expected.shape != actual.shape:
        total = max(expected.size, actual.size, 1)
        note = f"shape {expected.shape} vs {actual.shape}"
        return _OneOutput(total, total, math.inf, math.inf, atol, rtol, note)
    total = expected.size
    if total == 0:
        return _OneOutput(0, 0, 0.0, 0.0, atol, rtol)
    if _int_like(expected) and _int_like(actual):
        if expected.dtype.itemsize == actual.dtype.itemsize:
            # Same width: compare bits (IREE integers are signless; a ui8 may come back as i8),
            # and measure distances in the expected's interpretation.
            unsigned = np.dtype(f"uint{8 * expected.itemsize}")
            equal = expected.view(unsigned) == actual.view(unsigned)
            as_expected = actual.view(np.uint8).astype(bool) if expected.dtype == np.bool_ else actual.view(expected.dtype)
        else:
            as_expected = actual
            equal = expected.astype(np.int64) == actual.astype(np.int64)
        diff = np.abs(expected.astype(np.float64) - as_expected.astype(np.float64))
        mismatch = ~equal if atol == 0 else (~equal & (diff > atol))
        magnitude = np.maximum(np.abs(expected.astype(np.float64)), 1.0)
        rel = diff / magnitude
        shown = as_expected
    else:
        e = expected.astype(np.float64)
        a = actual.astype(np.float64)
        e_nan, a_nan = np.isnan(e), np.isnan(a)
        same_special = (e_nan & a_nan) if nan_equal else np.zeros_like(e_nan)
        same_special |= np.isinf(e) & (e == a)
        finite = np.isfinite(e) & np.isfinite(a)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(finite, np.abs(e - a), np.where(same_special, 0.0, math.inf))
            mismatch = ~same_special & ~(finite & (diff <= atol + rtol * np.abs(e)))
        floor = atol if atol > 0 else float(np.finfo(np.float32).tiny)
        with np.errstate(invalid="ignore", over="ignore"):
            rel = np.where(np.isfinite(diff), diff / np.maximum(np.abs(np.where(finite, e, 0.0)), floor), diff)
        shown = actual
    count = int(np.count_nonzero(mismatch))
    return _OneOutput(
        count,
        total,
        float(diff.max()),
        float(np.nan_to_num(rel, nan=math.inf).max()),
        atol,
        rtol,
        examples=_examples(mismatch, expected, shown, index) if count else [],
    )


def compare_outputs(
    expected: Sequence[np.ndarray],
    actual: Sequence[np.ndarray],
    *,
    reduction_length: int = 1,
    quantized: bool = False,
    atol: float | None = None,
    rtol: float | None = None,
    nan_equal: bool = True,
) -> Comparison:
    """Compares result lists element-wise with `tolerance_for` each output's dtype (or atol/rtol).

    Integers of one width compare bit-exactly (signedness may differ between the two sides);
    NaN equals NaN when `nan_equal`, an infinity only the same infinity; NaN against a number,
    or a shape difference, is a mismatch with max_abs inf.
    """
    if len(expected) != len(actual):
        return Comparison(False, math.inf, math.inf, 1.0, f"{len(expected)} outputs vs {len(actual)}", 0)
    results: list[_OneOutput] = []
    for index, (e, a) in enumerate(zip(expected, actual)):
        e, a = np.asarray(e), np.asarray(a)
        tolerances = [tolerance_for(d, reduction_length, quantized) for d in (e.dtype, a.dtype)]
        loosest = max(tolerances)
        tolerance = (loosest[0] if atol is None else atol, loosest[1] if rtol is None else rtol)
        results.append(_compare_one(e, a, index, tolerance, nan_equal))
    total = sum(r.total for r in results)
    mismatches = sum(r.mismatches for r in results)
    max_abs = max((r.max_abs for r in results), default=0.0)
    max_rel = max((r.max_rel for r in results), default=0.0)
    fraction = mismatches / total if total else 0.0
    bad = [i for i, r in enumerate(results) if r.mismatches]
    if not bad:
        description = f"{len(results)} output(s) match (max_abs {max_abs:.3g}, max_rel {max_rel:.3g})"
        return Comparison(True, max_abs, max_rel, 0.0, description)
    first = results[bad[0]]
    what = first.note or (
        f"{first.mismatches}/{first.total} elements beyond atol {first.atol:.3g} rtol {first.rtol:.3g}"
    )
    description = f"output {bad[0]} differs: {what}; max_abs {max_abs:.3g}, max_rel {max_rel:.3g}"
    if len(bad) > 1:
        description += f" (outputs {', '.join(map(str, bad))} differ)"
    examples = [example for r in results for example in r.examples][:5]
    return Comparison(False, max_abs, max_rel, fraction, description, bad[0], examples)


# ---------------------------------------------------------------------------------------------
# Running a compiled module


def _raw_element_type(dtype: np.dtype) -> str | None:
    """IREE's name of an ml_dtypes element type (bf16, f8E4M3FN, ...), which .npy cannot hold."""
    name = np.dtype(dtype).name
    return next((iree for iree, numpy_name in _RAW_ELEMENT_TYPES.items() if numpy_name == name), None)


def array_file(dtype: np.dtype, stem: str) -> str:
    """`stem.npy`, or `stem.bin` (raw bits) for bf16 / f8 elements, which .npy cannot hold."""
    return f"{stem}.bin" if _raw_element_type(dtype) is not None else f"{stem}.npy"


def _input_flag(value: np.ndarray | np.generic, file_stem: str) -> tuple[str, Path | None]:
    """The --input flag for one argument and the file it reads (None for a literal scalar)."""
    if isinstance(value, np.generic):
        literal = int(value) if value.dtype == np.bool_ else value.item()
        return f"--input={literal!r}", None
    path = Path(array_file(value.dtype, file_stem))
    element = _raw_element_type(value.dtype)
    if element is not None:  # raw bits: the type is spelled out
        shape = "x".join(str(d) for d in value.shape)
        return f"--input={shape + 'x' if shape else ''}{element}=@{path.name}", path
    return f"--input=@{path.name}", path


def _write_input(value: np.ndarray | np.generic, path: Path | None) -> None:
    if path is None:
        return
    if path.suffix == ".bin":
        np.ascontiguousarray(value).tofile(path)
    else:
        np.save(path, value)


def _result_file(result_type: str, stem: str) -> tuple[str, ArgType | None]:
    """The output file name for one result; a bf16 / f8 tensor goes to a raw .bin (npy has neither)."""
    try:
        shape, dtype = parse_type(result_type)
    except ValueError:
        return f"{stem}.npy", None
    if shape is None:  # a primitive scalar result
        return f"{stem}.npy", None
    name = array_file(dtype, stem)
    return name, ((shape, dtype) if name.endswith(".bin") else None)


def exported_results(vmfb_path: str | Path, function: str, limits: Limits) -> list[str] | str:
    """Result types of an exported function (builtin syntax, or VM types), or an error string."""
    result = run_tool([find_tool("iree-dump-module"), "--output=metadata", str(vmfb_path)], limits)
    if result.returncode != 0 or result.timed_out:
        return f"iree-dump-module failed: {first_error(result.stderr) or result.returncode}"
    exports: list[str] = []
    lines = result.stdout.splitlines()
    in_exports = False
    for i, line in enumerate(lines):
        if line.startswith("Exported Functions:"):
            in_exports = True
            continue
        if in_exports and line and not line.startswith(" "):
            break
        match = re.match(r"\s*\[\s*\d+\]\s+([^\s(]+)\((.*)\)\s*->\s*\((.*)\)\s*$", line) if in_exports else None
        if not match:
            continue
        exports.append(match.group(1))
        if match.group(1) != function:
            continue
        vm_results = [r.strip() for r in match.group(3).split(",") if r.strip()]
        declaration = lines[i + 1] if i + 1 < len(lines) and "iree.abi.declaration" in lines[i + 1] else ""
        declared = re.findall(r"%output\d+:\s*(tensor<[^>]*>|[^,()\s]+)", declaration.split("->", 1)[-1])
        return declared if len(declared) == len(vm_results) else vm_results
    return f"function @{function} is not exported (exports: {', '.join(exports) or 'none'})"


def run_module(
    vmfb_path: str | Path,
    function: str,
    inputs: Sequence[np.ndarray | np.generic],
    workdir: str | Path,
    limits: Limits | None = None,
    *,
    device: str = RUN_DEVICE,
    result_types: Sequence[str] | None = None,
) -> list[np.ndarray] | str:
    """Runs `function` of a compiled module in a child `iree-run-module`; its results, or why not.

    Inputs go through .npy files (bf16 / f8 as raw .bin), scalars (numpy scalars) as literals; each
    result is written to its own .npy (`--output` must be given once per result, so the result
    count is read from the module first, unless the caller knows the `result_types`: the module
    says only `!vm.ref` for a function without an ABI declaration, and a bf16 / f8 result can
    only be read back with its type). Returns a one-line error string when the module is
    missing the function, crashes (a miscompiled module may), times out or reports an error.
    Give each run its own `workdir`: the file names are fixed.
    """
    limits = limits or Limits()
    workdir = Path(workdir)
    if result_types is None:
        result_types = exported_results(vmfb_path, function, limits)
        if isinstance(result_types, str):
            return result_types
    module = Path(vmfb_path).resolve()
    argv = [find_tool("iree-run-module"), f"--device={device}", f"--module={module}", f"--function={function}"]
    for i, value in enumerate(inputs):
        flag, path = _input_flag(value, f"arg{i}")
        _write_input(value, None if path is None else workdir / path)
        argv.append(flag)
    outputs = []
    for j, result_type in enumerate(result_types):
        name, raw = _result_file(result_type, f"result{j}")
        argv.append(f"--output=@{name}")
        outputs.append((workdir / name, raw))
    process = run_tool(argv, limits, cwd=str(workdir))
    if process.timed_out:
        return f"iree-run-module timed out after {process.seconds:.0f} s"
    if process.signal_name:
        return f"iree-run-module crashed with {process.signal_name}"
    if process.returncode != 0:
        return first_error(process.stderr) or f"iree-run-module exited {process.returncode}"
    arrays = []
    for path, raw in outputs:
        try:
            if raw is not None:
                shape, dtype = raw
                arrays.append(np.fromfile(path, dtype=dtype).reshape(shape))
            else:
                arrays.append(np.load(path))
        except (OSError, ValueError, EOFError) as err:
            return f"cannot read {path.name}: {err}"
    return arrays


# ---------------------------------------------------------------------------------------------
# The oracle


class Miscompile(Oracle):
    name = "miscompile"
    summary = "two pipelines (--pipeline-a/--pipeline-b flags) give different results on the same seeded inputs"
    output_name = "a.vmfb"

    def __init__(self, options=None) -> None:
        super().__init__(options)
        if not self.options.pipeline_a and not self.options.pipeline_b:
            raise OracleSetupError(
                "--oracle=miscompile needs two pipelines: --pipeline-a 'FLAGS' --pipeline-b 'FLAGS' "
                "(e.g. --pipeline-b '--iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx')"
            )

    def pipeline_flags(self, which: str, user_flags: Sequence[str]) -> list[str]:
        """Flags of pipeline 'a' or 'b': its own, then the user's; the generic CPU when no target is named."""
        own = self.options.pipeline_a if which == "a" else self.options.pipeline_b
        return with_default_target([*own, *user_flags])

    def compile_flags(self, user_flags):
        return self.pipeline_flags("a", user_flags)

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        lines = []
        try:
            function, args, results = _entry(candidate.text)
        except ValueError:
            function, args, results = "main", [], []
        input_flags = [_input_flag(v, f"arg{i}")[0] for i, v in enumerate(inputs_for_signature(args, self.options.seed))]
        if args:
            lines.append(shlex.join(["python", "-m", "oracles.miscompile", "write-inputs", path, "--seed", str(self.options.seed)]))
        for which in ("a", "b"):
            lines.append(shlex.join(["iree-compile", *self.pipeline_flags(which, candidate.flags), path, "-o", f"{which}.vmfb"]))
        for which in ("a", "b"):
            output_flags = [f"--output=@{_result_file(t, f'{which}_result{j}')[0]}" for j, t in enumerate(results)]
            run = ["iree-run-module", f"--device={RUN_DEVICE}", f"--module={which}.vmfb", f"--function={function}"]
            lines.append(shlex.join([*run, *input_flags, *output_flags]))
        return "\n".join(lines)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        if candidate.binary is not None:
            return Verdict(False, "", "miscompile needs MLIR text; import the model first (iree-import-onnx)")
        try:
            function, args = entry_signature(candidate.text)
            inputs = inputs_for_signature(args, self.options.seed)
        except ValueError as err:
            return Verdict(False, "", f"cannot run the program: {err}")
        limits = self.options.limits
        outputs: list[list[np.ndarray]] = []
        for which in ("a", "b"):
            label = which.upper()
            subdir = workdir / which
            subdir.mkdir()
            compiled = compile_candidate(candidate, self.pipeline_flags(which, candidate.flags), subdir, limits, f"{which}.vmfb")
            if compiled.process.timed_out:
                return Verdict(False, "", f"pipeline {label} compile timed out after {compiled.process.seconds:.0f} s")
            if not compiled.ok:
                stderr = compiled.process.stderr
                why = first_error(stderr) or compiled.process.signal_name or f"exit {compiled.process.returncode}"
                return Verdict(False, "", f"pipeline {label} fails to compile: {why}", excerpt=excerpt(stderr))
            result = run_module(compiled.output, function, inputs, subdir, limits)
            if isinstance(result, str):
                return Verdict(False, "", f"pipeline {label} fails to run @{function}: {result}")
            outputs.append(result)
        comparison = compare_outputs(
            outputs[0],
            outputs[1],
            reduction_length=reduction_length_hint(candidate.text),
            quantized=looks_quantized(candidate.text),
        )
        metrics = {
            "max_abs": comparison.max_abs,
            "max_rel": comparison.max_rel,
            "mismatch_fraction": comparison.mismatch_fraction,
        }
        if comparison.matches:
            return Verdict(False, "", f"pipelines agree on @{function}: {comparison.description}", metrics)
        return Verdict(
            True,
            f"miscompile: {function} output {comparison.first_mismatch} differs",
            f"pipeline B differs from A on @{function}: {comparison.description}",
            metrics,
            "\n".join(comparison.examples),
        )


# ---------------------------------------------------------------------------------------------
# `python -m oracles.miscompile write-inputs FILE --seed N`: the inputs the oracle used.


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracles.miscompile")
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write-inputs", help="write the seeded inputs of FILE's entry function as arg<i>.npy")
    write.add_argument("file")
    write.add_argument("--seed", type=int, default=0)
    write.add_argument("--dir", default=".", help="where to write (default: here)")
    args = parser.parse_args(argv)
    try:
        function, arg_types = entry_signature(Path(args.file).read_text())
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    flags = []
    for i, value in enumerate(inputs_for_signature(arg_types, args.seed)):
        flag, path = _input_flag(value, f"arg{i}")
        _write_input(value, None if path is None else Path(args.dir) / path)
        flags.append(flag)
    print(shlex.join([f"--function={function}", *flags]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
