"""The one MLIR layer: parse, walk, print and edit IR through the compiler's Python bindings,
read its types (builtin and torch) and its source locations.

Every other module reads IR through this package; nothing else calls `ir.Module.parse`.
Imports nothing else of this project.
"""
