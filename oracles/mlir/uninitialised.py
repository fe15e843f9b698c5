"""Ops that read uninitialised memory: a `tensor.empty` value read as data.

`tensor.empty` only says "a tensor of this shape"; its contents are undefined. An op that reads
it (a matmul accumulating into it once a reduction dropped the `linalg.fill` before it, an
elementwise op taking it as an input, a function returning it) computes garbage that differs
between pipelines, runs and allocators by chance: a wrong answer of no compiler bug. Such a
candidate is never a wrong answer worth keeping.

Why a static check and not compiling with and without `--iree-flow-zero-fill-empty-tensors`:
that flag fills only the `tensor.empty` values left outside dispatches after dispatch formation;
an empty fused into a dispatch as its output operand (the case above) stays uninitialised, so
both compiles can read the same garbage. Walking the IR costs a parse, no compile.
"""

from __future__ import annotations

from iree.compiler import ir

from oracles.mlir import ir as irx

EMPTY = "tensor.empty"
# Ops whose result is a view of their first operand: uninitialised where it is.
_VIEWS = frozenset({
    "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice", "tensor.reshape",
    "tensor.bitcast", "flow.tensor.reshape", "flow.tensor.bitcast",
})  # fmt: skip
# Ops that only write the operand (it is their destination): no read, whatever they overwrite.
_DESTINATIONS = {
    "tensor.insert_slice": 1, "tensor.parallel_insert_slice": 1, "tensor.pack": 1, "tensor.unpack": 1,
    "linalg.pack": 1, "linalg.unpack": 1, "flow.tensor.update": 0,
}  # fmt: skip
# Ops that take it only as their output shape (write every element, read none).
_WRITE_ONLY_OPS = frozenset({
    "iree_linalg_ext.attention", "iree_linalg_ext.im2col", "iree_linalg_ext.winograd.input_transform",
    "iree_linalg_ext.winograd.filter_transform", "iree_linalg_ext.winograd.output_transform",
})  # fmt: skip


def _reads(user: ir.Operation, operand: int) -> bool:
    """Whether `user` reads its operand number `operand` as data."""
    if _DESTINATIONS.get(user.name) == operand or user.name in _WRITE_ONLY_OPS:
        return False
    if user.name.startswith(("linalg.", "iree_linalg_ext.")) and user.regions:
        blocks = list(user.regions[0].blocks)
        if blocks and len(blocks[0].arguments) == len(user.operands):
            # A structured op: its payload's block argument for the operand says whether it is read
            # (a fill or a transpose writes its output operand without reading it; a matmul reads it).
            return any(True for _ in blocks[0].arguments[operand].uses)
    return True


def _readers(value: ir.Value, seen: set[str]) -> list[str]:
    found = []
    for use in value.uses:
        user = use.owner if isinstance(use.owner, ir.Operation) else use.owner.operation
        if user.name in _VIEWS and use.operand_number == 0:
            key = str(user.location) + user.name
            if key not in seen:
                seen.add(key)
                found += [reader for result in user.results for reader in _readers(result, seen)]
        elif _reads(user, use.operand_number):
            verb = "returns" if irx.is_terminator(user) else f"reads (operand {use.operand_number})"
            found.append(f"{user.name} {verb} a {EMPTY} value")
    return found


def uninitialised_reads(module: ir.Module) -> list[str]:
    """One line per op that reads a `tensor.empty` value (through views), each once."""
    found: list[str] = []
    for op in irx.walk_ops(module.operation):
        if op.name == EMPTY:
            for reader in _readers(op.results[0], set()):
                if reader not in found:
                    found.append(reader)
    return found


def uninitialised_reads_in(text: str) -> list[str]:
    """`uninitialised_reads` of program text ([] when it does not parse: the compile will say why)."""
    try:
        module = irx.parse(text)
    except irx.ParseError:
        return []
    return uninitialised_reads(module)
