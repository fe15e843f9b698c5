"""A PyTorch program run eagerly: the reference its IREE answers are judged against, and the value
each of its nodes computes (what an input a cut made carries).

Inputs and outputs are numpy arrays (bf16 and f8 as ml_dtypes arrays), flattened in the order
of the program's inputs and outputs, which is the imported function's argument and result order.
Runs serialise on the program lock (oracles/torch/program.py): oracle calls come from several
threads of one process.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import torch
from torch.export import ExportedProgram

from oracles.data.arrays import ml_dtypes
from oracles.torch.program import LOCK, one_line, quiet

_RAW = {torch.bfloat16: "bfloat16", torch.float8_e4m3fn: "float8_e4m3fn", torch.float8_e5m2: "float8_e5m2",
        torch.float8_e4m3fnuz: "float8_e4m3fnuz", torch.float8_e5m2fnuz: "float8_e5m2fnuz"}
_BITS = {1: torch.uint8, 2: torch.int16}


class EagerError(ValueError):
    """The program fails when PyTorch runs it on these inputs; one line."""


def to_torch(value: np.ndarray | np.generic) -> torch.Tensor:
    array = np.ascontiguousarray(np.asarray(value))
    for dtype, name in _RAW.items():
        if ml_dtypes is not None and array.dtype == np.dtype(getattr(ml_dtypes, name)):
            bits = array.view(np.uint8 if array.itemsize == 1 else np.int16)
            return torch.from_numpy(bits.copy()).view(dtype)
    return torch.from_numpy(array.copy())


def numpy_type(dtype: torch.dtype) -> np.dtype:
    """The numpy element type of a torch one (bf16 and f8 as ml_dtypes types)."""
    name = _RAW.get(dtype)
    if name is not None and ml_dtypes is not None:
        return np.dtype(getattr(ml_dtypes, name))
    return torch.empty((), dtype=dtype).numpy().dtype


def to_numpy(value: torch.Tensor) -> np.ndarray:
    value = value.detach().cpu().contiguous()
    name = _RAW.get(value.dtype)
    if name is not None and ml_dtypes is not None:
        return value.view(_BITS[value.element_size()]).numpy().view(getattr(ml_dtypes, name))
    return value.numpy()


def flat_tensors(result: object) -> list[torch.Tensor]:
    """The tensors of a program's (nested) result, in order."""
    leaves, _ = torch.utils._pytree.tree_flatten(result)
    return [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]


def outputs(program: ExportedProgram, inputs: Sequence[np.ndarray | np.generic]) -> list[np.ndarray]:
    """The program's outputs on `inputs` as PyTorch computes them; EagerError when it fails."""
    with LOCK, quiet(), torch.no_grad():
        try:
            module = copy.deepcopy(program.module())  # a buffer the program updates starts as saved, every run
            result = module(*[to_torch(value) for value in inputs])
        except Exception as err:  # noqa: BLE001  (an op raises anything for inputs it rejects)
            raise EagerError(f"PyTorch fails to run it: {one_line(err)}") from None
    return [to_numpy(t) for t in flat_tensors(result)]


def node_values(module: torch.fx.GraphModule, inputs: Sequence[np.ndarray | np.generic]) -> dict[str, np.ndarray]:
    """What each node of a flat GraphModule (its placeholders are the inputs, in order) computes on
    `inputs`: node name -> array, for the nodes whose value is one tensor."""
    found: dict[str, np.ndarray] = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node: torch.fx.Node):
            value = super().run_node(node)
            if isinstance(value, torch.Tensor) and node.op == "call_function":
                found[node.name] = to_numpy(value)
            return value

    with LOCK, quiet(), torch.no_grad():
        try:
            Recorder(copy.deepcopy(module)).run(*[to_torch(value) for value in inputs])
        except Exception as err:  # noqa: BLE001
            raise EagerError(f"PyTorch fails to run it: {one_line(err)}") from None
    return found
