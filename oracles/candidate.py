"""What an oracle judges: program text plus the user's compile flags."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """An immutable input to an oracle; its content hash keys the verdict cache."""

    text: str
    flags: tuple[str, ...] = ()
    suffix: str = ".mlir"
    binary: bytes | None = None  # set for binary inputs (ONNX); `text` is then a description

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        digest.update(self.binary if self.binary is not None else self.text.encode())
        digest.update(b"\0" + "\0".join(self.flags).encode() + b"\0" + self.suffix.encode())
        return digest.hexdigest()

    @property
    def size(self) -> int:
        return len(self.binary) if self.binary is not None else len(self.text.encode())

    def with_text(self, text: str) -> Candidate:
        return Candidate(text, self.flags, self.suffix, None)

    def with_flags(self, flags: tuple[str, ...]) -> Candidate:
        return Candidate(self.text, tuple(flags), self.suffix, self.binary)

    def write(self, path) -> None:
        if self.binary is not None:
            path.write_bytes(self.binary)
        else:
            path.write_text(self.text)
