"""Named compile pipelines (flag sets) and GPU targets the fuzzer compiles every case through.

CPU pipelines compile and run on the local-task driver and are compared against the reference
and against each other. GPU targets compile without a GPU (a compile failure, crash or LDS
overrun there is a finding); they also run where the runtime has the driver and a device.
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles.toolchain.flags import GENERIC_CPU


@dataclass(frozen=True)
class Pipeline:
    name: str
    flags: tuple[str, ...]
    description: str
    driver: str = "local-task"  # runtime driver that runs its output
    gpu: bool = False


_CPU_HOST = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)
_VMVX = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx")

PIPELINES: dict[str, Pipeline] = {
    p.name: p
    for p in (
        Pipeline("cpu", GENERIC_CPU, "llvm-cpu, generic CPU, default flags"),
        Pipeline("cpu-host", _CPU_HOST, "llvm-cpu tuned for this host's CPU"),
        Pipeline("cpu-data-tiling", (*GENERIC_CPU, "--iree-opt-data-tiling=true"), "llvm-cpu with data tiling on"),
        Pipeline("cpu-no-data-tiling", (*GENERIC_CPU, "--iree-opt-data-tiling=false"), "llvm-cpu with data tiling off"),
        Pipeline("cpu-ukernels", (*_CPU_HOST, "--iree-llvmcpu-enable-ukernels=all"), "llvm-cpu (host) with all microkernels"),
        Pipeline("cpu-no-ukernels", (*_CPU_HOST, "--iree-llvmcpu-enable-ukernels=none"), "llvm-cpu (host) without microkernels"),
        Pipeline(
            "cpu-aggressive-fusion",
            (*GENERIC_CPU, "--iree-dispatch-creation-enable-aggressive-fusion"),
            "llvm-cpu with aggressive dispatch fusion",
        ),
        Pipeline("vmvx", _VMVX, "the VMVX reference-like interpreter backend"),
        Pipeline("gfx942", ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"), "ROCm MI300", "hip", True),
        Pipeline("gfx1100", ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx1100"), "ROCm RDNA3", "hip", True),
        Pipeline("sm_80", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"), "CUDA Ampere", "cuda", True),
        Pipeline("sm_60", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_60"), "CUDA Pascal", "cuda", True),
        Pipeline("vulkan", ("--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"), "Vulkan SPIR-V (Mali Valhall)", "vulkan", True),
    )
}
DEFAULT_PIPELINES = ("cpu", "cpu-data-tiling", "vmvx")
DEFAULT_TARGETS: tuple[str, ...] = ()


def resolve(names: str | list[str]) -> list[Pipeline]:
    """Pipelines by comma-separated name; ValueError naming the valid ones."""
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in wanted if n not in PIPELINES]
    if unknown:
        raise ValueError(f"unknown pipeline {unknown[0]!r}; valid: {', '.join(PIPELINES)}")
    return [PIPELINES[n] for n in wanted]
