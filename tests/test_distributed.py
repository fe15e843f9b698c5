"""`reduce --scheduler`: oracle calls on a real Dask cluster (loopback) give the local result."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import distributed
import pytest

from fuzz.cli import main as fuzz_main
from reducer.cli import main
from tests.models import torch_chain
from tests.test_reduce import _grep_script


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local


def test_reduction_through_the_cluster_equals_the_local_one(tmp_path, cluster, capsys):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(16, bad_at=11, bad_op="onnx.NoSuchOp"))
    cmd = _grep_script(tmp_path)
    local, remote = tmp_path / "local.mlir", tmp_path / "remote.mlir"
    common = [str(src), "--oracle=script", "--cmd", cmd, "--no-cache", "-q"]
    assert main([*common, "-j", "2", "-o", str(local)]) == 0
    assert main([*common, "--scheduler", cluster.scheduler_address, "-o", str(remote)]) == 0
    assert remote.read_bytes() == local.read_bytes()
    assert "onnx.NoSuchOp" in remote.read_text()
    assert "judge_settled" in task_prefixes(cluster)  # the workers really ran the oracle calls


def test_compiling_oracle_through_the_cluster_equals_the_local_one(tmp_path, cluster, iree_compile):
    # The calibrated compile-error oracle travels to the workers and runs iree-compile there.
    src = tmp_path / "m.mlir"
    src.write_text(torch_chain(4, bad_at=2, bad_op="onnx.NoSuchOp"))
    local, remote = tmp_path / "local.mlir", tmp_path / "remote.mlir"
    passes = "cut-at-value,replace-with-operand,reduce-flags"
    common = [str(src), "--oracle=compile-error", "--passes", passes, "--no-cache", "--no-localize", "-q"]
    cpu = ["--", "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
    assert main([*common, "-j", "2", "-o", str(local), *cpu]) == 0
    assert main([*common, "--scheduler", cluster.scheduler_address, "-o", str(remote), *cpu]) == 0
    assert remote.read_bytes() == local.read_bytes()
    assert "onnx.NoSuchOp" in remote.read_text()


def task_prefixes(cluster) -> set[str]:
    with distributed.Client(cluster.scheduler_address) as client:
        return client.run_on_scheduler(lambda dask_scheduler: set(dask_scheduler.task_prefixes))


def test_a_worker_that_dies_mid_call_does_not_end_the_reduction(tmp_path, cluster):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(8, bad_at=5, bad_op="onnx.NoSuchOp"))
    # The first call that sees no Tanh kills the worker running it (the script's grandparent).
    script = tmp_path / "killer.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'if ! grep -q onnx.Tanh "$1" && mkdir {tmp_path}/killed 2>/dev/null; then\n'
        "  worker=$(awk '{print $4}' /proc/$PPID/stat)\n"
        f"  tr '\\0' ' ' < /proc/$worker/cmdline > {tmp_path}/killed/cmdline\n"
        "  kill -9 $worker\n"
        "fi\n"
        'grep -q "onnx.NoSuchOp" "$1" && grep -q "onnx.Sigmoid" "$1"\n'
    )
    script.chmod(0o755)
    local, remote = tmp_path / "local.mlir", tmp_path / "remote.mlir"
    common = [str(src), "--oracle=script", "--cmd", f"{script} {{}}", "--no-cache", "-q"]
    assert main([*common, "--scheduler", cluster.scheduler_address, "-o", str(remote)]) == 0
    assert "multiprocessing" in (tmp_path / "killed" / "cmdline").read_text()  # a worker process died
    assert main([*common, "-j", "1", "-o", str(local)]) == 0
    assert remote.read_bytes() == local.read_bytes()


def test_fuzz_cases_run_on_the_cluster(tmp_path, cluster, capsys):
    out = tmp_path / "findings"
    args = ["run", "--time", "1m", "--max-cases", "2", "--seed", "7", "--pipelines", "vmvx", "--targets", "none", "--no-reduce"]
    assert fuzz_main([*args, "--out", str(out), "--scheduler", cluster.scheduler_address]) == 0
    assert "fuzz: 2 cases in" in capsys.readouterr().out
    assert "work" in task_prefixes(cluster)  # fuzz.campaign._work ran on the workers
    with sqlite3.connect(out / "findings.db") as db:
        assert db.execute("SELECT cases FROM runs").fetchone() == (2,)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer", *args], check=False, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "address, message",
    [
        ("tcp://127.0.0.1:1", "cannot reach a Dask scheduler at tcp://127.0.0.1:1"),
        ("not-an-address", "--scheduler not-an-address"),
    ],
)
def test_bad_scheduler_address_is_one_line_and_exit_1(tmp_path, address, message):
    src = tmp_path / "x.mlir"
    src.write_text(torch_chain(3, bad_at=1, bad_op="onnx.NoSuchOp"))
    result = run_cli(str(src), "--oracle=script", "--cmd", "true {}", "--scheduler", address)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not (tmp_path / "x.reduced.mlir").exists()


def test_fuzz_with_a_bad_scheduler_is_one_line_and_exit_1(tmp_path, capsys):
    assert fuzz_main(["run", "--max-cases", "1", "--targets", "none", "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fuzz: error: cannot reach a Dask scheduler at tcp://127.0.0.1:1: Connection refused"]
