"""Running IREE's tools: finding them, limits, isolated and warm compiles, pasted command lines.

Imports only the standard library and other `oracles` subpackages below it (none today).
"""
