"""Tensor shapes below ONNX: dimensions of linalg-level IR and dispatches tied by each op's shape
rule, and resized consistently (what `shrink-linalg-shapes` edits).

Imports `oracles` and `reducer.formats` only.
"""
