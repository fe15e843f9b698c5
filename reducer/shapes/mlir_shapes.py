"""Shrinkable dimensions of linalg-on-tensors IR (a whole program or a standalone hal.executable).

Every static dimension of every tensor (function arguments, op results, dispatch tensors of
binding subspans) is a place; each op's shape rule (`reducer.shapes.shape_rules`) ties places together,
and what stays free after elimination (`reducer.shapes.dim_system`) are the dimensions a reduction can
shrink: a class of tied dims moves as one (a matmul's K on both operands, every elementwise op
along a chain, a convolution's input with its output). A resize sets one free size, evaluates
every place, rewrites each changed type through the bindings (`Value.set_type`), fixes the
attributes that spell sizes (constants become splats, slice sizes, reshape output shapes,
function types) and verifies. Dims an op without a shape rule touches keep their sizes; the op
is named in `kept`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.shapes import degenerate
from reducer.shapes.dim_system import DimSystem
from reducer.shapes.shape_rules import Fixup, rule_for, shaped
from reducer.shapes.tensor_types import elements, static_shape, with_shape

_RETURN_OPS = ("func.return", "util.return")
_CALL_OPS = ("func.call", "util.call")


@dataclass(frozen=True)
class Target:
    """A shrinkable dimension: one free size, or every free size that has one value, at once."""

    key: str
    size: int
    variables: tuple[int, ...]


@dataclass
class Analysis:
    """The places of a parsed module, their ties, and what a resize must also fix."""

    system: DimSystem = field(default_factory=DimSystem)
    value_places: dict[ir.Value, list[int | None]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)  # IR place -> 'value[dim]'
    fixups: list[Fixup] = field(default_factory=list)
    kept: dict[str, int] = field(default_factory=dict)  # 'op (why)' -> dims above 1 it keeps
    applicable: bool = True

    # The ShapeGraph protocol the rules state their ties on.
    def dims(self, value: ir.Value) -> list[int]:
        return [p for p in self.value_places[value] if p is not None]

    def size(self, place: int) -> int:
        return self.system.sizes[place]

    def loop(self, size: int) -> int:
        return self.system.add_place(size)

    def tie(self, terms: list[tuple[int, int]]) -> None:
        self.system.tie(terms)

    def equal(self, a: int, b: int) -> None:
        self.system.equal(a, b)

    def keep(self, op: ir.Operation, places: list[int], why: str) -> None:
        for place in places:
            self.system.fix(place)
        held = sum(1 for p in places if self.system.sizes[p] > 1)
        if held:
            label = f"{op.name} ({why})"
            self.kept[label] = self.kept.get(label, 0) + held

    def fixup(self, fixup: Fixup) -> None:
        self.fixups.append(fixup)

    def keep_op(self, op: ir.Operation, why: str) -> None:
        places = [p for v in [*op.operands, *op.results] if v in self.value_places for p in self.value_places[v] if p is not None]
        self.keep(op, places, why)

    def targets(self) -> list[Target]:
        """Each size several free sizes share, as one target, largest first; then every free size
        above 1 alone, largest first (as the ONNX pass orders its dimensions)."""
        free = [
            (var, self.system.sizes[var])
            for var in self.system.free()
            if var in self.names and self.system.sizes[var] > 1 and self.system.only_shrinks([var])
        ]
        singles = [Target(self.names[var], size, (var,)) for var, size in free]
        by_size: dict[int, list[int]] = {}
        for var, size in free:
            by_size.setdefault(size, []).append(var)
        groups = [
            Target(f"size {size} at {self.names[vs[0]]} and {len(vs) - 1} more", size, tuple(vs))
            for size, vs in sorted(by_size.items(), reverse=True)
            if len(vs) > 1
        ]
        return groups + sorted(singles, key=lambda t: -t.size)


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    yield op
    yield from irx.walk_ops(op)


def _function_name(op: ir.Operation) -> str:
    return irx.symbol_name(op) or op.name


def analyse(module: ir.Module) -> Analysis:
    """Places, ties and fix-ups of a module (its named linalg ops are left as they were)."""
    analysis = Analysis()
    ops = list(_walk(module.operation))
    if any(op.name.startswith("torch.") for op in ops):
        analysis.applicable = False  # torch-onnx IR shrinks on its lifted ONNX graph instead
        return analysis
    _register_values(analysis, module, ops)
    called = irx.called_symbols(module)
    first_return: dict[ir.Operation, list[ir.Value]] = {}
    for op in ops:
        if op.name in irx.FUNCTION_OPS:
            if _function_name(op) in called:
                _keep_function(analysis, op, "called by another function")
            continue
        _keep_region_arguments(analysis, op)
        if op.name in _RETURN_OPS:
            _tie_returns(analysis, op, first_return)
            continue
        values = [v for v in [*op.operands, *op.results] if v in analysis.value_places]
        if not values:
            continue
        if op.name in _CALL_OPS:
            analysis.keep_op(op, "a call")
        elif any(None in analysis.value_places[v] for v in values):
            analysis.keep_op(op, "dynamic dims")
        else:
            rule = rule_for(op)
            if rule is None:
                analysis.keep_op(op, "no shape rule")
            elif not rule(op, analysis):
                analysis.keep_op(op, "its shape rule does not apply")
    for place, size in enumerate(analysis.system.sizes):
        if size < 1:
            analysis.system.fix(place)  # a zero-sized dim of the original stays what it is
    return analysis


def _register_values(analysis: Analysis, module: ir.Module, ops: list[ir.Operation]) -> None:
    functions = [op for op in ops if op.name in irx.FUNCTION_OPS]
    state = ir.AsmState(module.operation)
    for op in ops:
        scope = _enclosing_function(op) if len(functions) > 1 else None
        suffix = f" in @{_function_name(scope)}" if scope is not None else ""
        values = [arg for region in op.regions for block in region.blocks for arg in block.arguments]
        for value in [*values, *op.results]:
            shape = static_shape(value.type)
            if shape is None:
                continue
            places: list[int | None] = []
            for dim, size in enumerate(shape):
                if size < 0:
                    places.append(None)
                    continue
                place = analysis.system.add_place(size)
                analysis.names[place] = f"{value.get_name(state)}[{dim}]{suffix}"
                places.append(place)
            analysis.value_places[value] = places


def _enclosing_function(op: ir.Operation) -> ir.Operation | None:
    current = op if op.name in irx.FUNCTION_OPS else None
    parent = op.parent
    while current is None and parent is not None:
        if parent.name in irx.FUNCTION_OPS:
            current = parent
        parent = parent.parent
    return current


def _keep_function(analysis: Analysis, func: ir.Operation, why: str) -> None:
    for block in func.regions[0].blocks:
        for arg in block.arguments:
            analysis.keep(func, analysis.dims(arg) if arg in analysis.value_places else [], why)
    for op in irx.walk_ops(func):
        if op.name in _RETURN_OPS:
            analysis.keep_op(op, why)


def _keep_region_arguments(analysis: Analysis, op: ir.Operation) -> None:
    """Tensor block arguments of regions that are not function bodies (loop-carried values)."""
    if op.name in irx.FUNCTION_OPS:
        return
    for region in op.regions:
        for block in region.blocks:
            for arg in block.arguments:
                if arg in analysis.value_places:
                    analysis.keep(op, [p for p in analysis.value_places[arg] if p is not None], "tensor region arguments")


def _tie_returns(analysis: Analysis, op: ir.Operation, first_return: dict[ir.Operation, list[ir.Value]]) -> None:
    """Every return of a function returns the same types (the function type follows them)."""
    func = _enclosing_function(op)
    operands = list(op.operands)
    if func is None or func not in first_return:
        first_return[func] = operands
        return
    for a, b in zip(first_return[func], operands):
        if a in analysis.value_places and b in analysis.value_places:
            for p, q in zip(analysis.value_places[a], analysis.value_places[b]):
                if p is not None and q is not None:
                    analysis.equal(p, q)


def targets(module: ir.Module) -> list[Target]:
    return analyse(module).targets()


def resize(module: ir.Module, key: str, size: int) -> bool:
    """Sets target `key` to `size` in place: every tied type and attribute follows.

    False (module unspecified) when the target is gone, nothing changes, a dim would reach 0
    or grow (a shrink of one class must not grow another), or the result does not verify.
    """
    analysis = analyse(module)
    target = next((t for t in analysis.targets() if t.key == key), None)
    if target is None or size >= target.size or size < 1:
        return False
    before = analysis.system.sizes
    after = analysis.system.evaluate({var: size for var in target.variables})
    degenerate_before = degenerate.mlir_sites(module)
    if any(new < 1 or new > old for old, new in zip(before, after) if old >= 1):
        return False
    changed = False
    for value, places in analysis.value_places.items():
        if any(p is not None and after[p] != before[p] for p in places):
            value.set_type(with_shape(value.type, [after[p] if p is not None else -1 for p in places]))
            changed = True
    if not changed:
        return False
    for fixup in analysis.fixups:
        fixup(lambda value: static_shape(value.type) or [])
    _sync_function_types(module)
    return irx.verifies(module) and degenerate.mlir_sites(module) <= degenerate_before


def _sync_function_types(module: ir.Module) -> None:
    for func in _walk(module.operation):
        if func.name not in irx.FUNCTION_OPS:
            continue
        block = irx.entry_block(func)
        if block is None:
            continue
        returns = [op for op in block.operations if op.name in _RETURN_OPS]
        fn_type = irx.function_type(func)
        results = [v.type for v in returns[0].operands] if returns else list(fn_type.results)
        inputs = [arg.type for arg in block.arguments]
        if inputs != list(fn_type.inputs) or results != list(fn_type.results):
            irx.set_function_type(func, inputs, results)


def shape_summary(module: ir.Module) -> str:
    """'1x64x55x55, 16x64x1x1': function arguments, tensor constants and binding subspans."""
    shapes = []
    for op in _walk(module.operation):
        if op.name in irx.FUNCTION_OPS and irx.entry_block(op) is not None:
            shapes += [static_shape(arg.type) for arg in irx.entry_block(op).arguments]
        elif op.name in ("arith.constant", "hal.interface.binding.subspan") and op.results and shaped(op.results[0]):
            shapes.append(static_shape(op.results[0].type))
    return ", ".join("x".join("?" if d < 0 else str(d) for d in s) for s in shapes if s)


def summaries(text: str) -> tuple[str, str]:
    """(shape summary, kept summary) of linalg-level IR text; empty for IR the pass does not edit."""
    ctx = irx.new_context()
    try:
        module = irx.parse(text, ctx)
    except irx.ParseError:
        return "", ""
    with ctx, ir.Location.unknown(ctx):
        analysis = analyse(module)
        if not analysis.applicable:
            return "", ""
        return shape_summary(module), _kept_text(analysis)


def largest_tensor(module: ir.Module) -> int:
    """Elements of the largest static tensor any op result or argument holds."""
    largest = 0
    for op in _walk(module.operation):
        values = [arg for region in op.regions for block in region.blocks for arg in block.arguments]
        for value in [*values, *op.results]:
            shape = static_shape(value.type)
            if shape and all(d >= 0 for d in shape):
                largest = max(largest, elements(shape))
    return largest


def _kept_text(analysis: Analysis) -> str:
    """'tensor.reshape (no shape rule): 3 dims' for what kept dims above 1 from shrinking."""
    return ", ".join(f"{label}: {count} dim{'s' if count > 1 else ''}" for label, count in analysis.kept.items())
