"""Parameters, buffers and constants of a PyTorch program become zeros of the same shape and type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.fx_pass import FxPass, Values

if TYPE_CHECKING:
    from reducer.formats.torch_program import Editable


class FxZeroTensors(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        import torch

        from reducer.formats.torch_program import attribute

        found = []
        for node in ed.graph.nodes:
            if node.op != "get_attr" or node.target in found:
                continue
            value = attribute(ed.module, node.target)
            if isinstance(value, torch.Tensor) and value.numel() and bool(torch.any(value != 0)):
                found.append(node.target)
        return found

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        import torch

        from reducer.formats.torch_program import attribute, set_attribute

        for name in chosen:
            set_attribute(ed.module, name, torch.zeros_like(attribute(ed.module, name)))

