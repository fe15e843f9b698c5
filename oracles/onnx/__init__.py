"""ONNX models: importing them with `iree-import-onnx` and evaluating them with onnx.reference.

Imports `oracles.data`, `oracles.toolchain`, `oracles.compiling` (an import error is a compile
error's failure) and the oracle protocol.
"""
