"""Wrong answers: input data, comparison with a dtype-aware tolerance, running a compiled module,
and the oracles built on them (`miscompile`, `reference-mismatch`).

Imports `oracles.toolchain`, `oracles.mlir`, `oracles.onnx` and the oracle protocol.
"""
