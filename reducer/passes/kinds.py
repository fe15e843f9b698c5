"""Which level of IR (or which format) an input is: what decides the rows of the pass table it runs."""

from __future__ import annotations

from enum import Enum

from iree.compiler import ir

from oracles import Candidate
from oracles.mlir import ir as irx


class InputKind(str, Enum):
    ONNX = "onnx"  # a serialised ONNX model
    TORCH_DIALECT = "torch"  # torch dialect, as iree-import-onnx and the FX importer write it (`torch.operator "onnx.*"`)
    LINALG = "linalg"  # linalg on tensors (StableHLO, TOSA, or IREE's input phase)
    FLOW_STREAM = "flow/stream"  # IREE's own dialects after dispatch formation
    HAL_EXECUTABLE = "hal.executable"  # one dispatch alone, as --iree-hal-dump-executable-sources-to writes it
    PT2 = "pt2"  # a PyTorch program, as torch.export.save writes it (its FX graph)


MLIR_KINDS = frozenset({InputKind.TORCH_DIALECT, InputKind.LINALG, InputKind.FLOW_STREAM, InputKind.HAL_EXECUTABLE})
EVERY_KIND = MLIR_KINDS | {InputKind.ONNX, InputKind.PT2}


def input_kind(candidate: Candidate) -> InputKind:
    """The kind of MLIR text (its formats' own kinds, ONNX and PT2, are their adaptors')."""
    return mlir_kind(irx.parse(candidate.text))


def mlir_kind(module: ir.Module) -> InputKind:
    """The kind of a parsed module: its highest-level dialect wins (torch over flow over linalg)."""
    top = {op.operation.name for op in module.body.operations}
    if "hal.executable" in top and not top & set(irx.FUNCTION_OPS):  # the dispatch's own functions are nested
        return InputKind.HAL_EXECUTABLE
    dialects = {op.name.split(".", 1)[0] for op in irx.walk_ops(module.operation)}
    if "torch" in dialects:
        return InputKind.TORCH_DIALECT
    if dialects & {"flow", "stream", "hal"}:
        return InputKind.FLOW_STREAM
    return InputKind.LINALG
