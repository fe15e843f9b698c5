"""The data layer: the arrays a program runs on and how it runs on them. Element types, argument
types and seeded inputs (`arrays.py`), the user's arrays bound to a program's arguments
(`binding.py`), the data a candidate carries and the values it runs on (`carried.py`), running a
compiled module (`run.py`), the reference pipeline (`reference_pipeline.py`), what a program
computes at each value (`intermediates.py`) and a reduced case's data files (`case_data.py`).

Imports `oracles.toolchain`, `oracles.mlir` and the bottom modules (`refusals`, `candidate`,
`verdict`, `signature`); the importers and every oracle build on it.
"""
