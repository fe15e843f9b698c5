"""ONNX models: importing them with `iree-import-onnx` and evaluating them with onnx.reference.

Imports `oracles.toolchain`, `oracles.compiling` and the oracle protocol.
"""
