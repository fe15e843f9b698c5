"""A PyTorch program imported to torch-dialect MLIR with the compiler wheel's FX importer.

`FxImporter.import_program` turns parameters and buffers into `torch.vtensor.literal`s (the
program is frozen) and leaves a buffer the program updates in place (a KV cache) to a hook;
`GlobalState` makes each such buffer a mutable `util.global` that the function loads and stores,
as an IREE deployment of the program keeps it: the stream schedule of the update is then the
one users see. Every op carries the name of the FX node it came from as its location, so a
compile error's line in the imported text names a node (`node_of_line`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from iree.compiler import ir
from iree.compiler.extras.fx_importer import FxImporter, FxImporterHooks
from torch.export import ExportedProgram

from oracles.candidate import CandidateRejected
from oracles.mlir import ir as irx
from oracles.mlir.locations import location_leaves
from oracles.torch.program import ArchiveError, nodes, one_line, quiet

FUNCTION = "main"  # the imported function's name


class NotImportable(ArchiveError, CandidateRejected):
    """Why the FX importer cannot import the program (a custom op, an op it does not know); one line.
    An edit's program the importer rejects is a rejected candidate (oracles/candidate.py)."""


class GlobalState(FxImporterHooks):
    """Each buffer the program updates in place becomes a mutable `util.global`, zero-initialised
    (its initial contents are a deployment's business, not the compiler's), loaded where the
    program reads it and stored where it writes it. Self-contained: the repro script a reduction
    writes carries this class's source."""

    def __init__(self) -> None:
        self.module_op = None
        self.types = {}
        self.element_types = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "i64",
                              "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "i8", "bool": "i1"}

    def prepare_module(self, module_op):
        self.module_op = module_op

    @staticmethod
    def symbol(target):
        """A buffer's state-dict name as a global's symbol: `layers.0.cache` -> `layers_0_cache`."""
        return target.replace(".", "_")

    def resolve_input(self, gni, value, info):
        if info.store_producer_node is None or not isinstance(value, torch.Tensor):
            return None  # parameters and read-only buffers: frozen literals
        symbol = self.symbol(info.input_spec.target)
        context = self.module_op.context
        if symbol not in self.types:
            element = self.element_types[str(value.dtype).removeprefix("torch.")]
            kind = ir.Type.parse(f"tensor<{''.join(f'{d}x' for d in value.shape)}{element}>", context)
            zero = "false" if element == "i1" else "0.0" if element.startswith(("f", "bf")) else "0"
            with ir.InsertionPoint.at_block_begin(self.module_op.regions[0].blocks[0]), ir.Location.unknown(context):
                ir.Operation.create("util.global", attributes={
                    "sym_name": ir.StringAttr.get(symbol),
                    "sym_visibility": ir.StringAttr.get("private"),
                    "type": ir.TypeAttr.get(kind),
                    "is_mutable": ir.UnitAttr.get(),
                    "initial_value": ir.Attribute.parse(f"dense<{zero}> : {kind}", context),
                })
            self.types[symbol] = kind
        loaded = ir.Operation.create("util.global.load", results=[self.types[symbol]],
                                     attributes={"global": ir.FlatSymbolRefAttr.get(symbol)})
        return ir.Operation.create("torch_c.from_builtin_tensor", results=[info.ir_type], operands=[loaded.result]).result

    def store_produced_value(self, gni, py_value, produced_ir_value, info):
        symbol = self.symbol(info.input_spec.target)
        builtin = ir.Operation.create("torch_c.to_builtin_tensor", results=[self.types[symbol]], operands=[produced_ir_value])
        ir.Operation.create("util.global.store", operands=[builtin.result], attributes={"global": ir.FlatSymbolRefAttr.get(symbol)})


@dataclass(frozen=True)
class Imported:
    text: str  # the module as iree-compile reads it (no locations printed)
    module: ir.Module  # the same, each op located at the FX node it came from (`node:NAME`)


NODE_FILE = "node:"


def import_module(program: ExportedProgram, context: ir.Context | None = None) -> Imported:
    """The program as torch-dialect MLIR; NotImportable (one line) when the importer cannot."""
    traces = {node: node.meta.get("stack_trace") for node in nodes(program)}
    tuples = {node: node.meta["val"] for node in traces if _returns_a_list(node) and isinstance(node.meta.get("val"), tuple)}
    for index, node in enumerate(traces):  # the importer reads a location from each node's stack trace
        node.meta["stack_trace"] = f'File "{NODE_FILE}{node.name}", line {index + 1}, in forward'
    for node, value in tuples.items():
        node.meta["val"] = list(value)
    importer = FxImporter(context=context or ir.Context(), hooks=GlobalState())
    with quiet():
        try:
            importer.import_program(program, func_name=FUNCTION)
        except Exception as err:  # noqa: BLE001  (the importer raises anything for an op it cannot import)
            raise NotImportable(one_line(err)) from None
        finally:
            for node, value in tuples.items():  # the program is as it was: its archive is not changed
                node.meta["val"] = value
            for node, trace in traces.items():
                if trace is None:
                    node.meta.pop("stack_trace", None)
                else:
                    node.meta["stack_trace"] = trace
    module = importer.module
    if not irx.verifies(module):
        raise NotImportable("its output does not verify")
    return Imported(irx.to_text(module), module)


def _returns_a_list(node: torch.fx.Node) -> bool:
    """An op with one list result (`split` returns Tensor[]): a saved archive loads its value as a
    tuple, where export made a list, and the importer of IREE 3.13 types only a list ("Could not
    deduce type from value info"), so a loaded program with a split would not import again."""
    schema = getattr(node.target, "_schema", None)
    return schema is not None and len(schema.returns) == 1 and isinstance(schema.returns[0].type, torch.ListType)


def import_text(program: ExportedProgram) -> str:
    """The program as torch-dialect MLIR text (NotImportable when it does not import)."""
    return import_module(program).text


def node_of_line(imported: Imported) -> dict[int, str]:
    """The FX node each line of the imported text came from (line -> node name), read by walking
    the located module beside the text parsed again (the two walks visit the same ops)."""
    parsed = irx.parse(imported.text, imported.module.context)
    found: dict[int, str] = {}
    for located, placed in zip(irx.walk_ops(imported.module.operation), irx.walk_ops(parsed.operation), strict=False):
        node = next((loc.file[len(NODE_FILE):] for loc in location_leaves(str(located.location))
                     if loc.file.startswith(NODE_FILE)), None)
        line = next((loc.line for loc in location_leaves(str(placed.location))), None)
        if node is not None and line is not None:
            found.setdefault(line, node)
    return found
