"""Which GPU the lds-limit oracle compiles for, from the flags a reduction leaves."""

from __future__ import annotations

from oracles.lds import LdsLimit

HIP = "--iree-hal-target-device=hip"


def test_no_target_means_gfx942():
    assert LdsLimit().compile_flags([]) == [HIP, "--iree-rocm-target=gfx942", "--compile-to=hal"]


def test_a_rocm_arch_alone_keeps_its_arch_and_gets_the_hip_device():
    # A corpus entry for gfx1100 whose device flag `reduce` dropped as implied.
    assert LdsLimit().compile_flags(["--iree-rocm-target=gfx1100"]) == [HIP, "--iree-rocm-target=gfx1100", "--compile-to=hal"]


def test_a_named_gpu_device_is_left_alone():
    vulkan = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=rdna3"]
    assert LdsLimit().compile_flags([*vulkan, "--compile-to=flow"]) == [*vulkan, "--compile-to=hal"]
