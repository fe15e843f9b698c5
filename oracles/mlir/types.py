"""The one reader of tensor type spellings: builtin (`tensor<2x3xf32>`) and torch
(`!torch.vtensor<[2,3],f32>`), as the bindings print them.

The bindings expose builtin tensor types as objects but torch types only as text, so a torch
type's shape is read here, once, for every module that needs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BUILTIN_TENSOR = re.compile(r"^tensor<(.*)>$")
_TORCH_TENSOR = re.compile(r"^!torch\.v?tensor(?:<\s*\[([^\]]*)\]\s*,\s*([^>]+)>)?$")


@dataclass(frozen=True)
class TensorSpelling:
    """A tensor type read from its text: dims (None for `?` / -1), the element type's name, the dialect.

    `dims` is None for an unranked tensor or a torch tensor without a shape.
    """

    dims: tuple[int | None, ...] | None
    element: str
    torch: bool

    @property
    def static(self) -> bool:
        return self.dims is not None and all(d is not None for d in self.dims)

    def builtin(self) -> str:
        """The builtin spelling of the same shape (`tensor<2x3xf32>`); only for static shapes."""
        return f"tensor<{''.join(f'{d}x' for d in self.dims or ())}{self.element}>"


def read_tensor_type(spelled: str) -> TensorSpelling | None:
    """The tensor type in `spelled`, or None when it is not a tensor type."""
    text = spelled.strip()
    builtin = _BUILTIN_TENSOR.match(text)
    if builtin:
        body = builtin.group(1).split(",", 1)[0].strip()  # drop an encoding, if any
        if body.startswith("*"):
            return TensorSpelling(None, body[1:].lstrip("x").strip(), torch=False)
        *dims, element = body.split("x") if body else [""]
        return TensorSpelling(tuple(None if d == "?" else int(d) for d in dims), element.strip(), torch=False)
    torch = _TORCH_TENSOR.match(text)
    if torch:
        if torch.group(1) is None:
            return TensorSpelling(None, "", torch=True)
        dims = [d.strip() for d in torch.group(1).split(",") if d.strip()]
        return TensorSpelling(tuple(None if d in ("?", "-1") or int(d) < 0 else int(d) for d in dims),
                              torch.group(2).strip(), torch=True)
    return None
