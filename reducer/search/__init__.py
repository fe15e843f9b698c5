"""The search, and nothing about formats: delta debugging, the engine that runs the passes to a
fixpoint, the reduction problem that owns the best candidate and every verdict, the evaluator that
runs oracle calls (local pool or cluster), the edit worker, Ctrl-C.

Imports `oracles` and `reducer.passes`' data types.
"""
