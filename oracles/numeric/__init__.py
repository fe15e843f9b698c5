"""Wrong answers: comparison with a dtype-aware tolerance, what is wrong in a wrong answer, and the
oracles built on them (`miscompile`, `reference-mismatch`, `eager-mismatch`, `run-error`), with
every dispatch's traced tensors and the dispatch-level test.

Imports `oracles.data` (the arrays, the carried data, running a module), the importers
(`oracles.onnx`, `oracles.torch`), the oracle protocol and the layers below them.
"""
