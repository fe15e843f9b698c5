"""The bounds that keep a case fast and its reference exact, and the values sizes are drawn from.

Bounds that keep one case at about a second of compile-and-run on a CPU and the reference exact:
every tensor has at most `MAX_ELEMS` elements, reductions at most `MAX_K` terms, a block at most
`MAX_MACS` multiply-adds; float tensors hold integers (or dyadic fractions from power-of-two scales)
whose sums stay below 2**24, where float32 is exact whatever the summation order.
"""

from __future__ import annotations

MAX_ELEMS = 1 << 18
MAX_K = 4096
MAX_MACS = 1 << 26
MAX_IM2COL = 1 << 24  # the reference's im2col work (elements), summed over groups
RESCALE_ABOVE = 512  # a float value feeding a second block is clipped to this bound first
# The largest integer a half type holds exactly with every smaller one: sums stay exact below it.
HALF_EXACT = {"float16": 2048, "bfloat16": 256}

BASE_DIMS = (1, 2, 3, 4, 8, 16, 32, 64)
AWKWARD_DIMS = (1, 3, 5, 7, 13, 15, 17, 31, 33, 55, 56, 63, 65, 112, 127, 129)
CHANNELS = (1, 2, 3, 4, 8, 16, 32, 64)
LARGE_CHANNELS = (256, 384, 512, 1024, 2048)
SPATIAL = (1, 2, 4, 7, 8, 14, 16, 28, 32)
LONG = (256, 500, 1024, 2048, 4096)

SCALES = (0.25, 0.5, 1.0, 2.0)
ACT_ZP = {"int8": (0, 1, -1, 5, -3, 100, -128, 127), "uint8": (0, 1, 10, 128, 200, 255)}
W_ZP = {"int8": (0, 1, -1, 3, -5), "uint8": (128, 127, 130, 120), "int4": (0, 1, -1, 3), "uint4": (8, 7, 9)}
W_RANGE = {"int8": (-8, 7), "uint8": (120, 135), "int4": (-8, 7), "uint4": (0, 15)}
QRANGE = {"int8": (-128, 127), "uint8": (0, 255)}
