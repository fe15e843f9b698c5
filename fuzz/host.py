"""The host CPU a `--iree-llvmcpu-target-cpu=host` compile was tuned for, recorded on its findings.

Code compiled for the host uses the instructions this CPU has (AVX-512, VNNI, BF16, AMX ...);
a finding made with it may not reproduce on a machine without them, so it names them.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path

HOST_FLAG = "--iree-llvmcpu-target-cpu=host"
# The ISA extensions CPU codegen (and its microkernels) choose between.
_RELEVANT = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
             "amx_tile", "amx_int8", "amx_bf16", "asimd", "asimdhp", "asimddp", "sve", "sve2", "i8mm", "bf16")  # fmt: skip


def uses_host_cpu(flags: tuple[str, ...] | list[str]) -> bool:
    return HOST_FLAG in flags


@functools.lru_cache(maxsize=1)
def host_cpu_description() -> str:
    """e.g. 'AMD EPYC (x86_64): avx avx2 fma f16c avx512f avx512bw avx512_vnni avx512_bf16'."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "Model", "CPU part") and name in ("", platform.machine(), platform.processor()):
                name = value.strip() or name
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    features = " ".join(f for f in _RELEVANT if f in flags)
    return f"{name} ({platform.machine()})" + (f": {features}" if features else "")
