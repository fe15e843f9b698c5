"""A case's program as the tools take it: exported by `torch.export`, or drawn again.

`torch.export` rejects some programs a draw makes (a view it cannot trace at a dynamic size, a
dimension the code specialises); those are not findings, the case draws again from the next
attempt of its seed (`fuzz.torch_gen.draw`), up to `ATTEMPTS` times. A program PyTorch itself
cannot run, or whose answer is not finite, is drawn again too: there is nothing to compare.
The program taken is brought to the importer as `reduce` brings a user's `.pt2` by default (made
functional and decomposed as iree-turbine, IREE's PyTorch front end, does:
`oracles/torch/decompositions.py`), saved, and imported by the FX importer
(`oracles/torch/importer.py`); an importer failure is IREE's, a finding.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np
import torch
from torch import nn
from torch.export import ExportedProgram

from fuzz.dynamic import AWKWARD_SIZES
from fuzz.torch_gen.build import build_module, dynamic_shapes, input_arrays
from fuzz.torch_gen.draw import draw_torch_spec
from fuzz.torch_gen.spec import TorchSpec
from oracles.torch import DEFAULT_IMPORT
from oracles.torch.decompositions import NotDecomposable, as_imported
from oracles.torch.eager import EagerError, outputs, to_torch
from oracles.torch.importer import NotImportable, import_text
from oracles.torch.program import (
    describe,
    nodes,
    one_line,
    op_name,
    quiet,
    save,
)

ATTEMPTS = 12
RUN_SIZES = 3  # a dynamic case runs at its example's size and two more


class Rejected(Exception):
    """torch.export (or PyTorch eager) does not take the drawn program; one line."""


@dataclass
class Exported:
    spec: TorchSpec  # with its dynamic sizes and ops filled in
    program: ExportedProgram  # functional, as saved
    archive: bytes  # the .pt2
    module: nn.Module  # the program as built (eager; its f64 twin is the reference of half types)
    mlir: str | None  # what the archive imports to; None: the importer failed (`import_error`)
    import_error: str
    expected: dict[int | None, list[np.ndarray]]  # PyTorch eager's outputs at each size
    rejected: tuple[str, ...] = ()  # why each earlier attempt was drawn again


def export_case(seed: int, probabilities: dict[str, float] | None = None) -> Exported | None:
    """The first draw of `seed` that exports; None when `ATTEMPTS` draws in a row are rejected."""
    rejected: list[str] = []
    for attempt in range(ATTEMPTS):
        try:
            made = exported(draw_torch_spec(seed, probabilities, attempt))
        except Rejected as why:
            rejected.append(str(why))
            continue
        made.rejected = tuple(rejected)
        return made
    return None


def exported(spec: TorchSpec) -> Exported:
    """The spec's program exported, run eagerly at its sizes, saved and imported. Rejected when
    torch.export or PyTorch cannot take it. A spec read back from a finding gives the same program."""
    module = build_module(spec)
    example = tuple(to_torch(a) for a in input_arrays(spec))
    with quiet():
        try:
            program = torch.export.export(module, example, dynamic_shapes=dynamic_shapes(spec), strict=False)
        except Exception as err:  # noqa: BLE001  (export raises anything for a program it cannot trace)
            raise Rejected(f"torch.export: {one_line(err)}") from None
    try:  # as `reduce` brings a .pt2 to the importer by default: iree-turbine's decompositions
        program = as_imported(program, DEFAULT_IMPORT)
    except NotDecomposable as err:
        raise Rejected(f"decompositions: {err}") from None
    if spec.dynamic is not None and len(spec.dynamic.sizes) < 2:
        spec = replace(spec, dynamic=replace(spec.dynamic, sizes=_run_sizes(spec, program)))
    expected = {}
    for size in spec.dynamic.sizes if spec.dynamic is not None else (None,):
        expected[size] = _eager(program, input_arrays(spec, size))
    archive = save(program)
    spec = replace(spec, ops=tuple(sorted({op_name(node) for node in nodes(program)})))
    try:  # the saved program is decomposed already: what `reduce` imports when it loads the archive
        mlir, why = import_text(program), ""
    except NotImportable as err:
        mlir, why = None, str(err)
    return Exported(spec, program, archive, module, mlir, why, expected)


def _eager(program: ExportedProgram, inputs: list[np.ndarray]) -> list[np.ndarray]:
    try:
        answer = outputs(program, inputs)
    except EagerError as err:
        raise Rejected(str(err)) from None
    for value in answer:
        floating = value.dtype.kind == "f" or value.dtype.itemsize == 2 and value.dtype.kind not in "iub"
        if floating and not np.all(np.isfinite(value.astype(np.float64))):
            raise Rejected("PyTorch's answer is not finite")
    return answer


def _run_sizes(spec: TorchSpec, program: ExportedProgram) -> tuple[int, ...]:
    """The example's size and awkward ones (1, primes, one off a tile) within the range export
    inferred for the dimension and the spec's bound."""
    assert spec.dynamic is not None
    example = spec.inputs[0].shape[spec.dynamic.axis]
    low, high = _inferred_range(program, spec.dynamic.axis)
    low, high = max(low, spec.dynamic.low), min(high, spec.dynamic.high)
    options = [s for s in AWKWARD_SIZES if low <= s <= high and s != example]
    chooser = random.Random(f"{spec.seed}:torch:sizes")
    return (example, *sorted(chooser.sample(options, min(RUN_SIZES - 1, len(options)))))


def _inferred_range(program: ExportedProgram, axis: int) -> tuple[int, float]:
    """The range torch.export inferred for the first input's dimension `axis`."""
    placeholder = next(node for node in program.graph.nodes if node.op == "placeholder"
                       and node.name in program.graph_signature.user_inputs)
    size = placeholder.meta["val"].shape[axis]
    if not isinstance(size, torch.SymInt):
        return size, size
    bounds = program.range_constraints.get(size.node.expr)
    if bounds is None:
        return 2, float("inf")
    try:
        upper: float = int(bounds.upper)
    except (TypeError, ValueError, AttributeError, OverflowError):  # int_oo: no upper bound
        upper = float("inf")
    return int(bounds.lower), upper


def description(made: Exported) -> str:
    """One line: the spec's blocks, type and sizes, and the exported program's nodes."""
    spec = made.spec
    shown = " -> ".join(_block_text(b.kind, dict(b.params)) for b in spec.blocks)
    kind = spec.dtype + (" inside f32" if spec.cast_inside else "")
    dynamic = f", dynamic {spec.dynamic.symbol} at {','.join(map(str, spec.dynamic.sizes))}" if spec.dynamic else ""
    return f"torch: {shown}  [{kind}{dynamic}; {describe(made.program).removeprefix('torch.export program: ')}]"


def _block_text(kind: str, p: dict) -> str:
    if kind == "conv":
        return f"conv{len(p['kernel'])}d g={p['groups']} k={'x'.join(map(str, p['kernel']))} {p['cin']}->{p['cout']}"
    if kind in ("attention", "kv_cache"):
        extras = [p.get("mask", ""), "rotary" if p.get("rotary") else "", p.get("update", "")]
        return f"{kind}(h={p['heads']} kv={p['kv_heads']} d={p['head_dim']} {' '.join(e for e in extras if e and e != 'none')})"
    if kind in ("linear", "int8_linear"):
        return f"{kind}[{p['form']}] {p['cin']}->{p['cout']}"
    if kind == "views":
        return "views(" + ",".join(op for op, _ in p["ops"]) + ")"
    if kind == "epilogue":
        return "+".join(x for x in (p.get("act"), "clamp" if p.get("clamp") else None, "residual" if p.get("residual") else None) if x)
    return kind + (f"[{p['form']}]" if "form" in p else "")
