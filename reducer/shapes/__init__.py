"""Tensor shapes, every format's: dimensions of linalg-level IR and dispatches tied by each op's
shape rule (what `shrink-linalg-shapes` edits), ONNX models' shapes and their inference, and the
shrink search the shape passes share.

Imports `oracles` and `reducer.formats` only.
"""
