"""Float parameters, buffers and constants of a PyTorch program become small integers (their
values rounded, within [-8, 8]): values a reader takes in at a glance, exact in every float type."""

from __future__ import annotations

from reducer.passes.support.fx_edit import FxTensorValues

LIMIT = 8


class FxPlainTensors(FxTensorValues):

    def replaced(self, value):
        import torch

        if not value.dtype.is_floating_point:
            return value
        return torch.round(value.detach().float()).clamp(-LIMIT, LIMIT).to(value.dtype)
