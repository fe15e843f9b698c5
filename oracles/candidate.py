"""What an oracle judges: program text (or a serialised model), the compile flags, and input data."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from oracles.formats import Format, format_of


class CandidateRejected(Exception):
    """A tool that makes or checks a candidate (an exporter, an importer, a verifier, a checker)
    refused it: the edit that made it gives no candidate, which is no interesting one. Each tool's
    own error subclasses this, so that the one place that runs edits (the reducer's problem) turns
    exactly these into a failed edit and lets every other exception, a bug, through."""


@dataclass(frozen=True)
class Candidate:
    """An immutable input to an oracle; its content hash keys the verdict cache.

    `data` carries named input arrays (serialised `.npy` bytes) that travel with the program
    through a reduction: a verdict that runs the program depends on them, so the key covers them.
    """

    text: str
    flags: tuple[str, ...] = ()
    suffix: str = ".mlir"
    binary: bytes | None = None  # set for binary inputs: ONNX (`text` is then a description), .pt2 (`text` is its imported MLIR)
    data: tuple[tuple[str, bytes], ...] = ()

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        digest.update(self.binary if self.binary is not None else self.text.encode())
        digest.update(b"\0" + "\0".join(self.flags).encode() + b"\0" + self.suffix.encode())
        for name, array in self.data:
            digest.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(array).digest())
        return digest.hexdigest()

    @property
    def format(self) -> Format:
        """What the candidate is: MLIR text, an ONNX model, or a `.pt2` archive (whose `text` is its imported MLIR)."""
        return format_of(self.suffix)

    @property
    def size(self) -> int:
        return len(self.binary) if self.binary is not None else len(self.text.encode())

    def with_text(self, text: str) -> Candidate:
        return replace(self, text=text, binary=None)

    def with_binary(self, description: str, binary: bytes) -> Candidate:
        return replace(self, text=description, binary=binary)

    def with_flags(self, flags: tuple[str, ...]) -> Candidate:
        return replace(self, flags=tuple(flags))

    def write(self, path) -> None:
        if self.binary is not None:
            path.write_bytes(self.binary)
        else:
            path.write_text(self.text)
