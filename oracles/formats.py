"""Which format a candidate or a file is: the one place in `oracles/` that reads a suffix.

A candidate's `suffix` says how it was made (`.onnx`: a serialised model; `.pt2`: a
`torch.export` archive whose text is its imported MLIR; anything else: MLIR text). Everything in
`oracles/` that treats one format its own way (which oracle wraps the judge, how data binds, how
a release judges a saved case) asks `format_of` and keys by the answer, never by a suffix.
"""

from __future__ import annotations

from enum import Enum
from pathlib import PurePath


class Format(str, Enum):
    MLIR = "mlir"  # MLIR text in any dialect IREE parses (bytecode is read and reduced as text)
    ONNX = "onnx"  # a serialised ONNX model, imported by iree-import-onnx per candidate
    PT2 = "pt2"  # a torch.export archive, imported by IREE's FX importer per candidate


SUFFIXES: dict[Format, str] = {Format.ONNX: ".onnx", Format.PT2: ".pt2"}
_BY_SUFFIX = {suffix: fmt for fmt, suffix in SUFFIXES.items()}


def suffix_in(where: str | PurePath) -> str:
    """The suffix of a path or a file name, or `where` itself when it is a bare suffix (`.onnx`)."""
    text = str(where)
    return text if text.startswith(".") and "/" not in text else PurePath(text).suffix


def format_of(where: str | PurePath) -> Format:
    """The format of a path, a file name or a bare suffix; MLIR for any other."""
    return _BY_SUFFIX.get(suffix_in(where), Format.MLIR)


def suffix_of(fmt: Format) -> str:
    """The suffix a candidate of this format carries (`.mlir` for MLIR text)."""
    return SUFFIXES.get(fmt, ".mlir")
