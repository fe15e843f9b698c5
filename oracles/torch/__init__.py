"""PyTorch programs: `torch.export` archives (`.pt2`) read, imported to torch-dialect MLIR with the
compiler wheel's FX importer, and run eagerly as the reference for their answers.

torch is an optional extra (`pip install -e '.[torch]'`): nothing outside this package imports
it, and the modules here that do are imported only where a `.pt2` is handled, inside the
functions that handle it (every spawned compile or edit worker imports the modules its parent
named, and torch takes a second to load). This module itself never imports torch.

Imports `oracles.mlir`, `oracles.data` and the oracle protocol.
"""

from __future__ import annotations

import importlib.util

PINNED = "2.13.0"  # the version the extra pins (pyproject.toml); the FX importer of IREE 3.13 reads its archives
INSTALL = "pip install -e '.[torch]'"


def torch_missing() -> str | None:
    """Why this Python cannot handle a .pt2 (one line, with the install command), or None."""
    if importlib.util.find_spec("torch") is None:
        return f"torch is not installed: {INSTALL} (torch=={PINNED}, the CPU build)"
    return None
