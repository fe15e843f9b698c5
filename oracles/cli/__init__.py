"""Command-line entry points of the oracles (`python -m oracles.judge`, `oracles.onnx_reference`,
`oracles.miscompile` run these). Thin: argument parsing and exit codes over the packages beside it.
"""
