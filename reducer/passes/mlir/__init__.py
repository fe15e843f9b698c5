"""The passes on MLIR (any dialect IREE parses): one module per pass, rows in ../registry.py."""
