"""The original of fuzz-torch-kv-cache-index-copy-not-legalized: a KV cache written in place with
index_copy_ (as transformers' StaticCache does), cut by hand from the fuzz case of seed 2037006114.
Writes index_copy_cache.pt2 here."""
import torch
from torch import nn
class IndexCopyCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache_k", torch.zeros(1, 2, 8, 4))
    def forward(self, k, positions):
        self.cache_k.index_copy_(2, positions, k)
        return self.cache_k * 2
args = (torch.ones(1, 2, 3, 4), torch.tensor([1, 2, 3]))
torch.export.save(torch.export.export(IndexCopyCache(), args), "index_copy_cache.pt2")
