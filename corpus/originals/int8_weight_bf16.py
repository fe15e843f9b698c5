"""The original of fuzz-torch-bf16-int8-weight-dequant-truncsfbf2-undefined: a weight-only int8
linear in bf16 (the int8 weight dequantised in the graph, as quantisation libraries rewrite
nn.Linear), cut by hand from the fuzz case of seed 2041 (an int8_linear feeding a KV-cache step).
Writes int8_weight_bf16.pt2 here."""
import torch
from torch import nn
from torch.nn import functional as F


class Int8WeightLinear(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("weight", torch.randint(-127, 128, (2, 5), dtype=torch.int8))

    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype))


args = (torch.randn(3, 5).to(torch.bfloat16),)
torch.export.save(torch.export.export(Int8WeightLinear(), args), "int8_weight_bf16.pt2")
