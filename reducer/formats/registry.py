"""Every input format, one row each: the one place in `reducer/` that chooses a format by path.

A file whose suffix no row claims is MLIR (text or bytecode, read by its content). To add a
format: write its adaptor (reducer/formats/adaptor.py says what one owns) and add its row.
"""

from __future__ import annotations

from pathlib import PurePath

from oracles.formats import suffix_in
from reducer.formats.adaptor import InputFormat
from reducer.formats.mlir_bytecode_input import MlirBytecodeInput
from reducer.formats.mlir_input import MlirInput
from reducer.formats.onnx_input import OnnxInput
from reducer.formats.pt2_input import Pt2Input

MLIR = MlirInput()

FORMATS: tuple[InputFormat, ...] = (
    OnnxInput(),
    Pt2Input(),
    MlirBytecodeInput(),
    MLIR,
)


def format_for(where: str | PurePath) -> InputFormat:
    """The format of a path, a file name or a bare suffix (`.onnx`)."""
    suffix = suffix_in(where)
    return next((fmt for fmt in FORMATS if suffix in fmt.suffixes), MLIR)
