"""Compile flags: what a user pastes from a bug report, and the targets oracles add.

A pasted command line carries words that are not flags of the failure (the `iree-compile`
word, the input path, `-o out`, shell redirections) and flags that only dump diagnostics; both
are dropped here so the reducer works on flags that can matter.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

GFX942 = ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942")
GENERIC_CPU = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
)

# Every value `--compile-to=` takes in IREE 3.13, in pipeline order.
PHASES = (
    "input",
    "abi",
    "preprocessing",
    "global-optimization",
    "dispatch-creation",
    "flow",
    "stream",
    "executable-sources",
    "executable-configurations",
    "executable-targets",
    "hal",
    "vm",
    "end",
)
# Flags renamed since older bug reports were written: old prefix -> new prefix.
_RENAMES = {
    "--iree-hip-target=": "--iree-rocm-target=",
}
# Flags that only print or dump: they never change what the compiler does.
_DIAGNOSTIC_PREFIXES = (
    "--mlir-print-ir",
    "--mlir-print-debuginfo",
    "--mlir-print-op-on-diagnostic",
    "--mlir-elide",
    "--mlir-timing",
    "--iree-hal-dump-",
    "--dump-compilation-phases-to",
    "--iree-scheduling-dump-",
)
_SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "2>", "&>", "2>&1", "1>", "<"}
_GPU_DEVICES = ("hip", "rocm", "cuda", "vulkan", "metal")


@dataclass
class PastedCommand:
    flags: list[str]
    dropped: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)


def parse_pasted(words: list[str]) -> PastedCommand:
    """Turns a pasted `iree-compile ...` command line into the flags that may matter."""
    if len(words) == 1 and " " in words[0]:
        words = shlex.split(words[0])
    result = PastedCommand(flags=[])
    tokens = [w for w in words if w != "\\"]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _SHELL_OPERATORS or token.startswith(("2>", "&>", ">")):
            break  # the rest is shell plumbing (redirections, pipes)
        if i == 0 and os.path.basename(token).startswith("iree-compile"):
            result.dropped.append(token)
        elif token == "-o" or token in ("--o", "--output-file"):
            result.dropped.extend(tokens[i : i + 2])
            i += 1
        elif token.startswith(("-o=", "--o=", "--output-file=")) or (token.startswith("-o") and not token.startswith("--")):
            result.dropped.append(token)
        elif not token.startswith("-"):
            result.dropped.append(token)  # the input path
        elif token.startswith(_DIAGNOSTIC_PREFIXES) or token == "--mlir-disable-threading":
            result.dropped.append(token)
        else:
            for old, new in _RENAMES.items():
                if token.startswith(old):
                    renamed = new + token[len(old) :]
                    result.renamed.append((token, renamed))
                    token = renamed
            result.flags.append(token)
        i += 1
    return result


def names_any_target(flags: list[str] | tuple[str, ...]) -> bool:
    return any(f.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")) for f in flags)


def names_gpu_target(flags: list[str] | tuple[str, ...]) -> bool:
    for flag in flags:
        if flag.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")):
            value = flag.split("=", 1)[1]
            if any(value.startswith(device) for device in _GPU_DEVICES):
                return True
    return False


def gpu_backend(flags: list[str] | tuple[str, ...]) -> str:
    """'rocm', 'cuda', 'vulkan' or '' for the GPU the flags target."""
    for flag in flags:
        if flag.startswith(("--iree-hal-target-device=", "--iree-hal-target-backends=")):
            value = flag.split("=", 1)[1]
            if value.startswith(("hip", "rocm")):
                return "rocm"
            for name in ("cuda", "vulkan", "metal"):
                if value.startswith(name):
                    return name
    return ""


def without_phase(flags: list[str] | tuple[str, ...]) -> list[str]:
    """Drops any --compile-to the user gave, for oracles that choose the phase themselves."""
    return [f for f in flags if not f.startswith("--compile-to")]


# Target options that imply their device: what `reduce` leaves once the device flag is dropped.
_IMPLIED_DEVICE = {
    "--iree-hal-local-target-device-backends=": "local",
    "--iree-rocm-target=": "hip",
    "--iree-cuda-target=": "cuda",
    "--iree-vulkan-target=": "vulkan",
}


def implied_device(flags: list[str] | tuple[str, ...]) -> str | None:
    """The device a target option implies (`--iree-rocm-target=gfx1100` -> 'hip'), or None."""
    for flag in flags:
        for prefix, device in _IMPLIED_DEVICE.items():
            if flag.startswith(prefix):
                return device
    return None


def with_device(flags: list[str] | tuple[str, ...], default: tuple[str, ...], accepts=names_any_target) -> list[str]:
    """`flags` with a target: as they are when `accepts` them, with only the device flag when a
    target option implies it (a command that names two targets is no repro), else `default` first."""
    if accepts(flags):
        return list(flags)
    device = implied_device(flags)
    default_device = next((f.split("=", 1)[1] for f in default if f.startswith("--iree-hal-target-device=")), None)
    if device is not None and (device == default_device or accepts([f"--iree-hal-target-device={device}"])):
        return [f"--iree-hal-target-device={device}", *flags]
    return [*default, *flags]


def with_default_target(flags: list[str] | tuple[str, ...], default: tuple[str, ...] = GENERIC_CPU) -> list[str]:
    return with_device(flags, default)
