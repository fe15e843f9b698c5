"""PyTorch programs: `torch.export` archives (`.pt2`) read, imported to torch-dialect MLIR with the
compiler wheel's FX importer, and run eagerly as the reference for their answers.

torch is an optional extra (`pip install -e '.[torch]'`): nothing outside this package imports
it, and the modules here that do are imported only where a `.pt2` is handled, inside the
functions that handle it (every spawned compile or edit worker imports the modules its parent
named, and torch takes a second to load). This module itself never imports torch.

Imports `oracles.mlir`, `oracles.data` and the oracle protocol.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

# The torch versions `.pt2` input takes, as the `[torch]` extra accepts them (pyproject.toml): from
# the one the tests and CI run (TESTED) to the newest tried with this IREE's FX importer; why these,
# docs/architecture.md. A user's own torch in the range is kept, not replaced by the tested one.
TESTED = "2.13.0"
ACCEPTED = ((2, 13), (2, 15))  # (major, minor): from the first, up to and without the second
SPEC = f">={ACCEPTED[0][0]}.{ACCEPTED[0][1]},<{ACCEPTED[1][0]}.{ACCEPTED[1][1]}"  # as pip spells it
INSTALL = "pip install -e '.[torch]'"

# How a program is brought to the compiler before the FX importer (`reduce --torch-import`), applied
# once as the archive loads (oracles/torch/decompositions.py): the archive reduced, written and
# judged is the program as imported, so every candidate and the result import the original's way.
TURBINE = "turbine"  # as IREE's PyTorch front end (iree-turbine's `aot.export`) brings a module: its decompositions
FUNCTIONAL = "functional"  # made functional, nothing decomposed: the user's ops as they wrote them
IMPORTS = (TURBINE, FUNCTIONAL)
DEFAULT_IMPORT = TURBINE


def torch_missing() -> str | None:
    """Why this Python cannot handle a .pt2 (one line, with the install command), or None."""
    if importlib.util.find_spec("torch") is None:
        return f"torch is not installed: {INSTALL} (torch{SPEC}; the tests run {TESTED}, the CPU build)"
    return None


def torch_unsupported(version: str | None = None) -> str | None:
    """Why the installed torch (or `version`) is one .pt2 input does not take (one line), or None.
    Read from the package's metadata, not by importing torch (seconds): a version it cannot read
    (a source build) is taken."""
    if version is None:
        try:
            version = importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            return None
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None or ACCEPTED[0] <= (int(found[1]), int(found[2])) < ACCEPTED[1]:
        return None
    return f"torch {version} is installed; .pt2 input takes torch{SPEC} (known to work with IREE 3.13's FX importer)"
