"""How each op ties the dimensions of its tensors: the shape rules of the linalg shape pass.

A rule reads one op and states its ties on a `ShapeGraph` (dimensions that must stay equal, or
in a linear relation such as a convolution's input = stride x output + dilation x kernel +
slack), and registers the attribute fix-ups a resize needs (a slice's static sizes, a reshape's
output shape, a constant's data). An op with tensors and no rule keeps its dimensions: the graph
fixes them and remembers the op, so the summary can name what stopped the pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from iree.compiler import ir

from reducer.shapes.tensor_types import static_shape

_DYNAMIC = ir.ShapedType.get_dynamic_size()
_MEMOIZED_MAPS = "linalg.memoized_indexing_maps"  # added by get_indexing_maps to named ops

ShapeOf = Callable[[ir.Value], list[int]]  # a value's shape after the resize
Fixup = Callable[[ShapeOf], None]


class ShapeGraph(Protocol):
    """What a rule states ties on (`reducer.shapes.mlir_shapes` implements it)."""

    def dims(self, value: ir.Value) -> list[int]:
        """The places of a value's dimensions (static dims only are rules' business)."""

    def size(self, place: int) -> int:
        """A place's current size."""

    def loop(self, size: int) -> int:
        """A new place for an iteration dimension, not in the IR."""

    def tie(self, terms: list[tuple[int, int]]) -> None: ...

    def equal(self, a: int, b: int) -> None: ...

    def keep(self, op: ir.Operation, places: list[int], why: str) -> None:
        """These dimensions keep their sizes because of `op`, which the summary names."""

    def fixup(self, fixup: Fixup) -> None: ...


def shaped(value: ir.Value) -> bool:
    return static_shape(value.type) is not None


def _static_ints(op: ir.Operation, name: str) -> list[int] | None:
    if name not in op.attributes:
        return None
    values = list(op.attributes[name])
    return None if _DYNAMIC in values else values


def _tie_positionally(graph: ShapeGraph, values: list[ir.Value]) -> bool:
    places = [graph.dims(v) for v in values]
    if len({len(p) for p in places}) != 1:
        return False
    for others in places[1:]:
        for a, b in zip(places[0], others):
            graph.equal(a, b)
    return True


def elementwise(op: ir.Operation, graph: ShapeGraph) -> bool:
    """Arith / math ops on tensors, casts, softmax: every tensor has the same shape."""
    return _tie_positionally(graph, [v for v in [*op.results, *op.operands] if shaped(v)])


def producer(op: ir.Operation, graph: ShapeGraph) -> bool:
    """tensor.empty, tensor.splat, a binding subspan: the result's dims are free."""
    return True


def constant(op: ir.Operation, graph: ShapeGraph) -> bool:
    """A tensor constant: free dims; a resized one becomes a splat of its first element."""
    attr = op.attributes["value"]
    element = ir.ShapedType(op.results[0].type).element_type
    if not isinstance(element, (ir.IntegerType, ir.IndexType, ir.FloatType)):
        return False
    if not isinstance(attr, ir.DenseElementsAttr) and not _is_resource(attr):
        return False
    result = op.results[0]

    def resplat(shape_of: ShapeOf) -> None:
        if op.attributes["value"].type == result.type:
            return
        op.attributes["value"] = ir.DenseElementsAttr.get_splat(ir.ShapedType(result.type), _first_element(attr, element))

    graph.fixup(resplat)
    return True


def _is_resource(attr: ir.Attribute) -> bool:
    try:
        return ir.DenseResourceElementsAttr(attr) is not None
    except ValueError:
        return False


def _first_element(attr: ir.Attribute, element: ir.Type) -> ir.Attribute:
    """The splat value a resized constant keeps: its first element (zero for resource data)."""
    if isinstance(attr, ir.DenseElementsAttr):
        if attr.is_splat:
            return attr.get_splat_value()
        first = attr[0] if isinstance(attr, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)) else 0
    else:
        first = 0
    if isinstance(element, ir.FloatType):
        return ir.FloatAttr.get(element, float(first))
    return ir.IntegerAttr.get(element, int(first))


def _linear(expr: ir.AffineExpr) -> tuple[dict[int, int], int] | None:
    """An affine expression of loop dims as (coefficient per dim, constant), if it is linear."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position: 1}, 0
    if isinstance(expr, ir.AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, ir.AffineAddExpr):
        lhs, rhs = _linear(expr.lhs), _linear(expr.rhs)
        if lhs is None or rhs is None:
            return None
        coefs = dict(lhs[0])
        for dim, c in rhs[0].items():
            coefs[dim] = coefs.get(dim, 0) + c
        return coefs, lhs[1] + rhs[1]
    if isinstance(expr, ir.AffineMulExpr):
        lhs, rhs = _linear(expr.lhs), _linear(expr.rhs)
        if lhs is None or rhs is None:
            return None
        if not lhs[0]:
            lhs, rhs = rhs, lhs
        if rhs[0]:
            return None  # a product of dims
        return {dim: c * rhs[1] for dim, c in lhs[0].items()}, lhs[1] * rhs[1]
    return None  # floordiv, mod, symbols


def indexing_maps(op: ir.Operation) -> list[ir.AffineMap] | None:
    """A structured linalg op's indexing maps (None for other ops), leaving the op as it was."""
    # Imported late: the dialect's module loads linalg's op DSL (a third of a second), which
    # every `reduce` command paid at start-up through the pass table, used or not.
    from iree.compiler.dialects import linalg

    had_memo = _MEMOIZED_MAPS in op.attributes
    try:
        maps = linalg.get_indexing_maps(op)
    except (TypeError, ValueError, RuntimeError):
        return None
    finally:
        if not had_memo and _MEMOIZED_MAPS in op.attributes:
            del op.attributes[_MEMOIZED_MAPS]
    return None if maps is None else [ir.AffineMapAttr(m).value for m in maps]


def structured(op: ir.Operation, graph: ShapeGraph) -> bool:
    """Named linalg ops and linalg.generic: the indexing maps tie operand dims to loop dims.

    A dim indexed by one loop dim equals that loop's range; one indexed by a positive linear
    combination (a convolution's input: stride x output + dilation x kernel) keeps the slack the
    verifier allows above it, so input, kernel, stride, dilation and output stay consistent.
    """
    maps = indexing_maps(op)
    operands = list(op.operands)
    if maps is None or len(maps) != len(operands):
        return False
    forms = []
    for value, amap in zip(operands, maps):
        if not shaped(value):
            forms.append(None)
            continue
        linear = [_linear(e) for e in amap.results]
        forms.append(linear)
    ranges: dict[int, int] = {}
    for value, linear in zip(operands, forms):
        if linear is None:
            continue
        places = graph.dims(value)
        for dim, form in enumerate(linear):
            if form is not None and form[1] == 0 and list(form[0].values()) == [1]:
                ranges.setdefault(next(iter(form[0])), places[dim])
    n_loops = maps[0].n_dims if maps else 0
    if len(ranges) != n_loops:
        return False
    loops = {j: graph.loop(graph.size(place)) for j, place in ranges.items()}
    for value, linear in zip(operands, forms):
        if linear is None:
            continue
        for place, form in zip(graph.dims(value), linear):
            if form is None or not form[0] or any(c <= 0 for c in form[0].values()):
                graph.keep(op, [place], "an indexing map that is not a positive linear form")
            elif form[1] == 0 and list(form[0].values()) == [1]:
                graph.equal(loops[next(iter(form[0]))], place)
            else:
                graph.tie([(place, 1), *[(loops[j], -c) for j, c in form[0].items()]])
    outs = operands[len(operands) - len(op.results):]
    for result, init in zip(op.results, outs):
        if not _tie_positionally(graph, [result, init]):
            return False
    return True


def pad(op: ir.Operation, graph: ShapeGraph) -> bool:
    """tensor.pad with static amounts: result = source + low + high."""
    if _static_ints(op, "static_low") is None or _static_ints(op, "static_high") is None:
        return False
    for src, res in zip(graph.dims(op.operands[0]), graph.dims(op.results[0])):
        graph.tie([(res, 1), (src, -1)])
    return True


def _kept_dims(sizes: list[int], shape: list[int]) -> list[tuple[int, int]] | None:
    """(full dim, slice dim) pairs of a possibly rank-reducing slice: dropped dims are unit sizes."""
    pairs, j = [], 0
    for i, size in enumerate(sizes):
        if j < len(shape) and size == shape[j]:
            pairs.append((i, j))
            j += 1
        elif size != 1:
            return None
    return pairs if j == len(shape) else None


def _slice(op: ir.Operation, graph: ShapeGraph, full: ir.Value, part: ir.Value) -> bool:
    """A static slice of `full` shaped like `part`: full dim - stride x part dim stays the same."""
    sizes, strides = _static_ints(op, "static_sizes"), _static_ints(op, "static_strides")
    if sizes is None or strides is None or _static_ints(op, "static_offsets") is None:
        return False
    kept = _kept_dims(sizes, [graph.size(p) for p in graph.dims(part)])
    if kept is None or any(s <= 0 for s in strides):
        return False
    full_dims, part_dims = graph.dims(full), graph.dims(part)
    for i, j in kept:
        graph.tie([(part_dims[j], -strides[i]), (full_dims[i], 1)])  # the slice is derived where it can be

    def resize_sizes(shape_of: ShapeOf) -> None:
        new = list(sizes)
        part_shape = shape_of(part)
        for i, j in kept:
            new[i] = part_shape[j]
        op.attributes["static_sizes"] = ir.DenseI64ArrayAttr.get(new)

    graph.fixup(resize_sizes)
    return True


def extract(op: ir.Operation, graph: ShapeGraph) -> bool:
    """tensor.extract_slice and a dispatch tensor load: the result is a slice of the source."""
    return _slice(op, graph, op.operands[0], op.results[0])


def insert(op: ir.Operation, graph: ShapeGraph) -> bool:
    """tensor.insert_slice and a dispatch tensor store: the source is a slice of the destination."""
    if not _slice(op, graph, op.operands[1], op.operands[0]):
        return False
    return not op.results or _tie_positionally(graph, [op.results[0], op.operands[1]])


def _groups(op: ir.Operation) -> list[list[int]]:
    return [[ir.IntegerAttr(i).value for i in group] for group in op.attributes["reassociation"]]


def _reshape(graph: ShapeGraph, op: ir.Operation, whole: ir.Value, split: ir.Value) -> bool:
    """One dim of `whole` per group of `split` dims, the product of the group.

    A product of sizes is no linear tie unless one factor moves: the largest non-unit dim of
    the group does (the channels of a channel shuffle, of a flatten), the others keep their
    sizes, and the whole dim is that dim times their product.
    """
    whole_dims, split_dims = graph.dims(whole), graph.dims(split)
    for dim, group in enumerate(_groups(op)):
        non_unit = [k for k in group if graph.size(split_dims[k]) != 1]
        if not non_unit:
            continue
        moving = max(non_unit, key=lambda k: graph.size(split_dims[k]))  # the first of the largest
        others = [split_dims[k] for k in non_unit if k != moving]
        factor = 1
        for place in others:
            factor *= graph.size(place)
        if others:
            graph.keep(op, others, "a product of several non-unit dims")
        if factor == 1:
            pair = (whole_dims[dim], split_dims[moving])
            graph.equal(*(pair if whole == op.results[0] else reversed(pair)))  # the result is derived
        else:
            graph.tie([(whole_dims[dim], 1), (split_dims[moving], -factor)])
    return True


def expand_shape(op: ir.Operation, graph: ShapeGraph) -> bool:
    if _static_ints(op, "static_output_shape") is None:
        return False
    result = op.results[0]

    def output_shape(shape_of: ShapeOf) -> None:
        op.attributes["static_output_shape"] = ir.DenseI64ArrayAttr.get(shape_of(result))

    graph.fixup(output_shape)
    return _reshape(graph, op, op.operands[0], result)


def collapse_shape(op: ir.Operation, graph: ShapeGraph) -> bool:
    return _reshape(graph, op, op.results[0], op.operands[0])


def concat(op: ir.Operation, graph: ShapeGraph) -> bool:
    """tensor.concat: the concatenated dim is the sum of the inputs' dims, the others are equal."""
    axis = ir.IntegerAttr(op.attributes["dim"]).value
    result = graph.dims(op.results[0])
    inputs = [graph.dims(v) for v in op.operands]
    if any(len(dims) != len(result) for dims in inputs):
        return False
    for d, place in enumerate(result):
        if d == axis:
            graph.tie([(place, 1), *[(dims[d], -1) for dims in inputs]])
        else:
            for dims in inputs:
                graph.equal(place, dims[d])
    return True


_ELEMENTWISE_DIALECTS = ("arith.", "math.")
_SAME_SHAPE = {"tensor.cast", "tensor.bitcast", "linalg.softmax", "iree_tensor_ext.bitcast"}
_RULES: dict[str, Callable[[ir.Operation, ShapeGraph], bool]] = {
    "arith.constant": constant,
    "tensor.empty": producer,
    "tensor.splat": producer,
    "hal.interface.binding.subspan": producer,
    "tensor.pad": pad,
    "tensor.extract_slice": extract,
    "iree_tensor_ext.dispatch.tensor.load": extract,
    "flow.dispatch.tensor.load": extract,
    "tensor.insert_slice": insert,
    "iree_tensor_ext.dispatch.tensor.store": insert,
    "flow.dispatch.tensor.store": insert,
    "tensor.expand_shape": expand_shape,
    "tensor.collapse_shape": collapse_shape,
    "tensor.concat": concat,
}


def rule_for(op: ir.Operation) -> Callable[[ir.Operation, ShapeGraph], bool] | None:
    """The shape rule of an op, or None when the pass knows none (its dims are kept)."""
    name = op.name
    if name in _RULES:
        return _RULES[name]
    if name in _SAME_SHAPE or name.startswith(_ELEMENTWISE_DIALECTS):
        return elementwise
    if name.startswith("linalg."):
        return structured
    return None
