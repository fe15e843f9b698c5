"""Which target an oracle compiles for, from the flags a reduction leaves: the printed command names one."""

from __future__ import annotations

from oracles.compiling.compile_failure import CompileError
from oracles.compiling.lds import LdsLimit

HIP = "--iree-hal-target-device=hip"


def test_no_target_means_gfx942():
    assert LdsLimit().compile_flags([]) == [HIP, "--iree-rocm-target=gfx942", "--compile-to=hal"]


def test_a_rocm_arch_alone_keeps_its_arch_and_gets_the_hip_device():
    # A corpus entry for gfx1100 whose device flag `reduce` dropped as implied.
    assert LdsLimit().compile_flags(["--iree-rocm-target=gfx1100"]) == [HIP, "--iree-rocm-target=gfx1100", "--compile-to=hal"]


def test_a_cuda_arch_alone_gets_the_cuda_device_not_gfx942():
    sm80 = "--iree-cuda-target=sm_80"
    assert LdsLimit().compile_flags([sm80]) == ["--iree-hal-target-device=cuda", sm80, "--compile-to=hal"]


def test_a_named_gpu_device_is_left_alone():
    vulkan = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=rdna3"]
    assert LdsLimit().compile_flags([*vulkan, "--compile-to=flow"]) == [*vulkan, "--compile-to=hal"]


def test_a_local_backend_alone_gets_the_local_device_not_a_second_backend():
    # A vmvx finding whose device flag `reduce` dropped: llvm-cpu must not be added beside vmvx.
    vmvx = "--iree-hal-local-target-device-backends=vmvx"
    assert CompileError().compile_flags([vmvx]) == ["--iree-hal-target-device=local", vmvx]
    assert CompileError().compile_flags([]) == [
        "--iree-hal-target-device=local",
        "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=generic",
    ]
