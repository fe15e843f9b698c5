"""The runtime device a module runs on, on a machine without a GPU: the device options with two
CPU drivers (local-task, local-sync), the refusal for a driver the machine lacks, the GPU target
that follows the GPU present, the triage's choice for a GPU finding, a corpus entry whose device
is absent, and the limits a GPU run is held to. Compiler-backed tests run the real tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fuzz.execute import MISMATCH, CaseResult, Finding, PipelineRun
from fuzz.triage import _request_for, oracles_for
from oracles.base import OracleOptions
from oracles.candidate import Candidate
from oracles.data import run as run_module_file
from oracles.data.run import NONDETERMINISTIC, run_module
from oracles.numeric.miscompile import Miscompile
from oracles.numeric.run_error import RunError
from oracles.toolchain import devices
from oracles.toolchain.devices import (
    IREE_CUDA_ARCHS,
    cuda_target_for,
    missing_device,
    runtime_device,
)
from oracles.toolchain.tool_errors import limit_hit, setup_problem
from oracles.toolchain.tools import Limits, ProcessResult, compile_candidate, run_tool
from reducer.cli import _split_argv
from reducer.corpus_entries import CorpusEntry, absent_device
from tests.test_wrong_value import DEMOTE_BF16, LLVM_CPU, MID_GRAPH

ROOT = Path(__file__).resolve().parent.parent
CUDA_HERE = bool(devices.devices_seen().get("cuda"))

ADD = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.addf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
"""


def test_each_target_runs_on_its_runtime_driver():
    assert runtime_device(["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"]) == "cuda"
    assert runtime_device(["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]) == "hip"
    assert runtime_device(["--iree-rocm-target=gfx1100"]) == "hip"  # the device a target option implies
    assert runtime_device(["--iree-hal-target-backends=vulkan-spirv"]) == "vulkan"
    assert runtime_device(["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"]) == "local-task"
    assert runtime_device([]) == "local-task"  # no target: the generic CPU the oracles default to


def test_the_cpu_drivers_are_always_here_and_an_unknown_one_is_named():
    assert missing_device("local-task") is None and missing_device("local-sync") is None
    assert "no driver 'tpu'" in missing_device("tpu")


@pytest.mark.skipif(CUDA_HERE, reason="this machine has a CUDA device")
def test_a_gpu_device_the_machine_lacks_is_refused_in_one_line_before_anything_runs(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    argv = [sys.executable, "-m", "reducer", str(src), "--oracle=run-error", "--", "--iree-hal-target-device=cuda",
            "--iree-cuda-target=sm_80"]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "the cuda driver" in lines[0] and "local-task" in lines[0], result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "add.reduced.mlir").exists()


def test_a_named_device_runs_every_module_and_is_in_the_reproduce_lines():
    oracle = RunError(OracleOptions(device="local-sync"))
    assert oracle.run_devices(LLVM_CPU) == ["local-sync"]
    assert "iree-run-module --device=local-sync" in oracle.reproduce_command(Candidate(ADD, tuple(LLVM_CPU)), "add.mlir")
    pair = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=["--iree-hal-target-device=cuda"], device_a="local-sync"))
    assert pair.run_devices([]) == ["local-sync", "cuda"]  # B: the device its flags target


def test_a_pipelines_own_flag_overrides_the_same_shared_flag():
    oracle = Miscompile(OracleOptions(pipeline_a=["--iree-opt-data-tiling=true"], pipeline_b=["--iree-opt-data-tiling=false"]))
    shared = [*LLVM_CPU, "--iree-opt-data-tiling=true"]
    flags_b = oracle.pipeline_flags("b", shared)
    assert flags_b[-1] == "--iree-opt-data-tiling=false"  # the compiler takes the last
    gpu = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"]))
    for which in ("a", "b"):  # a device flag adds a device: the pipeline's own target replaces the shared one
        flags = gpu.pipeline_flags(which, shared)
        assert sum(f.startswith("--iree-hal-target-device=") for f in flags) == 1, flags
    assert gpu.run_devices(shared) == ["local-task", "cuda"]


def test_a_single_flag_after_pipeline_a_is_its_value():
    ours, pasted = _split_argv(["x.mlir", "--pipeline-a", "--iree-opt-data-tiling=true", "--pipeline-b", "--iree-opt-level=O0",
                                "--", "--iree-hal-target-device=local"])
    assert ours == ["x.mlir", "--pipeline-a=--iree-opt-data-tiling=true", "--pipeline-b=--iree-opt-level=O0"]
    assert pasted == ["--iree-hal-target-device=local"]


@pytest.mark.nightly  # 35 s; a named device in every module by default: test_a_named_device_runs_every_module_and_is_in_the_reproduce_lines
def test_a_wrong_answer_between_pipelines_on_two_cpu_devices_reduces_as_on_one(tmp_path):
    """Pipeline B on local-sync, A on local-task: the matmul alone is the result, and both the
    reproduce lines and the dispatch-level test run each module on its own device."""
    src = tmp_path / "chain.mlir"
    src.write_text(MID_GRAPH)
    argv = [sys.executable, "-m", "reducer", str(src), "--oracle=miscompile", "-j", "2", "--json", "--no-cache",
            "--pipeline-a", " ".join(LLVM_CPU), "--pipeline-b", " ".join([*LLVM_CPU, *DEMOTE_BF16]), "--device-b", "local-sync"]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["devices"] == ["local-task", "local-sync"]
    assert summary["reduced"]["size"] <= 3 and "linalg.matmul" in (tmp_path / "chain.reduced.mlir").read_text()
    assert "--device=local-task --module=a.vmfb" in summary["reproduce"]
    assert "--device=local-sync --module=b.vmfb" in summary["reproduce"]
    test = summary["wrong_value"]["test"]
    assert test["reproduces"] and summary["test_reproduces"] is True
    assert "iree-run-module --device=local-sync" in test["commands"][1]


def test_a_gpu_mismatch_reduces_as_a_miscompile_of_its_gpu_against_the_cpu_pipeline(tmp_path):
    case = CaseResult(1, "{}", "Conv", runs=[PipelineRun("sm_80", MISMATCH, 1.0), PipelineRun("vmvx", "ok", 1.0),
                                              PipelineRun("cpu", "ok", 1.0)])
    finding = Finding(MISMATCH, "sm_80", "mismatch: Conv", "")
    assert oracles_for(finding, case)[0] == ("miscompile", "vmvx")  # a CPU pipeline that agreed
    request = _request_for(finding, "miscompile", "cpu", tmp_path / "model.onnx", 1, 60.0, [], None)
    options = request.oracle.options
    assert (options.device_a, options.device_b) == ("local-task", "cuda")
    assert "--iree-cuda-target=sm_80" in options.pipeline_b and request.flags == []
    mismatch = _request_for(finding, "reference-mismatch", None, tmp_path / "model.onnx", 1, 60.0, [], None)
    assert mismatch.oracle.options.device == "cuda"


@pytest.mark.skipif(CUDA_HERE, reason="this machine has a CUDA device")
def test_a_corpus_entry_for_an_absent_gpu_names_its_driver(tmp_path):
    entry = CorpusEntry("gpu-only", "miscompile", {"pipeline_a": LLVM_CPU, "pipeline_b": ["--iree-hal-target-device=cuda"],
                                                   "device_b": "cuda"}, [], "reproduces", "3.13.0", "miscompile", "", "", "repro.onnx",
                        devices=["local-task", "cuda"], directory=tmp_path)
    assert "the cuda driver" in absent_device(entry)
    cpu = CorpusEntry("cpu-only", "miscompile", {"pipeline_a": LLVM_CPU, "pipeline_b": LLVM_CPU}, [], "reproduces", "3.13.0", "", "",
                      "", "repro.mlir", directory=tmp_path)
    assert absent_device(cpu) is None


def test_cuda_target_follows_the_gpu_present():
    assert cuda_target_for("sm_86").flag == "--iree-cuda-target=sm_86"
    h200 = cuda_target_for("sm_90", "NVIDIA H200")
    assert h200.flag == "--iree-cuda-target=sm_89" and "sm_90" in h200.note and "NVIDIA H200" in h200.note


def test_iree_knows_exactly_the_cuda_targets_listed(iree_compile, tmp_path):
    """Each listed architecture compiles a dispatch; the next one (sm_90) is missing in this IREE."""
    for arch in (*IREE_CUDA_ARCHS, "sm_90"):
        compiled = compile_candidate(Candidate(ADD), ["--iree-hal-target-device=cuda", f"--iree-cuda-target={arch}"],
                                     tmp_path, Limits(timeout_s=120), f"{arch}.vmfb")
        assert compiled.ok == (arch != "sm_90"), f"{arch}: {compiled.process.stderr[:300]}"


def test_a_run_on_a_gpu_device_is_capped_on_resident_memory_not_address_space():
    grow = [sys.executable, "-c", "import time; x = bytearray(400 * 1024 * 1024); time.sleep(20)"]
    capped = run_tool(grow, Limits(timeout_s=60, memory_cap_mb=100), resident_cap=True)
    assert capped.memory_capped and capped.seconds < 15 and limit_hit(capped) == "memory-cap"
    reserve = [sys.executable, "-c", "import mmap; m = mmap.mmap(-1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)"]
    assert run_tool(reserve, Limits(timeout_s=60, memory_cap_mb=1024), resident_cap=True).returncode == 0  # a driver's reservation
    assert run_tool(reserve, Limits(timeout_s=60, memory_cap_mb=1024)).returncode != 0  # what ulimit -v does to it


def test_a_gpu_out_of_memory_is_rejudged_and_a_driver_that_does_not_load_is_the_tools_doing():
    oom = ProcessResult(1, "", "iree/hal/drivers/cuda/cuda_allocator.c:500: RESOURCE_EXHAUSTED; CUDA driver error "
                                "'CUDA_ERROR_OUT_OF_MEMORY' (2): out of memory", 1.0)
    assert limit_hit(oom) == "device-memory"
    unloadable = ProcessResult(1, "", "c/runtime/src/iree/hal/drivers/cuda/cuda_dynamic_symbols.c:66: UNAVAILABLE; CUDA driver "
                                      "library 'libcuda.so'/'nvcuda.dll' not available; please ensure installed", 1.0)
    assert "the GPU driver does not load" in setup_problem([unloadable], Limits())


def test_an_answer_that_changes_between_two_runs_is_nondeterministic(iree_compile, tmp_path, monkeypatch):
    """The second run's answer is perturbed around the real runtime (a GPU's atomics would do it)."""
    compiled = compile_candidate(Candidate(ADD), LLVM_CPU, tmp_path, Limits(timeout_s=120), "add.vmfb")
    inputs = [np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32)]
    assert np.allclose(run_module(compiled.output, "main", inputs, tmp_path, twice=True)[0], [1, 2, 3, 4])
    real, runs = run_module_file._run_once, []

    def second_differs(*args, **kwargs):
        runs.append(1)
        got = real(*args, **kwargs)
        return got if len(runs) == 1 else [got[0] + np.float32(1)]

    monkeypatch.setattr(run_module_file, "_run_once", second_differs)
    found = run_module(compiled.output, "main", inputs, tmp_path, twice=True)
    assert isinstance(found, str) and found.startswith(NONDETERMINISTIC) and "4 of 4 elements" in found


@pytest.mark.nightly  # 10 s, 25 s beside other tests: a benchmark's dry run, no GPU here
def test_the_gpu_check_dry_run_prints_its_table(tmp_path):
    out = tmp_path / "table.json"
    argv = [sys.executable, str(ROOT / "bench" / "gpu_check.py"), "--dry-run", "--time", "60", "--max-cases", "6", "-j", "2",
            "--out", str(tmp_path / "campaign"), "--json-out", str(out)]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "wrong answers only cpu-data-tiling computes on local-sync" in result.stdout
    record = json.loads(out.read_text())
    assert record["cases"] == 6 and record["driver"] == "local-sync"
