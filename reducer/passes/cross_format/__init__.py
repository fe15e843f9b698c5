"""Passes that apply to more than one input format (compile flags; plain constant values)."""
