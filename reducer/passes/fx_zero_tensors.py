"""Parameters, buffers and constants of a PyTorch program become zeros of the same shape and type."""

from __future__ import annotations

from reducer.passes.fx_pass import FxPass, Values


class FxZeroTensors(FxPass):

    def targets(self, ed) -> list[str]:
        import torch

        found = []
        for node in ed.graph.nodes:
            if node.op != "get_attr" or node.target in found:
                continue
            value = _attribute(ed.module, node.target)
            if isinstance(value, torch.Tensor) and value.numel() and bool(torch.any(value != 0)):
                found.append(node.target)
        return found

    def edit(self, ed, chosen, values: Values) -> None:
        import torch

        for name in chosen:
            owner_path, _, leaf = name.rpartition(".")
            owner = ed.module.get_submodule(owner_path) if owner_path else ed.module
            value = getattr(owner, leaf)
            zeros = torch.zeros_like(value)
            if isinstance(value, torch.nn.Parameter):
                setattr(owner, leaf, torch.nn.Parameter(zeros, requires_grad=value.requires_grad))
            else:
                owner.register_buffer(leaf, zeros)


def _attribute(module, name: str):
    for part in name.split("."):
        module = getattr(module, part)
    return module
