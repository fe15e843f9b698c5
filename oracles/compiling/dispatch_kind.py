"""What a dispatch computes, from the name IREE gives it and from its dumped source.

IREE names each dispatch after its root op and the loop sizes, e.g.
`main$async_dispatch_1_conv_32x3x51x26x2x3x3_f32` or `main$async_dispatch_0_matmul_like_64x256x32_f32`.
The kind (the words before the sizes, grouped into families: a named matmul and a contraction
IREE calls `matmul_like` are both `matmul_like`) is what pins an LDS overrun to the user's
dispatch: a reduction must not slip from a conv's overrun to a matmul's.
"""

from __future__ import annotations

import re
from pathlib import Path

from oracles.mlir.locations import failing_dispatch

_AFTER_INDEX = re.compile(r"_dispatch_\d+_(\w+)")
# A loop-size token (`64x256x32`, `Dx3`, `4`) or an element type (`f32`, `i8xf32`): the name's tail.
_SIZE_OR_TYPE = re.compile(r"^(?:[\dD]+(?:x[\dD]+)*|(?:[\dD]+x)*(?:[fiu]\d+|bf16|f8\w*|i1|index)(?:x\w+)*)$")
CONTRACTIONS = frozenset({"matmul", "matmul_like", "batch_matmul", "batch_matmul_like", "contract", "mmt4d", "batch_mmt4d", "matvec", "vecmat"})
UNKNOWN = "unknown"


def dispatch_kind(name: str) -> str:
    """The family of a dispatch (or kernel) name: matmul_like, conv, reduction, elementwise, ...;
    `unknown` when the name carries none."""
    match = _AFTER_INDEX.search(name)
    if not match:
        return UNKNOWN
    words = []
    for token in match.group(1).split("_"):
        if _SIZE_OR_TYPE.match(token):
            break
        words.append(token)
    kind = "_".join(words)
    if kind in CONTRACTIONS:
        return "matmul_like"
    for family in ("conv", "elementwise", "reduction", "attention", "pooling"):
        if kind.startswith(family):
            return family
    return kind or UNKNOWN


# Words in the names of the ops a dispatch IREE names `conv` or `pooling` can come from: a conv
# or pool of any dialect (`onnx.QLinearConv`, `stablehlo.reduce_window`), the ops that lower to
# windowed loops, and the structured ops that may hold any loop nest (`linalg.generic`).
_WINDOWED = ("conv", "pool", "window", "im2col", "col2im", "unfold", "dft", "fft", "stft", "generic", "linalg_ext", "tm_tensor", "custom")


def may_form(kind: str, op_names: frozenset[str]) -> bool:
    """Whether a program with ops of these names may form a dispatch of `kind`: only a conv or
    pooling dispatch is known to need one of a few ops (IREE names a dispatch after its root op)."""
    if kind not in ("conv", "pooling"):
        return True
    return any(word in name.lower() for name in op_names for word in _WINDOWED)


# Named linalg ops that reduce (their loops include a reduction): a dispatch's root, not an epilogue.
_REDUCING = ("matmul", "conv", "pooling", "reduce", "contract", "mmt4d", "dot", "matvec", "vecmat", "attention", "softmax", "argmax")


def root_op(sources: Path, kernel: str) -> str:
    """The root op of the dispatch exporting `kernel` among dumped executable sources: its first
    reducing linalg (or linalg_ext) op, else its last one; '' when the source is not there."""
    from oracles.mlir import ir as irx  # imported late: the bindings are slow to load

    dispatch = failing_dispatch(sources, [], kernel)
    if dispatch is None:
        return ""
    try:
        module = irx.parse(dispatch.text, irx.new_context(lenient=True))
    except irx.ParseError:
        return ""
    structured = []
    for op in irx.walk_ops(module.operation):
        if not op.name.startswith(("linalg.", "iree_linalg_ext.")) or op.name in ("linalg.yield", "linalg.fill", "linalg.index"):
            continue
        iterators = str(op.attributes["iterator_types"]) if "iterator_types" in op.attributes else ""
        if "reduction" in iterators or any(word in op.name for word in _REDUCING):
            return op.name
        structured.append(op.name)
    return structured[-1] if structured else ""
