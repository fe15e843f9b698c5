"""The passes on ONNX models: one module per pass, rows in ../registry.py."""
