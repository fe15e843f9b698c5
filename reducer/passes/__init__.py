"""Reduction passes grouped by the format they edit (`mlir/`, `onnx/`, `fx/`, `cross_format/`),
one module per pass, their shared helpers in `support/`; `registry.PASSES` is the table of them in
the order they run."""
