"""What a PyTorch case's IREE answers are judged against: PyTorch eager, with eager-mismatch's tolerance.

The reference is the exported program run eagerly on the same inputs (`oracles/torch/eager.py`),
compared with `eager-mismatch`'s tolerance (`oracles/numeric/eager_mismatch.py`). Where the
program computes in f16 or bf16 and IREE's answer is outside it, the same program in f64 (its
weights the half ones, exactly) is asked too: IREE rounding differently from PyTorch's half
kernels is no bug, so only an answer outside the tolerance of both is a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from fuzz.torch_gen.build import input_arrays, reference_module
from fuzz.torch_gen.export import Exported
from oracles.numeric.compare import Comparison
from oracles.numeric.eager_mismatch import eager_comparison
from oracles.torch.eager import flat_tensors, numpy_type, to_numpy, to_torch
from oracles.torch.importer import FUNCTION
from oracles.torch.program import LOCK, float_types, quiet

HALF = (torch.float16, torch.bfloat16)


@dataclass
class EagerExpected:
    """PyTorch eager's answers at each size and how IREE's are judged against them (the
    interface `fuzz.execute.run_pipelines` asks of a reference)."""

    made: Exported
    inputs: dict[int | None, list[np.ndarray]]
    symbol: str
    float_types: list[np.dtype]
    half: bool
    function: str = FUNCTION
    first: dict = field(default_factory=dict)  # per size: the first pipeline's outputs
    f64: dict = field(default_factory=dict)  # per size: the f64 reference's outputs, once asked

    @classmethod
    def of(cls, made: Exported) -> EagerExpected:
        spec = made.spec
        inputs = {size: input_arrays(spec, size) for size in made.expected}
        types = float_types(made.program)
        return cls(made, inputs, spec.dynamic.symbol if spec.dynamic else "", [numpy_type(t) for t in types],
                   bool(types & set(HALF)))

    def judge(self, size: int | None, actual: list[np.ndarray]) -> Comparison:
        """IREE's outputs at `size` against eager's; a half program outside it, against f64's too."""
        native = self.compare(self.made.expected[size], actual)
        if native.matches or not self.half:
            return native
        reference = self.f64_outputs(size)
        if reference is None:  # PyTorch cannot run it in f64 (an op without an f64 kernel): eager's answer stands
            return native
        exact = self.compare(reference, actual)
        if exact.matches:
            exact.description += " (against the f64 reference; PyTorch's half kernels round differently)"
            return exact
        return native

    def compare(self, expected: list[np.ndarray], actual: list[np.ndarray]) -> Comparison:
        return eager_comparison(expected, actual, self.made.mlir or "", self.float_types)

    def f64_outputs(self, size: int | None) -> list[np.ndarray] | None:
        """The f64 program's outputs at `size`; None when PyTorch cannot run it in f64."""
        if size not in self.f64:
            module = reference_module(self.made.module)
            with LOCK, quiet(), torch.no_grad():
                values = [to_torch(a) for a in self.inputs[size]]
                values = [v.double() if v.is_floating_point() else v for v in values]
                try:
                    self.f64[size] = [to_numpy(t) for t in flat_tensors(module(*values))]
                except Exception:  # noqa: BLE001  (an op raises anything for a type it has no kernel for)
                    self.f64[size] = None
        return self.f64[size]
