"""What outlives a run: the on-disk verdict cache and corpus entries.

Imports `oracles` only.
"""
