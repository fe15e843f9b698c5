"""Parameters, buffers and constants of a PyTorch program become small integers (their values
rounded, within [-8, 8]): values a reader takes in at a glance, exact in every float type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reducer.passes.fx_pass import FxPass, Values

if TYPE_CHECKING:
    from reducer.formats.torch_program import Editable

LIMIT = 8


class FxPlainTensors(FxPass):

    def targets(self, ed: Editable) -> list[str]:
        import torch

        from reducer.formats.torch_program import attribute

        found = []
        for node in ed.graph.nodes:
            if node.op != "get_attr" or node.target in found:
                continue
            value = attribute(ed.module, node.target)
            plain = isinstance(value, torch.Tensor) and value.dtype.is_floating_point and value.numel() > 0
            if plain and not torch.equal(value, _plain(value)):
                found.append(node.target)
        return found

    def edit(self, ed: Editable, chosen: list, values: Values) -> None:
        from reducer.formats.torch_program import attribute, set_attribute

        for name in chosen:
            set_attribute(ed.module, name, _plain(attribute(ed.module, name)))


def _plain(value):
    import torch

    return torch.round(value.detach().float()).clamp(-LIMIT, LIMIT).to(value.dtype)
