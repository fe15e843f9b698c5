"""The data of `dense_resource` constants: the blobs in a module's `dialect_resources` section.

`iree-import-onnx` writes every initializer as `dense_resource<name>`, its bytes in the file's
trailing `{-# dialect_resources: { builtin: { name: "0x..." } } #-}` section. The bindings can
make such a blob (`DenseResourceElementsAttr.get_from_buffer`) but give no way to read one back,
so this reads the section as the printer writes it: each blob's hex string, whose first four
bytes are the blob's alignment, the rest its elements in memory order. A blob elided on printing
(`--mlir-elide-resource-strings-if-larger`, as pasted into issues) has no data: None.
"""

from __future__ import annotations

import re

from iree.compiler import ir

_SECTION_START = "{-#"
_BLOB = re.compile(r'(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w.$-]*))\s*:\s*"0x([0-9A-Fa-f]*)"')
_RESOURCE_NAME = re.compile(r'^dense_resource<(?:"((?:[^"\\]|\\.)*)"|([^>\s]+))>')
_ALIGNMENT_BYTES = 4


def resource_blobs(text: str) -> dict[str, str]:
    """Each resource's hex string by name (decoded lazily: a model's weights can be large)."""
    start = text.rfind(_SECTION_START)
    if start < 0:
        return {}
    return {quoted or bare: hexed for quoted, bare, hexed in _BLOB.findall(text, start)}


def resource_name(attr: ir.Attribute) -> str | None:
    """The blob a `dense_resource` attribute names; None for any other attribute."""
    match = _RESOURCE_NAME.match(str(attr))
    if match is None:
        return None
    return match.group(1) if match.group(1) is not None else match.group(2)


def resource_bytes(attr: ir.Attribute, blobs: dict[str, str]) -> bytes | None:
    """The elements of a `dense_resource` attribute as raw bytes; None when its blob is absent or elided."""
    name = resource_name(attr)
    hexed = blobs.get(name) if name is not None else None
    if hexed is None or len(hexed) < 2 * _ALIGNMENT_BYTES:
        return None
    return bytes.fromhex(hexed[2 * _ALIGNMENT_BYTES :])
