"""Reduction passes, one file each; `registry.PASSES` is the table of them in the order they run."""
