"""The original of fuzz-torch-kv-cache-two-index-put-globals-wrong: a KV cache's two buffers updated in place,
the keys' cache returned (cut by hand from the fuzz case of seed 14000042). Writes two_caches.pt2 and inputs.pt here."""
import torch
from torch import nn


class TwoCaches(nn.Module):
    """A KV cache's two buffers, each updated in place at the positions given; the step reads the keys."""
    def __init__(self):
        super().__init__()
        self.register_buffer("cache_k", torch.zeros(6, 2))
        self.register_buffer("cache_v", torch.zeros(6, 2))
    def forward(self, k, v, positions):
        self.cache_k[positions] = k
        self.cache_v[positions] = v
        return self.cache_k + 0
k = torch.arange(1, 5, dtype=torch.float32).view(2, 2)
args = (k, -k, torch.tensor([2, 3]))
torch.export.save(torch.export.export(TwoCaches(), args), "two_caches.pt2")
torch.save(list(args), "inputs.pt")
