"""Lift a torch-dialect function made of `torch.operator "onnx.*"` ops back to an ONNX graph.

This is what `iree-import-onnx` emits and what users paste into issues. Two users: shape
shrinking of such IR (reducer/shapes/shape_search.py), which must recompute every dependent type
soundly and lets ONNX shape inference do it (lift, shrink there, import again); and the
`reference-mismatch` oracle on torch-onnx IR, which evaluates the lifted graph with
`onnx.reference` while IREE runs the IR as it is. Both need the constants' data: the imported
weights (`dense_resource` blobs, oracles/mlir/resources.py) and `torch.vtensor.literal`s.

The graph's inputs are the function's arguments in order, its outputs what it returns; every op
result's tensor name is kept by its position in the entry block (op index, result number), so
a value of the IR can be looked up in the lifted graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from iree.compiler import ir
from onnx import TensorProto, helper, numpy_helper

from oracles.mlir import ir as irx
from oracles.mlir.resources import resource_blobs, resource_bytes, resource_name
from oracles.mlir.types import read_tensor_type

ELEMENT_TYPES = {
    "f32": TensorProto.FLOAT,
    "f16": TensorProto.FLOAT16,
    "bf16": TensorProto.BFLOAT16,
    "f64": TensorProto.DOUBLE,
    "si8": TensorProto.INT8,
    "ui8": TensorProto.UINT8,
    "si16": TensorProto.INT16,
    "ui16": TensorProto.UINT16,
    "si32": TensorProto.INT32,
    "ui32": TensorProto.UINT32,
    "si64": TensorProto.INT64,
    "ui64": TensorProto.UINT64,
    "i1": TensorProto.BOOL,
}
DEFAULT_OPSET = 21
_ATTR_PREFIX = "torch.onnx."
_LIFTED_OPS = ("torch.constant.none", "torch.vtensor.literal", "torch.operator", "func.return")
Position = tuple[int, int]  # (op index in the entry block, result number)


class NotLiftable(ValueError):
    """The IR is not a pure torch-onnx function; the message says which op or type stops it."""


@dataclass(frozen=True)
class LiftedProgram:
    model: onnx.ModelProto
    names: dict[Position, str]  # each op result's tensor in the graph


def vtensor_type(spelled: str, builtin_ok: bool = False) -> tuple[list[int], int]:
    """(dims, ONNX element type) of a static torch vtensor type (or builtin tensor, where `builtin_ok`:
    the type of a literal's data)."""
    tensor = read_tensor_type(spelled)
    if tensor is None or tensor.dims is None or tensor.element not in ELEMENT_TYPES or not (tensor.torch or builtin_ok):
        raise NotLiftable(f"type {spelled} is not a static torch vtensor")
    if not tensor.static:
        raise NotLiftable(f"type {spelled} has a dynamic dimension")
    return [int(d) for d in tensor.dims], ELEMENT_TYPES[tensor.element]


def value_type(spelled: str, dynamic_name: str) -> tuple[list[int | str | None], int]:
    """(dims, ONNX element type) of a function argument or result: a dynamic dim (`?`) becomes the
    `dim_param` `{dynamic_name}.{axis}` (an argument's: `arg0.1`, as `reduce --dim` names it), or
    None (unknown) where `dynamic_name` is empty; shape inference ties what it names."""
    tensor = read_tensor_type(spelled)
    if tensor is None or tensor.dims is None or tensor.element not in ELEMENT_TYPES or not tensor.torch:
        raise NotLiftable(f"type {spelled} is not a ranked torch vtensor")
    dims = [int(d) if d is not None else (f"{dynamic_name}.{axis}" if dynamic_name else None) for axis, d in enumerate(tensor.dims)]
    return dims, ELEMENT_TYPES[tensor.element]


class _Constants:
    """Reads constant data: dense elements through the bindings, blobs from the module's resources.
    Data it cannot read is an error where `exact`, else zeros (a shape reduction needs only types)."""

    def __init__(self, text: str, exact: bool) -> None:
        self._blobs = resource_blobs(text) if irx.holds_resources(text) else {}
        self._exact = exact

    def tensor(self, attr: ir.Attribute, name: str) -> TensorProto:
        dims, elem = vtensor_type(str(attr.type), builtin_ok=True)
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
        array = self._array(attr, dtype, dims)
        if array is None:
            if self._exact:
                blob = resource_name(attr)
                what = f"dense_resource<{blob}> has no data in the file (elided?)" if blob else f"{str(attr)[:60]} cannot be read"
                raise NotLiftable(f"constant {name}: {what}")
            array = np.zeros(dims, dtype=dtype)
        return numpy_helper.from_array(np.ascontiguousarray(array.reshape(dims)), name)

    def _array(self, attr: ir.Attribute, dtype: np.dtype, dims: list[int]) -> np.ndarray | None:
        count = int(np.prod(dims, dtype=np.int64))
        if resource_name(attr) is not None:
            raw = resource_bytes(attr, self._blobs)
            if raw is None or len(raw) != count * dtype.itemsize:
                return None
            return np.frombuffer(raw, dtype=dtype)
        try:
            dense = ir.DenseElementsAttr(attr)
        except (ValueError, TypeError):
            return None
        try:
            array = np.array(dense)
        except (ValueError, TypeError, RuntimeError):
            array = None
        if array is None or array.dtype == object:  # bf16: read each element (a Python float holds it exactly)
            try:
                array = np.array([float(ir.FloatAttr(dense[i]).value) for i in range(len(dense))])
            except (ValueError, TypeError, RuntimeError):
                return None
        array = np.broadcast_to(array, dims) if array.size == 1 else array  # a splat
        return array.astype(dtype) if array.size == count else None


def _attribute(name: str, attr: ir.Attribute, constants: _Constants) -> onnx.AttributeProto:
    if isinstance(attr, ir.IntegerAttr):
        return helper.make_attribute(name, attr.value)
    if isinstance(attr, ir.FloatAttr):
        return helper.make_attribute(name, float(attr.value))
    if isinstance(attr, ir.StringAttr):
        return helper.make_attribute(name, attr.value)
    if isinstance(attr, ir.ArrayAttr):
        items = list(attr)
        if all(isinstance(x, ir.IntegerAttr) for x in items):
            return helper.make_attribute(name, [x.value for x in items], attr_type=onnx.AttributeProto.INTS)
        if all(isinstance(x, ir.FloatAttr) for x in items):
            return helper.make_attribute(name, [float(x.value) for x in items], attr_type=onnx.AttributeProto.FLOATS)
        if all(isinstance(x, ir.StringAttr) for x in items):
            return helper.make_attribute(name, [x.value for x in items], attr_type=onnx.AttributeProto.STRINGS)
    if str(attr.type).startswith("tensor<"):
        return helper.make_attribute(name, constants.tensor(attr, name))
    raise NotLiftable(f"attribute {name} = {attr} has no ONNX equivalent here")


def lift(text: str, ctx: ir.Context | None = None, exact: bool = False) -> onnx.ModelProto:
    """The ONNX model of the module's single function; NotLiftable if it is not pure torch-onnx.
    Constant data that cannot be read (an elided blob) is zeros unless `exact`."""
    return lift_program(text, ctx, exact).model


def lift_program(text: str, ctx: ir.Context | None = None, exact: bool = True) -> LiftedProgram:
    """`lift`, with the tensor name of each op result; by default every constant's data read exactly."""
    ctx = ctx or irx.new_context()
    module = irx.parse(text, ctx)
    funcs = irx.functions(module)
    if len(funcs) != 1 or len(list(module.body.operations)) != 1:
        stray = next((op.operation.name for op in module.body.operations if op.operation.name != "func.func"), None)
        raise NotLiftable(f"op {stray} is outside the function" if stray else "the module holds several functions")
    func = funcs[0]
    block = irx.entry_block(func)
    if block is None:
        raise NotLiftable(f"@{irx.symbol_name(func)} has no body")
    ops = [op.operation for op in block.operations]
    stranger = next((op for op in ops if op.name not in _LIFTED_OPS), None)
    if stranger is not None:
        raise NotLiftable(f"op {stranger.name} is not a torch.operator \"onnx.*\"")
    constants = _Constants(text, exact)
    names: dict[int, str] = {}  # by value identity (a Value's hash is its pointer)
    positions: dict[Position, str] = {}

    def name_of(value: ir.Value) -> str:
        return names.setdefault(hash(value), f"t{len(names)}")

    inputs = []
    for i, arg in enumerate(block.arguments):
        dims, elem = value_type(str(arg.type), f"arg{i}")
        inputs.append(helper.make_tensor_value_info(name_of(arg), elem, dims))
    nodes, outputs = [], []
    for k, op in enumerate(ops):
        if op.name == "torch.constant.none":
            names[hash(op.results[0])] = ""  # an omitted optional input
        elif op.name == "torch.vtensor.literal":
            out = name_of(op.results[0])
            nodes.append(helper.make_node("Constant", [], [out], value=constants.tensor(op.attributes["value"], out)))
        elif op.name == "torch.operator":
            op_type = irx.onnx_op_type(op)
            if op_type is None:
                raise NotLiftable(f"torch.operator {ir.StringAttr(op.attributes['name']).value!r} is not an ONNX op")
            attrs = [
                _attribute(attr_name[len(_ATTR_PREFIX) :], op.attributes[attr_name], constants)
                for attr_name in op.attributes
                if attr_name.startswith(_ATTR_PREFIX)
            ]
            node = helper.make_node(op_type, [name_of(v) for v in op.operands], [name_of(r) for r in op.results])
            node.attribute.extend(attrs)
            nodes.append(node)
        else:  # func.return
            for value in op.operands:
                dims, elem = value_type(str(value.type), "")
                outputs.append(helper.make_tensor_value_info(name_of(value), elem, dims))
        positions |= {(k, r): names[hash(result)] for r, result in enumerate(op.results) if names.get(hash(result))}
    opset = DEFAULT_OPSET
    if irx.ONNX_OPSET in func.attributes:
        opset = ir.IntegerAttr(func.attributes[irx.ONNX_OPSET]).value
    graph = helper.make_graph(nodes, irx.symbol_name(func) or "main", inputs, outputs)
    return LiftedProgram(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), positions)
