"""Single edits of an MLIR program, through the MLIR bindings: delete an op, bypass an op, halve a dim.

The ops are those inside functions (nested ones too), terminators aside, in walk order; each
candidate parses the result afresh, edits the op at its position, must verify and, printed and
parsed again, have fewer ops (a named op's implicit body comes back from its name). Deleting an op
makes what read each of its results read a new argument of the function, last (the arguments
before it keep their data). Bypassing a one-result op makes its readers read one of its operands
of the same type. Halving: a torch-onnx program is lifted to ONNX (oracles/onnx/lift.py), halved
there (onnx_edits.py) and imported again; programs on builtin tensors have no shape inference to
derive the rest from, so their dims are not halved (said beside the answer).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from iree.compiler import ir

from bench.minimality import onnx_edits
from bench.minimality.edit import Edit, NoCandidate
from oracles import Candidate
from oracles.candidate import CandidateRejected
from oracles.formats import Format, suffix_of
from oracles.mlir import ir as irx
from oracles.onnx.importer import import_model
from oracles.onnx.lift import lift
from oracles.toolchain.tools import Limits
from reducer.graphs import onnx_model

# Never edited: the verifier of `torch.bind_symbolic_shape` crashes the process (SIGSEGV in IREE
# 3.13) when the symbol it names is anything but a `torch.symbolic_int`.
UNTOUCHED = ("torch.symbolic_int",)


def targets(module: ir.Module) -> list[tuple[ir.Operation, ir.Operation]]:
    """(op, its function) of every op a single edit may take, in walk order."""
    return [(op, func) for func in irx.functions(module) for op in irx.walk_ops(func)
            if not irx.is_terminator(op) and op.name not in UNTOUCHED and op.name not in irx.FUNCTION_OPS]


def edits(result: Candidate) -> Iterator[Edit]:
    module = irx.parse(result.text, irx.new_context())
    found = targets(module)
    for i, (op, _) in enumerate(found):
        yield Edit("deletion", f"delete op {i} ({op.name})", partial(_made, result, _delete, i))
    for i, (op, _) in enumerate(found):
        for j in same_typed_operands(op):
            yield Edit("bypass", f"bypass op {i} ({op.name}) by its operand {j}", partial(_made, result, _bypass, i, j))
    yield from halvings(result)


def same_typed_operands(op: ir.Operation) -> list[int]:
    """The operands a one-result op can be bypassed by (each value once)."""
    if len(op.results) != 1:
        return []
    wanted, seen, found = op.results[0].type, [], []
    for j, operand in enumerate(op.operands):
        if operand.type == wanted and not any(operand == other for other in seen):
            found.append(j)
        seen.append(operand)
    return found


def _made(result: Candidate, edit, i: int, *args) -> Candidate:
    """`edit(op, func, *args)` on the i-th target of a fresh parse of the result, verified."""
    ctx = irx.new_context()
    with ctx, ir.Location.unknown():
        module = irx.parse(result.text, ctx)
        op, func = targets(module)[i]
        before = len(targets(module))
        edit(op, func, *args)
        irx.verify(module)  # NotVerified (a CandidateRejected) when it does not
        text = irx.to_text(module)
    # An op in a named op's implicit body (the mulf of a linalg.conv_2d_nchw_fchw) is not printed:
    # the parse gives it back, and the candidate would be the result plus an argument.
    if len(targets(irx.parse(text, irx.new_context()))) >= before:
        raise NoCandidate("the printed program is no smaller (the op is part of a named op's implicit body)")
    return result.with_text(text)


def _delete(op: ir.Operation, func: ir.Operation) -> None:
    block = irx.entry_block(func)
    for value in op.results:
        if any(True for _ in value.uses):
            value.replace_all_uses_with(block.add_argument(value.type, op.location))
    op.erase()
    irx.sync_arguments(func)


def _bypass(op: ir.Operation, func: ir.Operation, j: int) -> None:
    op.results[0].replace_all_uses_with(op.operands[j])
    op.erase()


def lifted(result: Candidate) -> Candidate | None:
    """The program as an ONNX candidate, or None when it is no torch-onnx program of valid ONNX ops
    (NotLiftable and ParseError are ValueErrors; OnnxLoadError a CandidateRejected)."""
    try:
        model = lift(result.text, exact=True)
        onnx_model.check(model)
    except (ValueError, CandidateRejected):
        return None
    return Candidate(onnx_model.describe(model), result.flags, suffix_of(Format.ONNX), onnx_model.serialise(model), result.data)


def not_covered(result: Candidate) -> str:
    return "" if lifted(result) is not None else "dims not halved: no torch-onnx program of valid ONNX ops to lift"


def halvings(result: Candidate) -> Iterator[Edit]:
    """A torch-onnx program's halvings, made on its ONNX lift and imported again."""
    model = lifted(result)
    for edit in onnx_edits.edits(model) if model is not None else ():
        if edit.kind == "halving":
            yield Edit("halving", edit.label, partial(_imported, result, edit))


def _imported(result: Candidate, edit: Edit) -> Candidate:
    halved = edit.make()
    with tempfile.TemporaryDirectory(prefix="one-minimal-") as scratch:
        text, process = import_model(halved.binary, Path(scratch), Limits(timeout_s=120))
    if text is None:
        raise NoCandidate(f"the halved model does not import: {process.stderr.strip()[-200:]}")
    return result.with_text(text)
