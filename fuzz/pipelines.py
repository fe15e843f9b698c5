"""Named compile pipelines (flag sets) and GPU targets the fuzzer compiles every case through.

CPU pipelines compile and run on the local-task driver and are compared against the reference
and against each other. GPU targets compile without a GPU (a compile failure, crash or LDS
overrun there is a finding); they also run where the runtime has the driver and a device.
"""

from __future__ import annotations

from dataclasses import dataclass

from oracles import refusals
from oracles.toolchain.devices import present_gpu_target
from oracles.toolchain.flags import GENERIC_CPU, PHASES


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
        Pipeline("sm_89", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89"), "CUDA Ada (the newest IREE 3.13 knows)", "cuda", True),
        Pipeline("sm_86", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_86"), "CUDA Ampere (GA10x)", "cuda", True),
        Pipeline("sm_80", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"), "CUDA Ampere", "cuda", True),
        Pipeline("sm_60", ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_60"), "CUDA Pascal", "cuda", True),
        Pipeline("vulkan", ("--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"), "Vulkan SPIR-V (Mali Valhall)", "vulkan", True),
    )
}


def _opt_level_grid() -> list[Pipeline]:
    """What users turn on: `--iree-opt-level` O0..O3 crossed with data tiling and microkernels,
    tuned for the host CPU (its findings record its features: `fuzz.host`)."""
    grid = []
    for level in range(4):
        for tiling in (False, True):
            for ukernels in (False, True):
                name = f"cpu-O{level}" + ("-dt" if tiling else "") + ("-uk" if ukernels else "")
                flags = (
                    *_CPU_HOST,
                    f"--iree-opt-level=O{level}",
                    f"--iree-opt-data-tiling={'true' if tiling else 'false'}",
                    f"--iree-llvmcpu-enable-ukernels={'all' if ukernels else 'none'}",
                )
                what = f"llvm-cpu (host) at O{level}, data tiling {'on' if tiling else 'off'}, microkernels {'all' if ukernels else 'none'}"
                grid.append(Pipeline(name, flags, what))
    return grid


PIPELINES.update({p.name: p for p in _opt_level_grid()})
# Names that stand for several pipelines on the command line.
GROUPS = {"opt-levels": tuple(p.name for p in _opt_level_grid())}
DEFAULT_PIPELINES = ("cpu", "cpu-data-tiling", "vmvx")
# GPU targets compile every case by default: their codegen is where new bugs are (no GPU needed).
DEFAULT_TARGETS: tuple[str, ...] = ("gfx942", "sm_80")


# Flags that change nothing before the phase named: pipelines whose flags differ only in these
# compile alike up to the phase before it, so a case compiles that stretch once for all of them.
# Measured on IREE 3.13 (a test checks it): the `global-optimization` output, constants evaluated,
# is byte-identical with data tiling on, off or unset and with aggressive fusion.
ACTS_FROM = {
    "--iree-opt-data-tiling": "dispatch-creation",
    "--iree-dispatch-creation-enable-aggressive-fusion": "dispatch-creation",
}


@dataclass(frozen=True)
class SharedStretch:
    """A case's compile up to and including `phase` with `flags`, done once for several pipelines."""

    phase: str
    flags: tuple[str, ...]


def shared_stretches(pipelines: list[Pipeline]) -> dict[str, SharedStretch]:
    """For each pipeline that shares its compile's start with another of `pipelines`, the stretch
    they share (pipelines whose flags agree but for `ACTS_FROM` flags share the phases before
    the first one those flags act in)."""
    groups: dict[tuple[str, ...], list[Pipeline]] = {}
    for pipeline in pipelines:
        groups.setdefault(_early_flags(pipeline.flags), []).append(pipeline)
    shared = {}
    for flags, members in groups.items():
        first = min((PHASES.index(_acts_from(f)) for p in members for f in p.flags if _acts_from(f)), default=len(PHASES) - 1)
        if len(members) > 1 and first > 1:  # phases[0] is `input`, which every pipeline shares anyway
            shared.update({p.name: SharedStretch(PHASES[first - 1], flags) for p in members})
    return shared


def _acts_from(flag: str) -> str | None:
    return ACTS_FROM.get(flag.split("=", 1)[0])


def _early_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f for f in flags if _acts_from(f) is None)


# The target name that stands for the GPU present (`fuzz run --targets gpu`).
PRESENT_GPU = "gpu"


def present_gpu_pipeline(drivers: tuple[str, ...]) -> tuple[Pipeline | None, str]:
    """The GPU target of the GPU present among `drivers` (those that see a device), and the line
    that says which and why (oracles/toolchain/devices.py); None and why not when there is none."""
    for driver in drivers:
        target = present_gpu_target(driver)
        if target is None:
            continue
        found = next((p for p in PIPELINES.values() if p.gpu and p.driver == driver and target.flag in p.flags), None)
        if found is not None:
            return found, target.note
        return None, refusals.PRESENT_GPU_HAS_NO_TARGET.say(note=target.note)
    return None, refusals.NO_PRESENT_GPU.say(name=PRESENT_GPU)


def resolve(names: str | list[str]) -> list[Pipeline]:
    """Pipelines by comma-separated name (a group name stands for its pipelines); ValueError
    naming the valid ones."""
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    wanted = [member for n in wanted for member in GROUPS.get(n, (n,))]
    unknown = [n for n in wanted if n not in PIPELINES]
    if unknown:
        raise ValueError(refusals.UNKNOWN_PIPELINE.say(name=unknown[0], valid=", ".join([*PIPELINES, *GROUPS])))
    return [PIPELINES[n] for n in dict.fromkeys(wanted)]
