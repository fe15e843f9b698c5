"""Shrink dimensions of torch-onnx IR on its lifted ONNX graph, then import it again."""

from __future__ import annotations

import onnx
from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.graphs import onnx_model
from reducer.passes.support.replacing import is_constant_like
from reducer.proposal import Proposal
from reducer.search.protocol import Convert
from reducer.shapes.shape_search import ShrinkShapes, lifted_model

# Function attributes every function has; the others (the importer's `torch.onnx_meta.*`) are
# kept only where the candidate still has them.
_FUNCTION_OWN = ("function_type", "sym_name", "sym_visibility", "arg_attrs", "res_attrs")


class ShrinkTorchOnnxShapes(ShrinkShapes):

    def model(self, current: Proposal) -> onnx.ModelProto | None:
        if current.candidate.binary is not None or '"onnx.' not in current.candidate.text:
            return None
        lifted = lifted_model(current.candidate.text)
        if lifted is None:
            return None
        copy = onnx.ModelProto()
        copy.CopyFrom(lifted)
        return copy

    def emit(self, current: Proposal, model: onnx.ModelProto, ctx: ir.Context, convert: Convert) -> Proposal | None:
        text = convert(onnx_model.serialise(model))  # under the oracle's limits, counted by the problem
        if text is None:
            return None
        if irx.holds_resources(text):  # the importer writes weights as blobs: named by this text alone
            ctx = irx.new_context(lazy=True)
        try:
            module = irx.parse(text, ctx)
            before = irx.parse(current.candidate.text, ctx)
        except irx.ParseError:
            return None
        with ctx, ir.Location.unknown(ctx):
            _as_plain_as(module, before)
        return Proposal(current.candidate.with_text(irx.to_text(module)), irx.count_ops(module))


def _as_plain_as(module: ir.Module, before: ir.Module) -> None:
    """Gives the imported `module` back what the passes took from `before` (the candidate it was
    resized from): the importer writes every function attribute, a `torch.constant.none` and each
    constant as a blob, where `before` may have lost the attributes and hold zero splats. Without
    this every resize would undo the polish, and a whole round of the passes redo it."""
    functions, old_functions = irx.functions(module), irx.functions(before)
    if len(functions) != 1 or len(old_functions) != 1:
        return
    func, old = functions[0], old_functions[0]
    for name in list(func.attributes):
        if name not in _FUNCTION_OWN and name not in old.attributes:
            del func.attributes[name]
    block, old_block = irx.entry_block(func), irx.entry_block(old)
    if block is None or old_block is None:
        return
    for op in [op.operation for op in block.operations]:
        if op.name == "torch.constant.none" and not irx.has_uses(op):
            op.erase()
    constants, old_constants = _valued_constants(block), _valued_constants(old_block)
    if len(constants) == len(old_constants):  # the lift keeps the order of ops
        for op, old_op in zip(constants, old_constants, strict=True):
            _splat_like(op, old_op)


def _valued_constants(block: ir.Block) -> list[ir.Operation]:
    return [op.operation for op in block.operations if is_constant_like(op.operation) and _value_name(op.operation)]


def _value_name(op: ir.Operation) -> str | None:
    for name in ("torch.onnx.value", "value"):
        if name in op.attributes:
            return name
    return None


def _splat_like(op: ir.Operation, old_op: ir.Operation) -> None:
    """`op`'s value as a splat where `old_op`'s was one (the resize only sliced it: all one value)."""
    name, old_name = _value_name(op), _value_name(old_op)
    if name is None or old_name is None:
        return
    old_value = old_op.attributes[old_name]
    if not isinstance(old_value, ir.DenseElementsAttr) or not old_value.is_splat:
        return
    shaped = ir.ShapedType(op.attributes[name].type)
    if shaped.element_type != ir.ShapedType(old_value.type).element_type:
        return
    op.attributes[name] = ir.DenseElementsAttr.get_splat(shaped, old_value.get_splat_value())
