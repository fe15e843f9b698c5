"""Whether a reduced result is 1-minimal, checked apart from the reducer's passes.

A reduction ends when its passes find nothing more to remove, which says as much about the passes
as about the result: a pass that never tries an edit cannot find it. This package tries every
single edit of a result directly, with edits of its own that share no code with
`reducer/passes/`: each op or node deleted (what its results fed reads a new function argument or
graph input instead), each bypassed (its result replaced by a same-typed operand) and each static
dimension halved; each candidate that imports and verifies is judged, uncached, by the oracle that
judged the reduction. A result is 1-minimal when none of them still fails.

- `check.py`: the judging loop and its answer (`Minimality`);
- `mlir_edits.py`, `onnx_edits.py`, `fx_edits.py`: the single edits of each format, through the
  MLIR bindings, the onnx package and torch.fx;
- `judging.py`: the oracle and the result of a `reduce` command line, for bench scripts that run
  `reduce` in a process of its own.

`bench/one_minimal.py` is its command line; the bench scripts that reduce print its answer as a
column.
"""
