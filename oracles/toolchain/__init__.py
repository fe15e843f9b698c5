"""Running IREE's tools: finding them, limits, isolated and warm compiles, pasted command lines.

Imports only `oracles.candidate` and `oracles.refusals` of this project.
"""
