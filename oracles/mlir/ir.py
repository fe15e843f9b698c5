"""Parsing, printing, verifying and small edits of MLIR through the compiler's Python bindings."""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from collections.abc import Iterator

from iree.compiler import ir

from oracles.candidate import CandidateRejected

# Dialects of the IR the reducer reads that the wheel ships no Python module for. Whenever the
# bindings wrap an op they import its dialect's module, and retry a missing one every time, as a
# failed search of sys.path: a walk over a 5,000-op torch export made 5,329 of them (0.11 s of
# CPU a walk, where it takes 0.002 s once each has an empty stand-in; measured on IREE 3.13).
_WITHOUT_MODULE = ("torch", "torch_c", "iree_encoding", "iree_linalg_ext", "iree_cpu", "iree_input", "io_parameters",
                   "stablehlo", "chlo", "ml_program", "tm_tensor", "spirv", "vmvx", "check", "bufferization",
                   "sparse_tensor", "index", "quant", "ub", "emitc")


def _stand_in_dialect_modules() -> None:
    for name in _WITHOUT_MODULE:
        full = f"{ir.__name__.rsplit('.', 1)[0]}.dialects.{name}"
        if full not in sys.modules and importlib.util.find_spec(full) is None:
            sys.modules[full] = types.ModuleType(full)  # no op classes: ops stay generic OpViews, as before


_stand_in_dialect_modules()

FUNCTION_OPS = ("func.func", "util.func")
# Where a compile keeps each dispatch's code: an executable > (variant >) builtin.module > func,
# and after SPIR-V conversion > spirv.module > spirv.func.
EXECUTABLE_OPS = ("flow.executable", "stream.executable", "hal.executable", "hal.executable.source")
_NESTED_FUNCTIONS = {"builtin.module": FUNCTION_OPS, "spirv.module": ("spirv.func",)}
_DIAG_LOCATION = re.compile(r'loc\("[^"]*":(\d+):(\d+)\)')


class ParseError(ValueError, CandidateRejected):
    """Unparseable IR; the message is one line with the location."""


class NotVerified(CandidateRejected):
    """IR the verifier rejects; the message is its first diagnostic, one line."""


def new_context(lenient: bool = False, lazy: bool = False) -> ir.Context:
    """A context for IR the reducer edits (strict: every op must be known, so edits verify), or
    `lenient` for IR the compiler printed, which may hold ops of dialects the bindings lack.
    `lazy`: dialects load as the IR uses them (a few ms to make, where loading all takes ~40)."""
    ctx = ir.Context(load_on_create_dialects=[]) if lazy else ir.Context()
    ctx.allow_unregistered_dialects = lenient
    # Single-threaded: a verifier or pass that fails on a worker thread reports through the
    # bindings' diagnostic capture, which takes the GIL that the calling thread holds while it
    # waits for that worker (a deadlock seen in `verify()` of an edited ONNX import).
    ctx.enable_multithreading(False)
    return ctx


# How IR refers to a resource blob. A context renames a blob whose name it has seen (a second
# parse of the same text prints `dense_resource<w_1>`), and keeps every blob it parsed alive.
RESOURCE_REF = "dense_resource<"


def holds_resources(text: str) -> bool:
    return RESOURCE_REF in text


def parse(text: str, ctx: ir.Context | None = None, source_name: str = "input") -> ir.Module:
    """The one place IR text becomes a module; a lenient fresh context when none is given."""
    try:
        return ir.Module.parse(text, ctx or new_context(lenient=True))
    except ir.MLIRError as err:
        raise ParseError(_first_diagnostic(err, source_name)) from None


# The magic number every MLIR bytecode file starts with ("ML\xefR").
BYTECODE_MAGIC = b"ML\xefR"


def parse_bytecode(data: bytes, ctx: ir.Context | None = None, source_name: str = "input") -> ir.Module:
    """MLIR bytecode (`.mlirbc`, which exporters write) as a module; ParseError when it does not read."""
    try:
        return ir.Module.parse(data, ctx or new_context(lenient=True))
    except ir.MLIRError as err:
        raise ParseError(_first_diagnostic(err, source_name)) from None


def _first_diagnostic(err: ir.MLIRError, source_name: str) -> str:
    for diag in err.error_diagnostics:
        where = _DIAG_LOCATION.search(str(diag.location))
        place = f"{source_name}:{where.group(1)}:{where.group(2)}" if where else source_name
        return f"{place}: {diag.message.strip()}"
    return f"{source_name}: {str(err).splitlines()[-1].strip()}"


def verifies(module: ir.Module) -> bool:
    try:
        return bool(module.operation.verify())
    except ir.MLIRError:
        return False


def verify(module: ir.Module, source_name: str = "candidate") -> None:
    """Raises NotVerified (the verifier's first diagnostic) when `module` does not verify: an edit's
    output, which the reducer then counts as a rejected candidate."""
    try:
        if module.operation.verify():
            return
    except ir.MLIRError as err:
        raise NotVerified(_first_diagnostic(err, source_name)) from None
    raise NotVerified(f"{source_name}: does not verify")


def to_text(module: ir.Module) -> str:
    return module.operation.get_asm(assume_verified=True)


def functions(module: ir.Module) -> list[ir.Operation]:
    """Top-level functions, then those inside executables (IR from the middle of a compile)."""
    found = [op.operation for op in module.body.operations if op.operation.name in FUNCTION_OPS]
    for op in module.body.operations:
        if op.operation.name in EXECUTABLE_OPS:
            found += [f for f in walk_ops(op.operation) if f.name in _NESTED_FUNCTIONS.get(f.parent.name, ())]
    return found


def public_entry(module: ir.Module) -> ir.Operation | None:
    """The function a program runs: the first public top-level function with a body."""
    for op in module.body.operations:
        operation = op.operation
        if operation.name not in FUNCTION_OPS or not operation.regions or len(operation.regions[0].blocks) == 0:
            continue  # other ops and external declarations
        attrs = operation.attributes
        if "sym_visibility" not in attrs or ir.StringAttr(attrs["sym_visibility"]).value == "public":
            return operation
    return None


def entry_block(func: ir.Operation) -> ir.Block | None:
    region = func.regions[0]
    blocks = list(region.blocks)
    return blocks[0] if blocks else None


def straight_line_ops(func: ir.Operation) -> list[ir.Operation] | None:
    """A single-block function's top-level ops, its terminator excluded; None for a declaration
    or a function of several blocks (no straight-line program to slice)."""
    block = entry_block(func)
    if block is None or len(func.regions[0].blocks) != 1:
        return None
    return [op.operation for op in block.operations if not is_terminator(op.operation)]


def is_terminator(op: ir.Operation) -> bool:
    return op.has_trait(ir.IsTerminatorTrait)


# The function attribute iree-import-onnx writes the model's opset in; the conversion of each
# `torch.operator "onnx.*"` picks its lowering by it.
ONNX_OPSET = "torch.onnx_meta.opset_version"


def onnx_op_type(op: ir.Operation) -> str | None:
    """"Conv" for a `torch.operator "onnx.Conv"` (how iree-import-onnx writes each node), else None."""
    if op.name != "torch.operator":
        return None
    name = op_name(op)
    return name.removeprefix("onnx.") if name.startswith("onnx.") else None


def op_name(op: ir.Operation) -> str:
    """An op's name, a `torch.operator`'s by the op it stands for (`onnx.Conv`, `aten.conv2d`)."""
    return ir.StringAttr(op.attributes["name"]).value if op.name == "torch.operator" else op.name


def op_names(text: str) -> frozenset[str] | None:
    """The name of every op in the program in `text`, nested ones too (None: unparseable)."""
    try:
        module = parse(text, new_context(lenient=True, lazy=True))
    except ParseError:
        return None
    return frozenset(op_name(op) for op in walk_ops(module.operation))


def walk_ops(root: ir.Operation) -> Iterator[ir.Operation]:
    """Pre-order over every op nested under root (root excluded), in textual order."""
    for region in root.regions:
        for block in region.blocks:
            for op in block.operations:
                op = op.operation
                yield op
                yield from walk_ops(op)


def body_ops(module: ir.Module) -> Iterator[ir.Operation]:
    """Every op inside function bodies, terminators excluded (what 'ops' counts)."""
    for func in functions(module):
        for op in walk_ops(func):
            if not is_terminator(op):
                yield op


# Placeholders, not computations: an importer emits them for omitted optional operands.
_NOT_COUNTED = ("torch.constant.none",)


def count_ops(module: ir.Module) -> int:
    """Ops inside functions plus non-function top-level ops (globals): the reducer's size unit."""
    top_level = sum(1 for op in module.body.operations if op.operation.name not in FUNCTION_OPS)
    return top_level + sum(1 for op in body_ops(module) if op.name not in _NOT_COUNTED)


# Ops that hold a value and compute nothing: IREE forms no dispatch around them (a splat constant
# of i64 is filled by one of its builtin executables, `__builtin_splat_i64`, never by one of the
# program's own; measured on IREE 3.13 for hip, cuda, vulkan and llvm-cpu).
_VALUE_OPS = ("torch.vtensor.literal", "arith.constant", "torch.constant.")


def computes(text: str) -> bool:
    """Whether the program in `text` computes anything: an op in a function body other than
    constants and terminators, or any top-level op but a function (a global, an initializer, an
    executable). Unparseable text counts as computing (the compiler is left to judge it)."""
    try:
        module = parse(text, new_context(lenient=True, lazy=True))
    except ParseError:
        return True
    if any(op.operation.name not in FUNCTION_OPS for op in module.body.operations):
        return True
    return any(not (op.name.startswith(_VALUE_OPS) or onnx_op_type(op) == "Constant") for op in body_ops(module))


def has_uses(op: ir.Operation) -> bool:
    return any(True for result in op.results for _ in result.uses)


def erase_dead(root: ir.Operation) -> None:
    """Erases ops whose results are all unused, to a fixpoint; ops with no results are kept (they may write state)."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(walk_ops(root))):
            if len(op.results) and not has_uses(op) and not is_terminator(op):
                op.erase()
                changed = True


def function_type(func: ir.Operation) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)


def set_function_type(func: ir.Operation, inputs: list[ir.Type], results: list[ir.Type]) -> None:
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


def sync_arguments(func: ir.Operation, erased: list[int] | None = None) -> None:
    """Makes function_type and arg_attrs agree with the entry block's arguments."""
    block = entry_block(func)
    if block is None:
        return
    fn_type = function_type(func)
    set_function_type(func, [arg.type for arg in block.arguments], list(fn_type.results))
    if "arg_attrs" in func.attributes:
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        for index in sorted(erased or [], reverse=True):
            if index < len(old):
                del old[index]
        while len(old) < len(block.arguments):
            old.append(ir.DictAttr.get({}))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(old[: len(block.arguments)])


def called_symbols(module: ir.Module) -> set[str]:
    """Names that call-like ops refer to (functions with callers keep their signature)."""
    names: set[str] = set()
    for op in body_ops(module):
        if "callee" in op.attributes:
            names.add(str(op.attributes["callee"]).lstrip("@").strip('"'))
    return names


def symbol_name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else ""
