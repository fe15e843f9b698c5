"""A PyTorch finding's files: the program as a `.pt2` and, for a wrong answer or a run error, the
inputs it showed on (a `torch.save` list, bound to the program's inputs in order), from which
`reduce` starts (`fuzz/triage.py`). The program is rebuilt from the case's spec: the same spec
exports the same program."""

from __future__ import annotations

from pathlib import Path

import torch

from fuzz.torch_gen.build import input_arrays
from fuzz.torch_gen.export import exported
from fuzz.torch_gen.spec import TorchSpec
from oracles.torch.eager import to_torch

PROGRAM_NAME, INPUTS_NAME = "model.pt2", "inputs.pt"


def save_program(directory: Path, spec_json: str) -> Path:
    """The case's program saved as `directory/model.pt2`."""
    made = exported(TorchSpec.from_json(spec_json))
    path = directory / PROGRAM_NAME
    path.write_bytes(made.archive)
    return path


def save_inputs(directory: Path, spec_json: str, size: int | None) -> Path:
    """The inputs the case ran on at `size` of its dynamic dimension (None: the example's)."""
    path = directory / INPUTS_NAME
    torch.save([to_torch(a) for a in input_arrays(TorchSpec.from_json(spec_json), size)], path)
    return path
