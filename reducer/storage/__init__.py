"""What outlives a run: the on-disk verdict cache, the `--resume` state, files written whole.

Imports `oracles` and `reducer.proposal` only.
"""
