"""Oracles that judge a compile: errors and crashes (by signature), LDS use, IR symptoms at a phase.

Imports `oracles.toolchain`, `oracles.mlir` and the oracle protocol (`oracles.base`).
"""
