"""Input formats as adaptors: one object per format (MLIR, ONNX, PyTorch program) that owns how
its files load and are refused, its unit, its rows of the pass table, its localisation, the files
written beside its result and the MLIR the failing-pass step reads (`adaptor.py`); `registry.py`
chooses one by path. `torch_script.py` writes a `.pt2` result's standalone repro script.

Imports `oracles` and the lower layers of `reducer` (graphs, search, passes, localize, storage).
"""
