"""A reduced PyTorch program in the canonical form root causes are keyed by (`fuzz/root_cause.py`).

As for an ONNX graph: each node's op, its tensor operands' element type class (width and kind)
and rank class (the rank only where it decides the lowering: a contraction's operands), the
arguments that tell lowerings apart (a grouped, strided or dilated convolution, a causal flag,
an attention mask and its type, grouped-query heads), and its result's type; the op that
computes a wrong answer (the contraction, else the ops other than casts and views) and the type
it computes in. This module loads without torch; `torch_form` needs it (None where it is absent).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTRACTIONS = frozenset({"linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "convolution", "conv1d", "conv2d",
                          "scaled_dot_product_attention", "_scaled_dot_product_flash_attention_for_cpu"})
_PLUMBING = frozenset({"_to_copy", "to", "view", "_unsafe_view", "reshape", "transpose", "permute", "unsqueeze", "expand",
                       "clone", "contiguous", "slice", "select", "sym_size", "alias", "lift_fresh_copy", "detach"})
_DTYPE_CLASS = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int8": "i8", "uint8": "i8",
                "int16": "i16", "int32": "i32", "int64": "i64", "bool": "i1"}
# Arguments that tell lowerings apart, by position in the op's schema: (op, position) -> what is kept.
_ARGUMENTS = {("convolution", 3): "stride", ("convolution", 5): "dilation", ("convolution", 8): "groups",
              ("convolution", 4): "padding"}


@dataclass(frozen=True)
class ReducedForm:
    """What of a reduced program keys its root cause (an ONNX model is read into the same three)."""

    canonical: str
    computing_op: str
    computing_dtype: str


def torch_form(path: Path) -> ReducedForm | None:
    """The form of the `.pt2` at `path`; None without torch or for an archive it cannot load."""
    from oracles.torch import torch_missing

    if torch_missing() is not None or not path.is_file():
        return None
    from oracles.torch.program import ArchiveError, loaded, nodes, op_name

    try:
        graph_nodes = nodes(loaded(path.read_bytes()))
    except ArchiveError:
        return None
    texts, ops = [], []
    for node in graph_nodes:
        name = op_name(node)
        operands = [_operand(arg, name in CONTRACTIONS) for arg in node.args if hasattr(arg, "meta")]
        texts.append(f"{name}({','.join(operands)})[{','.join(_arguments(name, node))}]->{_dtype(node)}")
        ops.append((name, _dtype(node.args[0]) if node.args and hasattr(node.args[0], "meta") else _dtype(node)))
    chosen = [op for op in ops if op[0] in CONTRACTIONS] or [op for op in ops if op[0] not in _PLUMBING] or ops
    return ReducedForm("; ".join(sorted(texts)), "+".join(sorted({op for op, _ in chosen})),
                       ",".join(sorted({dtype for _, dtype in chosen})))


def _dtype(node) -> str:
    value = node.meta.get("val")
    dtype = getattr(value, "dtype", None)
    return _DTYPE_CLASS.get(str(dtype).removeprefix("torch."), str(dtype).removeprefix("torch.")) if dtype is not None else "?"


def _operand(node, contraction: bool) -> str:
    value = node.meta.get("val")
    rank = len(getattr(value, "shape", ()))
    shape = f"r{rank}" if contraction else "scalar" if rank == 0 else "vector" if rank == 1 else "tensor"
    return f"{_dtype(node)}:{shape}"


def _arguments(name: str, node) -> list[str]:
    """The arguments that tell lowerings apart, reduced as the ONNX form reduces attributes."""
    kept = []
    for (op, position), what in _ARGUMENTS.items():
        if op == name and len(node.args) > position:
            value = node.args[position]
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            kept.append(f"{what}={'1' if all(v == (0 if what == 'padding' else 1) for v in values) else '>1'}")
    if "scaled_dot_product" in name:
        mask = node.args[3] if len(node.args) > 3 else node.kwargs.get("attn_mask")
        kept.append(f"mask={_dtype(mask) if hasattr(mask, 'meta') else 'none'}")
        kept += [f"{key}={node.kwargs[key]}" for key in ("is_causal", "enable_gqa") if node.kwargs.get(key)]
    return kept
