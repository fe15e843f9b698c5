"""Reduction passes; `registry.REDUCTION_PASSES` lists them in the order they run."""
