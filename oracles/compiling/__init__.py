"""Oracles that judge a compile: errors and crashes (by signature), LDS use, IR symptoms at a phase;
one failing pass alone under `iree-opt` (pass reproducers, lit tests) and dispatch configurations.

Imports `oracles.toolchain`, `oracles.mlir`, the failure signatures (`oracles.signature`) and the
oracle protocol (`oracles.base`).
"""
