"""Lift a torch-dialect function made of `torch.operator "onnx.*"` ops back to an ONNX graph.

This is what `iree-import-onnx` emits and what users paste into issues. Shapes of such IR can only
shrink soundly if every dependent type is recomputed; ONNX shape inference already does that,
so shape shrinking lifts the function to ONNX, shrinks there, and imports the result again.
"""

from __future__ import annotations

import numpy as np
import onnx
from iree.compiler import ir
from onnx import TensorProto, helper

from oracles.mlir import ir as irx
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


class NotLiftable(ValueError):
    """The IR is not a pure torch-onnx function; the message says which op or type stops it."""


def vtensor_type(spelled: str, builtin_ok: bool = False) -> tuple[list[int], int]:
    """(dims, ONNX element type) of a static torch vtensor type (or builtin tensor, where `builtin_ok`:
    the type of a literal's data)."""
    tensor = read_tensor_type(spelled)
    if tensor is None or tensor.dims is None or tensor.element not in ELEMENT_TYPES or not (tensor.torch or builtin_ok):
        raise NotLiftable(f"type {spelled} is not a static torch vtensor")
    if not tensor.static:
        raise NotLiftable(f"type {spelled} has a dynamic dimension")
    return [int(d) for d in tensor.dims], ELEMENT_TYPES[tensor.element]


def _tensor(attr: ir.Attribute, name: str) -> TensorProto:
    """An ONNX tensor of the attribute's type: its data where numpy can read it, else zeros."""
    dims, elem = vtensor_type(str(attr.type), builtin_ok=True)
    try:
        array = np.array(ir.DenseElementsAttr(attr)).reshape(dims)
    except (ValueError, TypeError, RuntimeError):
        array = None  # dense_resource blobs, bf16: the data does not matter to a shape reduction
    if array is None:
        array = np.zeros(dims, dtype=helper.tensor_dtype_to_np_dtype(elem))
    return helper.make_tensor(name, elem, dims, array.astype(helper.tensor_dtype_to_np_dtype(elem)).flatten().tolist())


def _attribute(name: str, attr: ir.Attribute) -> onnx.AttributeProto:
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
        return helper.make_attribute(name, _tensor(attr, name))
    raise NotLiftable(f"attribute {name} = {attr} has no ONNX equivalent here")


def lift(text: str, ctx: ir.Context | None = None) -> onnx.ModelProto:
    """The ONNX model of the module's single function; NotLiftable if it is not pure torch-onnx."""
    ctx = ctx or irx.new_context()
    module = irx.parse(text, ctx)
    funcs = irx.functions(module)
    if len(funcs) != 1 or len(list(module.body.operations)) != 1:
        raise NotLiftable("the module must hold exactly one function and nothing else")
    func = funcs[0]
    block = irx.entry_block(func)
    names: dict[str, str] = {}

    def name_of(value: ir.Value) -> str:
        key = value.get_name()
        if key not in names:
            names[key] = f"t{len(names)}"
        return names[key]

    inputs = []
    for arg in block.arguments:
        dims, elem = vtensor_type(str(arg.type))
        inputs.append(helper.make_tensor_value_info(name_of(arg), elem, dims))
    nodes, outputs = [], []
    for op in block.operations:
        op = op.operation
        if op.name == "torch.constant.none":
            names[op.results[0].get_name()] = ""  # an omitted optional input
        elif op.name == "torch.vtensor.literal":
            out = name_of(op.results[0])
            nodes.append(helper.make_node("Constant", [], [out], value=_tensor(op.attributes["value"], out)))
        elif op.name == "torch.operator":
            op_name = ir.StringAttr(op.attributes["name"]).value
            if not op_name.startswith("onnx."):
                raise NotLiftable(f"torch.operator {op_name!r} is not an ONNX op")
            attrs = [
                _attribute(attr_name[len(_ATTR_PREFIX) :], op.attributes[attr_name])
                for attr_name in op.attributes
                if attr_name.startswith(_ATTR_PREFIX)
            ]
            node = helper.make_node(op_name[len("onnx.") :], [name_of(v) for v in op.operands], [name_of(r) for r in op.results])
            node.attribute.extend(attrs)
            nodes.append(node)
        elif op.name == "func.return":
            for value in op.operands:
                dims, elem = vtensor_type(str(value.type))
                outputs.append(helper.make_tensor_value_info(name_of(value), elem, dims))
        else:
            raise NotLiftable(f"op {op.name} is not a torch.operator \"onnx.*\"")
    opset = DEFAULT_OPSET
    if "torch.onnx_meta.opset_version" in func.attributes:
        opset = ir.IntegerAttr(func.attributes["torch.onnx_meta.opset_version"]).value
    graph = helper.make_graph(nodes, irx.symbol_name(func) or "main", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
