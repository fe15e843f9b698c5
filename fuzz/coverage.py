"""Coverage the compiler reports: each dispatch's codegen configuration, read from its dumps.

Every pipeline compile of a case dumps the executable configurations
(`--iree-hal-dump-executable-configurations-to`): one `hal.executable` per dispatch after the
backend chose how to lower it. From each we read the dispatch's codegen pipeline (its
`translation_info`), the MMA intrinsic its root op was given (`mma_kind`, GPU targets) and its op
kind (the compiler's own dispatch name: `matmul_like`, `conv`, `elementwise`, ...). With the
target that compiled it, that is one `DispatchConfig`: what a campaign reached, counted, and fed
back into swarm testing. ROCm compiles also dump their kernels, from which each dispatch's
workgroup (LDS) memory is read (`oracles.compiling.lds.measured_lds`); CUDA kernels declare
their shared memory dynamic, sized at launch, so their PTX does not show it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from oracles.compiling.lds import measured_lds
from oracles.mlir import ir as irx
from oracles.toolchain.flags import gpu_backend

CONFIG_DIR, KERNEL_DIR = "configs", "kernels"
NO_INTRINSIC = "-"
_PIPELINE = re.compile(r"pipeline\s*=\s*#?([\w.]+)(?:<(\w+)>)?")
_MMA = re.compile(r"(?:mma_kind|intrinsic)\s*=\s*#iree_gpu\.\w+<(\w+)")
_DISPATCH_NAME = re.compile(r"_dispatch_\d+_(\w+)")


class DispatchConfig(NamedTuple):
    target: str  # the fuzz pipeline or GPU target that compiled it
    codegen: str  # translation_info's pipeline, e.g. TileAndFuse, DoubleTilingExpert
    intrinsic: str  # the MMA intrinsic (MFMA_F32_16x16x16_F16, WMMA..., MMA_...), or "-"
    op_kind: str  # matmul_like, conv, elementwise, ...


def dump_flags(workdir: Path, flags: tuple[str, ...] | list[str]) -> list[str]:
    """The flags that dump a compile's configurations (and, on ROCm, its kernels)."""
    out = [f"--iree-hal-dump-executable-configurations-to={workdir / CONFIG_DIR}"]
    backend = gpu_backend(flags)
    if backend == "rocm":
        out.append(f"--iree-hal-dump-executable-intermediates-to={workdir / KERNEL_DIR}")
    return out  # CUDA kernels take their shared memory dynamically, sized at launch: PTX does not say


def read_configurations(workdir: Path, target: str) -> list[DispatchConfig]:
    """One `DispatchConfig` per dumped executable with a translation_info; [] when none were dumped."""
    configs = []
    paths = sorted((workdir / CONFIG_DIR).glob("*.mlir"))
    context = _READING.get() if paths else None
    for path in paths:
        try:
            module = irx.parse(path.read_text(errors="replace"), context, source_name=path.name)
        except irx.ParseError:
            continue
        configs.extend(_configs_of(module, target))
    return configs


class _SharedContext:
    """A lenient MLIR context shared by up to `uses` reads: one costs more to create than a dump
    costs to parse (about 10 ms against 1), and a fresh one now and then bounds what it interns."""

    def __init__(self, uses: int) -> None:
        self._uses, self._context, self._served = uses, None, 0

    def get(self):
        if self._context is None or self._served >= self._uses:
            self._context, self._served = irx.new_context(lenient=True), 0
        self._served += 1
        return self._context


_READING = _SharedContext(200)


def _configs_of(module, target: str) -> list[DispatchConfig]:
    found = []
    for op in irx.walk_ops(module.operation):
        if "translation_info" not in op.attributes or op.name not in irx.FUNCTION_OPS:
            continue
        info = str(op.attributes["translation_info"])
        pipeline = _PIPELINE.search(info)
        codegen = (pipeline.group(2) or pipeline.group(1).rsplit(".", 1)[-1]) if pipeline else "none"
        name = str(op.attributes["sym_name"]).strip('"') if "sym_name" in op.attributes else ""
        intrinsic = _MMA.search(info)
        for inner in irx.walk_ops(op):
            if intrinsic is None and "lowering_config" in inner.attributes:
                intrinsic = _MMA.search(str(inner.attributes["lowering_config"]))
        kind = _op_kind(name)
        found.append(
            DispatchConfig(
                target,
                codegen,
                intrinsic.group(1) if intrinsic else NO_INTRINSIC,
                kind,
            )
        )
    return found


def _op_kind(dispatch: str) -> str:
    """The compiler's own classification in a dispatch's name: `..._dispatch_2_matmul_like_Dx8_f16`
    -> matmul_like (the words before the first shape or type)."""
    match = _DISPATCH_NAME.search(dispatch)
    words = []
    for word in (match.group(1) if match else dispatch.lstrip("_")).split("_"):
        if not re.fullmatch(r"[a-z]+", word):
            break
        words.append(word)
    return "_".join(words) or "unknown"


def shared_memory(workdir: Path) -> dict[str, int]:
    """Workgroup memory bytes of each kernel a GPU compile dumped (ROCm metadata, PTX `.shared`)."""
    return measured_lds(workdir / KERNEL_DIR) if (workdir / KERNEL_DIR).is_dir() else {}


def coverage_table(configs: Counter) -> str:
    """Targets x codegen pipelines x intrinsics reached, with the dispatches and op kinds of each."""
    grouped: dict[tuple[str, str, str], Counter] = {}
    for config, count in configs.items():
        grouped.setdefault((config.target, config.codegen, config.intrinsic), Counter())[config.op_kind] += count
    lines = ["| target | codegen pipeline | intrinsic | dispatches | op kinds |", "|---|---|---|---|---|"]
    for (target, codegen, intrinsic), kinds in sorted(grouped.items()):
        shown = ", ".join(f"{kind} {n}" for kind, n in kinds.most_common())
        lines.append(f"| {target} | {codegen} | {intrinsic} | {sum(kinds.values())} | {shown} |")
    return "\n".join(lines)
