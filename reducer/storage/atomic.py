"""Files that are either the old content or the new, never half of one, even after `kill -9` or a
power cut: written beside, flushed to disk, renamed over, and the rename itself flushed."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomically(path: Path, data: str | bytes) -> None:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as file:
        file.write(data if isinstance(data, bytes) else data.encode())
        file.flush()
        os.fsync(file.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):  # some file systems cannot open a directory
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
