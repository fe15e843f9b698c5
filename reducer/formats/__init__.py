"""Input formats and the adaptors between them: ONNX models (load, describe, reshape) and the
lift of torch-onnx MLIR to an ONNX graph.

Imports `oracles` only.
"""
