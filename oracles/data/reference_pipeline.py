"""The reference pipeline: the least-optimising CPU compile of the pinned compiler.

A wrong answer that optimisations introduce (data tiling, microkernels, fusion, demotions) is
least likely here, so it computes what a program should give when the user has no second
pipeline to trust (`miscompile --expected-outputs` without `--pipeline-b`), and the value a cut
argument gets (the value the program computes there, oracles/data/intermediates.py).
"""

from __future__ import annotations

from oracles.toolchain.flags import GENERIC_CPU

NAME = "llvm-cpu-O0"
FLAGS: tuple[str, ...] = (
    *GENERIC_CPU,
    "--iree-opt-level=O0",
    "--iree-opt-data-tiling=false",
    "--iree-llvmcpu-enable-ukernels=none",
)
