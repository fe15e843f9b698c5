"""The shaped types a shape edit rewrites: builtin ranked tensors and dispatch tensors.

A dispatch tensor (`!iree_tensor_ext.dispatch.tensor<readonly:tensor<64x56xf32>>`, what a
binding subspan of a standalone `hal.executable` returns) has no Python type builder in the
bindings, so it is read and rebuilt through its printed form: access, then a builtin tensor type.
"""

from __future__ import annotations

from iree.compiler import ir

_DISPATCH_PREFIXES = ("!iree_tensor_ext.dispatch.tensor<", "!flow.dispatch.tensor<")


def _dispatch_parts(t: ir.Type) -> tuple[str, str, ir.RankedTensorType] | None:
    """(prefix, access, inner tensor type) of a dispatch tensor type, else None."""
    spelled = str(t)
    prefix = next((p for p in _DISPATCH_PREFIXES if spelled.startswith(p)), None)
    if prefix is None or not spelled.endswith(">") or ":" not in spelled:
        return None
    access, inner = spelled[len(prefix):-1].split(":", 1)
    try:
        return prefix, access, ir.RankedTensorType(ir.Type.parse(inner, t.context))
    except (ValueError, ir.MLIRError):
        return None


def static_shape(t: ir.Type) -> list[int] | None:
    """The shape of a ranked tensor or dispatch tensor type (-1 for a dynamic dim), else None."""
    if isinstance(t, ir.RankedTensorType):
        return [-1 if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)]
    parts = _dispatch_parts(t)
    return static_shape(parts[2]) if parts is not None else None


def with_shape(t: ir.Type, shape: list[int]) -> ir.Type:
    """The same type with another shape (-1: dynamic; element type, encoding and access kept)."""
    if isinstance(t, ir.RankedTensorType):
        dims = [ir.ShapedType.get_dynamic_size() if d < 0 else d for d in shape]
        return ir.RankedTensorType.get(dims, t.element_type, t.encoding)
    parts = _dispatch_parts(t)
    if parts is None:
        raise TypeError(f"not a shaped type a shape edit knows: {t}")
    prefix, access, inner = parts
    return ir.Type.parse(f"{prefix}{access}:{with_shape(inner, shape)}>", t.context)


def elements(shape: list[int]) -> int:
    count = 1
    for size in shape:
        count *= max(size, 0)
    return count
