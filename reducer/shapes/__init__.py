"""Tensor shapes below ONNX: dimensions tied by op rules, resized consistently, and what makes a
shape degenerate (checked by every shape pass)."""
