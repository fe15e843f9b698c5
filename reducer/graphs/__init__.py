"""The programs that graph passes edit, in memory: ONNX models (load, describe, count, serialise)
and a `.pt2`'s FX graph (a flat GraphModule an edit changes, exported and imported again).

Imports `oracles` only.
"""
