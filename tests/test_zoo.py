"""Real architectures from `transformers` (tests/zoo.py: tiny configs, random weights) through
`reduce`, as a user of those models meets IREE 3.13.

The default run keeps two (about two minutes on 2 cores): a Mistral (the Llama family: rotary,
grouped-query attention) whose boolean mask constant no CPU compile takes, and a GPT-2 in f16 whose
attention fails for Vulkan; each reduces to the op the error names and ends in a result, never a
traceback. The rest is `nightly`: a ResNet whose eval-mode batch norm is left as a three-result
`torch.operator` when imported with its ops as written (`--torch-import=functional`; the users'
import decomposes it), every architecture exported in f32 and f16, static and dynamic, imported
as `reduce` imports it, written as ONNX, and its compile matrix reduced by bench/zoo.py.

Skipped without the zoo extra (`pip install -e '.[zoo]'`).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is not installed: pip install -e '.[zoo]'")

from tests import zoo  # noqa: E402  (after the skip: it imports torch)

if zoo.missing():
    pytest.skip(zoo.missing(), allow_module_level=True)

from fuzz.pipelines import PIPELINES  # noqa: E402
from oracles.signature import error_signature  # noqa: E402
from tests.test_reduce_torch import ONLINE_ATTENTION, VULKAN, reduce_json, run_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXPECTED_MATRIX = ROOT / "tests" / "data" / "zoo_matrix.json"  # bench/zoo.py --write-matrix, all of the zoo
CPU = list(PIPELINES["cpu"].flags)
BATCH_NORM = "torch.aten._native_batch_norm_legit_no_training"


def reduced(capsys, path: Path, flags: list[str], *options: str) -> dict:
    """`reduce PATH --oracle=compile-error -j 2 --no-cache -- FLAGS`, which must end in a result."""
    code, summary = reduce_json(capsys, str(path), "--oracle=compile-error", "-j", "2", "--no-cache", *options, "--", *flags)
    assert code == 0 and summary["status"] == "reduced", summary
    return summary


def test_a_mistral_export_that_no_cpu_compile_takes_reduces_to_its_mask_constant(tmp_path, iree_compile, capsys):
    archive = zoo.save("mistral", tmp_path / "mistral.pt2")
    summary = reduced(capsys, archive, CPU, "--no-culprit")
    assert summary["original"]["size"] >= 80
    assert summary["reduced"]["size"] <= 2
    assert "torch.vtensor.literal" in summary["failure"]
    assert summary["oracle_calls"] <= 40  # the work it takes; its seconds are bench/zoo.py's
    shown = run_script(Path(summary["files"]["script"]))  # the repro script, run as a user runs it
    assert shown.returncode == 1 and "the failure shows" in shown.stderr
    assert any("torch.vtensor.literal" in error_signature(line) for line in shown.stderr.splitlines() if "error:" in line)


@pytest.mark.nightly
def test_a_resnet_export_whose_batch_norm_stays_an_operator_reduces_to_it(tmp_path, iree_compile, capsys):
    # Imported with the user's ops as written (the users' import decomposes batch norm, and compiles).
    archive = zoo.save("resnet", tmp_path / "resnet.pt2")
    summary = reduced(capsys, archive, CPU, "--no-culprit", "--torch-import=functional")
    assert summary["reduced"]["size"] == 1 and BATCH_NORM in summary["failure"]
    assert Path(summary["files"]["imported"]).read_text().count(BATCH_NORM) == 1
    shown = run_script(Path(summary["files"]["script"]))  # the repro script, run as a user runs it
    assert shown.returncode == 1 and "the failure shows" in shown.stderr
    assert any(BATCH_NORM in error_signature(line) for line in shown.stderr.splitlines() if "error:" in line)


def test_a_gpt2_export_that_fails_for_vulkan_reduces_to_its_attention_node(tmp_path, iree_compile, capsys):
    archive = zoo.save("gpt2", tmp_path / "gpt2.pt2", "f16")
    summary = reduced(capsys, archive, VULKAN, "--no-culprit")
    assert summary["reduced"]["size"] <= 2 and ONLINE_ATTENTION in summary["failure"]
    assert summary["oracle_calls"] <= 60


def test_a_week_of_nights_covers_the_whole_zoo():
    monday = datetime.date(2026, 1, 5)
    week = [todays_share(list(zoo.ARCHITECTURES), monday + datetime.timedelta(days=d)) for d in range(7)]
    assert sorted(sum(week, [])) == sorted(zoo.ARCHITECTURES) and max(map(len, week)) <= 3


# --- nightly: the whole zoo ------------------------------------------------------------------------

@pytest.mark.nightly
@pytest.mark.parametrize("name", sorted(zoo.ARCHITECTURES))
def test_every_architecture_exports_and_imports_as_reduce_imports_it(name, tmp_path):
    """Each variant exports; `reduce` either takes it (the original it starts from) or refuses it in one line."""
    from oracles.torch.program import ArchiveError
    from reducer.graphs.torch_program import normalised

    for dtype in zoo.DTYPES:
        for dynamic in (False, True):
            archive = zoo.save(name, tmp_path / zoo.file_name(name, dtype, dynamic), dtype, dynamic)
            try:
                built = normalised(archive.read_bytes())
            except ArchiveError as err:
                assert "\n" not in str(err)
                continue
            assert built.nodes > 0 and "func.func @main" in built.text


@pytest.mark.nightly
@pytest.mark.parametrize("name", sorted(zoo.ARCHITECTURES))
def test_every_architecture_exports_to_onnx_that_iree_imports(name, tmp_path):
    import onnx

    model = zoo.save_onnx(name, tmp_path / f"{name}.onnx")
    onnx.checker.check_model(onnx.load(model))
    from oracles.toolchain.tools import find_tool

    imported = subprocess.run([find_tool("iree-import-onnx"), str(model), "-o", str(tmp_path / f"{name}.mlir")],
                              capture_output=True, text=True, check=False, timeout=600)
    assert imported.returncode == 0, imported.stderr[-2000:]


def todays_share(names: list[str], today: datetime.date | None = None) -> list[str]:
    """The architectures one night covers: a seventh of them by the weekday, all of them in a week."""
    weekday = (today or datetime.date.today()).weekday()
    return sorted(names)[weekday::7]


@pytest.mark.nightly
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("name", todays_share(list(zoo.ARCHITECTURES)))
def test_the_matrix_of_an_architecture_reduces_every_root_cause_without_a_traceback(name, tmp_path):
    """bench/zoo.py for one model (f32 and f16, static and dynamic, every target, against eager):
    no cell that compiled in the recorded matrix (tests/data/zoo_matrix.json) fails now or fails
    another way, and every reduction ends in a result or a one-line refusal. A share of the zoo a
    night (`todays_share`); after a deliberate change, write the matrix again with
    `python bench/zoo.py --no-reduce --no-eager --write-matrix tests/data/zoo_matrix.json`."""
    argv = [sys.executable, str(ROOT / "bench" / "zoo.py"), "--models", name, "--out", str(tmp_path),
            "--reduce-timeout", "2400", "--expect", str(EXPECTED_MATRIX)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT, timeout=7000)
    assert "REGRESSED" not in done.stdout, [line for line in done.stdout.splitlines() if line.startswith("REGRESSED")]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "TRACEBACK" not in done.stdout and "timed out" not in done.stdout, done.stdout


def test_the_recorded_matrix_covers_every_architecture_and_a_regression_is_caught():
    from bench.zoo import regressions

    recorded = json.loads(EXPECTED_MATRIX.read_text())
    assert {cell.split()[0] for cell in recorded} == set(zoo.ARCHITECTURES)
    compiled = next(cell for cell, outcome in sorted(recorded.items()) if outcome == "ok")
    assert regressions({**recorded, compiled: "unreduced | error: something new"}, recorded) == [
        f"{compiled}: ok -> unreduced | error: something new"]
    assert regressions({**recorded, compiled: "ok"}, recorded) == []
