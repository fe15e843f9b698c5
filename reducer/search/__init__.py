"""The search: delta debugging, the reduction problem that owns the best candidate and every
verdict, the evaluator that runs oracle calls (local pool or cluster), localisation, Ctrl-C.

Imports `oracles` and `reducer.passes`' data types.
"""
