"""Which runtime device runs a compiled module, whether this machine has it, and which GPU it is.

A module compiled for `--iree-hal-target-device=cuda` runs on the `cuda` driver, `hip` on `hip`,
`vulkan` on `vulkan`, `local` on `local-task`: the numeric oracles, the wrong-op localisation and
the dispatch-level test run each module on the device its compile targets (or the one the user
names), so a wrong answer that only a GPU computes is judged where it is computed. A GPU device
the machine lacks is refused in one line before anything is judged.

The driver probe runs in a child process: creating a driver loads vendor libraries (libcuda,
libamdhip64, the Vulkan loader), and a broken install must cost a missing driver, not the run.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from oracles import refusals
from oracles.toolchain.flags import implied_device

CPU_DEVICE = "local-task"
GPU_DRIVERS = ("cuda", "hip", "vulkan")
ALL_DRIVERS = ("local-task", "local-sync", *GPU_DRIVERS)
# The compile-time device (or old-style backend) each runtime driver runs.
_DRIVER_OF_TARGET = {
    "local": CPU_DEVICE, "llvm-cpu": CPU_DEVICE, "vmvx": CPU_DEVICE, "vmvx-inline": CPU_DEVICE,
    "cuda": "cuda", "hip": "hip", "rocm": "hip", "vulkan": "vulkan", "vulkan-spirv": "vulkan",
}
# What each GPU driver needs, for the refusal's hint.
_HARDWARE = {"cuda": "an NVIDIA GPU and its driver (libcuda)", "hip": "an AMD GPU and ROCm (libamdhip64)",
             "vulkan": "a GPU with a Vulkan driver and the Vulkan loader"}

_PROBE = """
import json, sys
import iree.runtime as rt
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = [str(d.get("name", d)) if isinstance(d, dict) else str(d)
                       for d in rt.get_driver(name).query_available_devices()]
    except Exception as err:
        found[name] = " ".join(str(err).split())
print(json.dumps(found))
"""


def is_gpu(device: str) -> bool:
    return device.split(":", 1)[0] in GPU_DRIVERS


def driver_of(device: str) -> str:
    """'cuda' of 'cuda://0' or 'cuda:0'."""
    return re.split(r"://|:", device, maxsplit=1)[0]


def runtime_device(flags: list[str] | tuple[str, ...]) -> str:
    """The runtime device that runs what `flags` compile (the last target named wins, as in the
    compiler); the CPU's when they name none."""
    target = None
    for flag in flags:
        if flag.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")):
            value = flag.split("=", 1)[1].split(",")[0]
            target = re.split(r"[\[(:]", value, maxsplit=1)[0]
    if target is None:
        target = implied_device(flags) or "local"
    return _DRIVER_OF_TARGET.get(target, CPU_DEVICE)


@functools.cache
def _probe(drivers: tuple[str, ...] = ALL_DRIVERS, timeout_s: float = 60.0) -> dict[str, list[str] | str]:
    """Each driver with the devices it sees (names), or why it does not load; {} when the probe fails."""
    try:
        probe = subprocess.run([sys.executable, "-c", _PROBE, *drivers], capture_output=True, text=True,
                               timeout=timeout_s, check=False)
        return json.loads(probe.stdout.strip().splitlines()[-1]) if probe.returncode == 0 and probe.stdout.strip() else {}
    except (subprocess.TimeoutExpired, json.JSONDecodeError, OSError):
        return {}


def devices_seen() -> dict[str, list[str]]:
    """Each driver that the runtime loads, with the devices it sees (names; [] none); a driver
    that does not load is left out."""
    return {name: found for name, found in _probe().items() if isinstance(found, list)}


def drivers_with_a_device(drivers: tuple[str, ...] = GPU_DRIVERS) -> tuple[str, ...]:
    """The drivers among `drivers` that see at least one device; () when the probe fails."""
    seen = devices_seen()
    return tuple(name for name in drivers if seen.get(name))


def missing_device(device: str) -> str | None:
    """One line when `device` cannot run here (a GPU driver with no device, or no such driver),
    naming what the runtime sees; None when it can. The CPU drivers are always there."""
    driver = driver_of(device)
    if driver not in ALL_DRIVERS:
        return refusals.NO_SUCH_DRIVER.say(device=device, driver=driver, drivers=", ".join(ALL_DRIVERS))
    if not is_gpu(driver):
        return None
    seen = devices_seen()
    if seen.get(driver):
        return None
    present = ", ".join(f"{name} ({', '.join(devs)})" if is_gpu(name) else name for name, devs in seen.items() if devs)
    why = _probe().get(driver)
    state = f"does not load ({_short(why)})" if isinstance(why, str) else "sees no device"
    return refusals.DEVICE_ABSENT.say(driver=driver, state=state, present=present or "nothing", hardware=_HARDWARE[driver])


def _short(error: str) -> str:
    """The runtime's reason without its source location: 'CUDA driver library ... not available'."""
    match = re.search(r"\b[A-Z_]+; ([^:;]*)", error)
    return (match.group(1) if match else error).strip()[:160]


# The CUDA architectures IREE 3.13 has a target for (a test compiles each, and the next, which it lacks).
IREE_CUDA_ARCHS = ("sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89")
_ARCH_FLAG = {"cuda": "--iree-cuda-target", "hip": "--iree-rocm-target"}


@dataclass(frozen=True)
class GpuTarget:
    """The architecture to compile for on the GPU at hand, and the one line that says why."""

    flag: str  # e.g. --iree-cuda-target=sm_89
    note: str


def _nvidia_capabilities() -> list[tuple[str, str]]:
    """(name, 'sm_NN') of each NVIDIA GPU `nvidia-smi` lists; [] without it."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return []
    try:
        out = subprocess.run([tool, "--query-gpu=name,compute_cap", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30, check=False).stdout
    except (subprocess.TimeoutExpired, OSError):
        return []
    found = []
    for line in out.splitlines():
        name, _, cap = line.rpartition(",")
        if re.fullmatch(r"\s*\d+\.\d+\s*", cap):
            found.append((name.strip(), "sm_" + cap.strip().replace(".", "")))
    return found


def cuda_target_for(capability: str, name: str = "the GPU here") -> GpuTarget:
    """The IREE CUDA target for a GPU of `capability` ('sm_90'): its own when IREE knows it, else
    the newest IREE knows below it (PTX is JIT-compiled forward: sm_89 code runs on sm_90)."""
    number = int(capability.removeprefix("sm_"))
    if capability in IREE_CUDA_ARCHS:
        return GpuTarget(f"--iree-cuda-target={capability}", f"compiling for {capability}, the architecture of {name}")
    below = [arch for arch in IREE_CUDA_ARCHS if int(arch.removeprefix("sm_")) <= number]
    chosen = below[-1] if below else IREE_CUDA_ARCHS[0]
    return GpuTarget(f"--iree-cuda-target={chosen}",
                     f"compiling for {chosen}: {name} is {capability}, which this IREE has no target for; "
                     f"its PTX runs there (JIT-compiled by the driver)")


def _amd_architectures() -> list[str]:
    """The gfx names `rocminfo` lists; [] without it."""
    tool = shutil.which("rocminfo")
    if tool is None:
        return []
    try:
        out = subprocess.run([tool], capture_output=True, text=True, timeout=30, check=False).stdout
    except (subprocess.TimeoutExpired, OSError):
        return []
    return list(dict.fromkeys(re.findall(r"\b(gfx[0-9a-f]+)\b", out)))


@functools.cache
def present_gpu_target(driver: str) -> GpuTarget | None:
    """The architecture flag for the GPU of `driver` on this machine, or None when it cannot be
    told (no such GPU, no query tool, or a driver whose targets are not per chip: Vulkan)."""
    if driver == "cuda":
        gpus = _nvidia_capabilities()
        return cuda_target_for(gpus[0][1], f"{gpus[0][0]}") if gpus else None
    if driver == "hip":
        archs = _amd_architectures()
        return GpuTarget(f"--iree-rocm-target={archs[0]}", f"compiling for {archs[0]}, the GPU here") if archs else None
    return None


def with_present_gpu(flags: list[str] | tuple[str, ...]) -> tuple[list[str], str]:
    """`flags` that name a GPU device but no architecture, given the GPU present's (and the line that
    says so); unchanged (and '') otherwise."""
    driver = runtime_device(flags)
    arch_flag = _ARCH_FLAG.get(driver)
    if arch_flag is None or any(f.startswith(arch_flag + "=") for f in flags):
        return list(flags), ""
    target = present_gpu_target(driver)
    if target is None:
        return list(flags), ""
    return [*flags, target.flag], target.note
