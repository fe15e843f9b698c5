"""How the compiler configured one dispatch: its codegen pipeline, workgroup size and tile sizes.

An LDS overrun is a configuration the tile heuristics chose; the engineer who fixes it starts
from that configuration. One compile to `executable-configurations` with
`--iree-hal-dump-executable-configurations-to` writes each dispatch as configured; the dispatch
is read with the compiler's bindings (`translation_info` on its function, `lowering_config` on
its root op), not from the printed text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from oracles.base import Oracle
from oracles.candidate import Candidate
from oracles.mlir import ir as irx
from oracles.mlir.locations import failing_dispatch, read_dispatch_source
from oracles.toolchain.flags import without_phase
from oracles.toolchain.tools import compile_candidate, scratch_dir

CONFIGS_DUMP = "--iree-hal-dump-executable-configurations-to"
CONFIG_PHASE = "--compile-to=executable-configurations"
# Tile levels of a GPU lowering config, in the order a reader expects them.
TILE_LEVELS = ("workgroup", "reduction", "partial_reduction", "subgroup", "thread", "lane")


@dataclass
class DispatchConfig:
    """The configuration of one dispatch, as plain data (it goes into corpus entries)."""

    dispatch: str
    pipeline: str
    workgroup_size: list[int] = field(default_factory=list)
    subgroup_size: int = 0
    root_op: str = ""
    tile_sizes: dict[str, list[int]] = field(default_factory=dict)
    lowering_config: str = ""  # the printed attribute, for configs the bindings do not type

    def describe(self) -> str:
        parts = [f"pipeline {self.pipeline}"]
        if self.workgroup_size:
            parts.append(f"workgroup size {self.workgroup_size}")
        if self.subgroup_size:
            parts.append(f"subgroup size {self.subgroup_size}")
        tiles = ", ".join(f"{level} {sizes}" for level, sizes in self.tile_sizes.items())
        if tiles:
            parts.append(f"{self.root_op} tiles: {tiles}")
        elif self.lowering_config:
            parts.append(f"{self.root_op} {self.lowering_config}")
        return "; ".join(parts)


def dispatch_configuration(oracle: Oracle, candidate: Candidate, kernel: str) -> DispatchConfig | None:
    """The configuration the compiler chose for the dispatch exporting `kernel` (one compile),
    or None when no dumped dispatch matches it."""
    flags = [*without_phase(oracle.compile_flags(candidate.flags)), CONFIG_PHASE]
    with scratch_dir() as tmp:
        work = Path(tmp)
        dump = work / "configs"
        compile_candidate(candidate, [*flags, f"{CONFIGS_DUMP}={dump}"], work, oracle.options.limits, "out.mlir")
        files = sorted(dump.glob("*.mlir")) if dump.is_dir() else []
        source = failing_dispatch(dump, [], kernel) if kernel else None
        if source is None and len(files) == 1:
            source = read_dispatch_source(files[0])  # one dispatch: the kernel name was not printed
        if source is None:
            return None
        return read_configuration(source.text, kernel or source.name)


def read_configuration(text: str, dispatch: str) -> DispatchConfig | None:
    """The first configured function of a dumped executable and its root op's lowering config."""
    ctx = irx.new_context()
    try:
        module = irx.parse(text, ctx)
    except irx.ParseError:
        return None
    with ctx:
        ops = list(irx.walk_ops(module.operation))
        func = next((op for op in ops if "translation_info" in op.attributes), None)
        if func is None:
            return None
        config = _translation(func.attributes["translation_info"], dispatch)
        root = next((op for op in irx.walk_ops(func) if "lowering_config" in op.attributes), None)
        if root is not None:
            config.root_op = root.name
            config.tile_sizes, config.lowering_config = _tiles(root.attributes["lowering_config"])
        return config


def _translation(attr, dispatch: str) -> DispatchConfig:
    from iree.compiler.dialects import iree_codegen, iree_gpu

    if not iree_codegen.TranslationInfoAttr.isinstance(attr):
        return DispatchConfig(dispatch, str(attr))
    info = iree_codegen.TranslationInfoAttr(attr)
    pipeline = info.pass_pipeline
    name = str(iree_gpu.PipelineAttr(pipeline).value) if iree_gpu.PipelineAttr.isinstance(pipeline) else str(pipeline)
    return DispatchConfig(dispatch, name.rsplit(".", 1)[-1], list(info.workgroup_size), int(info.subgroup_size or 0))


def _tiles(attr) -> tuple[dict[str, list[int]], str]:
    """Tile sizes per level of a GPU lowering config; other configs come back printed."""
    from iree.compiler import ir
    from iree.compiler.dialects import iree_gpu

    if not iree_gpu.LoweringConfigAttr.isinstance(attr):
        return {}, str(attr)
    entries = ir.DictAttr(iree_gpu.LoweringConfigAttr(attr).attributes)
    tiles = {}
    for level in TILE_LEVELS:
        sizes = entries[level] if level in entries else None  # noqa: SIM401 - a DictAttr, whose get() builds one
        if isinstance(sizes, ir.ArrayAttr):
            tiles[level] = [ir.IntegerAttr(size).value for size in sizes]
    return tiles, ""

