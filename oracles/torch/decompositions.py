"""How a program is brought to the FX importer: the decompositions of `reduce --torch-import`.

IREE's PyTorch users reach the compiler through iree-turbine: `iree.turbine.aot.export(module,
args=...)` runs `torch.export.export`, then `ExportedProgram.run_decompositions` with its AOT
table (`iree.turbine.aot.decompositions.current_aot_decompositions()`, by default the ops of
`_get_default_decomposition_ops` in iree-turbine's `iree/turbine/dynamo/decompositions.py`, the
same list from its 3.9 release to mid-2026), then the compiler wheel's FX importer. A program
imported without them holds ops IREE's torch lowering does not take, which users never show it:
inference batch norm (`_native_batch_norm_legit_no_training`, three results) fails to legalize
for every target, where the decomposed ResNet compiles. Failures of such ops are the import
path's, not bugs a user meets, so `turbine` (the default) decomposes as iree-turbine does and
`functional` keeps the program as the user wrote it (made functional, nothing decomposed).

The table is ours, not imported: iree-turbine is no dependency (it pins its own compiler). It is
spelled by ATen overload name, grouped by purpose, and resolved against the running torch; a
name this torch lacks is left out, as iree-turbine's `get_decompositions` leaves out an op with
no decomposition. Ops outside the table that torch calls composite (`__and__`, `linear`) stay,
as they do through iree-turbine.
"""

from __future__ import annotations

import functools

import torch
from torch._decomp import get_decompositions
from torch.export import ExportedProgram

from oracles.torch import IMPORTS, TURBINE
from oracles.torch.program import ArchiveError, decomposed, one_line

# iree-turbine's default AOT decompositions, by ATen overload name ("op" for every overload of it).
TURBINE_OPS = (
    # norms: the batch norm of inference and training, layer and group norm
    "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional", "_native_batch_norm_legit",
    "_native_batch_norm_legit.no_stats", "native_layer_norm", "native_group_norm", "norm.ScalarOpt_dim",
    # linear algebra and views
    "t", "addmm", "dot", "squeeze.dims", "unbind.int", "unsafe_split.Tensor", "im2col", "_euclidean_dist",
    # masks, indexing, creation and casts
    "masked_fill.Tensor", "masked_fill.Scalar", "index_copy", "index_copy_", "_unsafe_index.Tensor", "full",
    "linspace.Tensor_Tensor", "lift_fresh_copy.default", "_to_copy",
    # pooling, resampling, activations
    "upsample_bilinear2d.vec", "_adaptive_avg_pool2d", "grid_sampler_2d", "_prelu_kernel", "log_sigmoid_forward",
    "_log_softmax",
    # losses and backward ops (training graphs)
    "soft_margin_loss", "binary_cross_entropy", "nll_loss_forward", "nll_loss_backward", "embedding_dense_backward",
    "native_layer_norm_backward", "slice_backward", "select_backward", "_log_softmax_backward_data",
)


class NotDecomposable(ArchiveError):
    """torch fails to decompose the program as the import asks (one line)."""


def resolved(names: tuple[str, ...]) -> list[object]:
    """The ATen ops (packets or overloads) of `names` this torch has."""
    found = []
    for name in names:
        op_name, _, overload = name.partition(".")
        op = getattr(torch.ops.aten, op_name, None)
        if op is not None and overload:
            op = getattr(op, overload, None)
        if op is not None:
            found.append(op)
    return found


@functools.lru_cache(maxsize=None)
def _table(how: str) -> dict:
    return get_decompositions(resolved(TURBINE_OPS)) if how == TURBINE else {}


def table(how: str) -> dict:
    """The decomposition table of an import (`oracles.torch.IMPORTS`); a copy: callers may change it."""
    if how not in IMPORTS:
        raise ValueError(f"unknown torch import {how!r}: one of {', '.join(IMPORTS)}")
    return dict(_table(how))


def as_imported(program: ExportedProgram, how: str = TURBINE) -> ExportedProgram:
    """The program as `how` brings it to the FX importer: functional, and decomposed by its table
    (`functional`: nothing decomposed). NotDecomposable when torch fails to."""
    try:
        return decomposed(program, table(how))
    except Exception as err:  # noqa: BLE001  (a decomposition raises anything for a program it cannot trace)
        raise NotDecomposable(one_line(err)) from None
