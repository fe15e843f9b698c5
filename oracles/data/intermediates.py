"""What an MLIR program computes at each value of its entry function, on the data it carries.

When a cut turns a value into a new argument, that argument gets what the program computed
there on the user's inputs, not a seeded draw: a wrong answer that needs the user's values (a
range that saturates, a zero point) must survive the cut. One compile on the reference pipeline
(oracles/data/reference_pipeline.py) returns every top-level value at once, up to a byte cap.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from iree.compiler import ir

from oracles.candidate import Candidate
from oracles.data import reference_pipeline
from oracles.data.arrays import entry_function, parse_type
from oracles.data.carried import INTERMEDIATE_BYTES, program_inputs
from oracles.data.run import run_module
from oracles.mlir import ir as irx
from oracles.toolchain.tools import Limits, compile_candidate, scratch_dir

Position = tuple[int, int]  # (op index in the entry block, result number)


def values_at(candidate: Candidate, limits: Limits, seed: int, byte_cap: int = INTERMEDIATE_BYTES) -> dict[Position, np.ndarray] | str:
    """Every statically shaped value of the entry block's ops (largest last, up to `byte_cap` in
    all) as the reference pipeline computes it on `candidate`'s data; or why not, one line."""
    try:
        function, args, results = entry_function(candidate.text, dynamic=True)
        inputs = program_inputs(candidate.data, args, seed)
    except ValueError as err:
        return f"cannot run the program: {err}"
    ctx = irx.new_context()
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(candidate.text, ctx)
        wanted = _returned_too(module, byte_cap)
        text = irx.to_text(module)
    if not wanted:
        return {}
    with scratch_dir() as tmp:
        compiled = compile_candidate(candidate.with_text(text), list(reference_pipeline.FLAGS), Path(tmp), limits, "values.vmfb")
        if not compiled.ok:
            return f"the reference pipeline does not compile it (exit {compiled.process.returncode})"
        got = run_module(compiled.output, function, inputs, tmp, limits, result_types=[*results, *(t for _, t in wanted)])
    if isinstance(got, str):
        return got
    return {position: value for (position, _), value in zip(wanted, got[len(results):], strict=True)}


def smallest_within(sizes: dict[Position, int], byte_cap: int) -> set[Position]:
    """The values to keep, smallest first, up to `byte_cap` bytes in all: many small values are
    worth more to cuts than one large one."""
    kept, budget = set(), byte_cap
    for position, size in sorted(sizes.items(), key=lambda item: item[1]):
        if size <= budget:
            budget -= size
            kept.add(position)
    return kept


def _returned_too(module: ir.Module, byte_cap: int) -> list[tuple[Position, str]]:
    """Adds the entry block's values to what it returns; their positions and types."""
    func = irx.public_entry(module)
    block = irx.entry_block(func) if func is not None else None
    if block is None:
        return []
    ops = [op.operation for op in block.operations]
    terminator = ops[-1]
    sized = []
    for k, op in enumerate(ops[:-1]):
        for r, value in enumerate(op.results):
            try:
                shape, dtype = parse_type(str(value.type))
            except ValueError:
                continue  # no static shape or no numpy type: that argument stays seeded
            sized.append((int(np.prod(shape or (), dtype=np.int64)) * np.dtype(dtype).itemsize, (k, r), value))
    kept = smallest_within({position: size for size, position, _ in sized}, byte_cap)
    wanted = sorted(((position, value) for _, position, value in sized if position in kept), key=lambda w: w[0])
    returned = [*terminator.operands, *(v for _, v in wanted)]
    with ir.InsertionPoint(terminator):
        ir.Operation.create(terminator.name, operands=returned)
    terminator.erase()
    irx.set_function_type(func, list(irx.function_type(func).inputs), [v.type for v in returned])
    if "res_attrs" in func.attributes:
        del func.attributes["res_attrs"]
    return [(position, str(value.type)) for position, value in wanted]
