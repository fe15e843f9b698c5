"""Localisation: before any pass, cut the input down to what the failure points at (the op a
diagnostic names, the ops of the failing dispatch, the slice that keeps an IR symptom, the FX nodes
a `.pt2`'s failure names, the dispatch or node that first computes a wrong value).

Imports `oracles`, `reducer.search`, `reducer.passes.support`, `reducer.formats`.
"""
