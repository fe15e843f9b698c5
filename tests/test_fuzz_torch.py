"""`fuzz run --frontend torch`: PyTorch programs drawn by seed, exported, judged against PyTorch eager.

The generation tests need no torch (drawing a spec is plain Python); the rest export real
programs with torch.export and skip without it (with the install command); the loop through
IREE, `reduce` and the corpus runs nightly (the real compiler, minutes).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from fuzz.cli import main as fuzz_main
from fuzz.frontends import BOTH, ONNX, TORCH, Schedule
from fuzz.pipelines import PIPELINES
from fuzz.torch_gen.draw import draw_torch_spec
from fuzz.torch_gen.features import TORCH_FEATURES, TORCH_SIDE
from fuzz.torch_gen.spec import TorchSpec
from oracles import refusals
from oracles.torch import INSTALL, torch_missing

NEEDS_TORCH = pytest.mark.skipif(torch_missing() is not None, reason=f"{torch_missing()}")
# Feature groups one program each can exercise together: every feature of the catalogue is in one.
GROUPS = (
    ("sdpa", "causal_mask", "bool_mask", "gqa", "rotary", "bias", "awkward_dims"),
    ("kv_cache", "rotary", "gqa", "dynamic", "bf16"),
    ("views", "rms_norm", "int8_linear", "per_axis", "chain", "f16", "dynamic", "branch_add"),
    ("conv", "groups", "stride", "dilation", "asym_pads", "relu", "clip"),
    ("quant", "per_axis", "matmul", "transpose", "chain"),
    ("conv", "conv1d", "depthwise", "kernel_1x1", "matmul", "broadcast", "chain"),
)


def only(features: tuple[str, ...]) -> dict[str, float]:
    """Swarm chances with `features` on in every case and the rest off."""
    return {f: 1.0 if f in features else 0.0 for f in TORCH_FEATURES}


def first_spec_using(features: tuple[str, ...]) -> TorchSpec:
    """The first seed's draw, under `only(features)`, whose program exercises every one of them."""
    return next(spec for seed in range(5000) if set(features) <= (spec := draw_torch_spec(seed, only(features))).used)


def test_the_same_seed_draws_the_same_program_and_a_spec_replays_from_its_json():
    first = [draw_torch_spec(seed).to_json() for seed in range(60)]
    assert first == [draw_torch_spec(seed).to_json() for seed in range(60)]
    assert len(set(first)) == 60
    assert all(TorchSpec.from_json(text).to_json() == text for text in first)


def test_every_feature_of_the_catalogue_is_reachable_and_the_pytorch_side_ones_are_drawn_by_default():
    used = set().union(*(first_spec_using(group).used for group in GROUPS))
    assert used >= set(TORCH_FEATURES)
    drawn = set().union(*(draw_torch_spec(seed).used for seed in range(200)))
    assert drawn >= set(TORCH_SIDE)


def test_both_front_ends_split_the_time_and_the_onnx_cases_keep_their_seeds():
    schedule = Schedule(BOTH)
    order = []
    for seconds in (1.0, 5.0, 1.0, 1.0, 1.0, 1.0):
        frontend, number = schedule.next()
        order.append((frontend, number))
        schedule.spent(frontend, seconds)
    # ONNX first, then PyTorch; a slow PyTorch case lets the ONNX front end catch up
    assert order == [(ONNX, 0), (TORCH, 0), (ONNX, 1), (ONNX, 2), (ONNX, 3), (ONNX, 4)]
    assert Schedule(ONNX).next() == (ONNX, 0)


def test_without_torch_frontend_torch_is_a_one_line_refusal_with_the_install_command(tmp_path, capsys, monkeypatch):
    from fuzz import frontends

    monkeypatch.setattr(frontends, "torch_missing", lambda: f"torch is not installed: {INSTALL} (torch==2.13.0, the CPU build)")
    for choice in (TORCH, BOTH):
        assert fuzz_main(["run", "--frontend", choice, "--out", str(tmp_path / choice), "--time", "1m", "-q"]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and INSTALL in err
        assert refusals.matching(err.removeprefix("fuzz: error: ")) is refusals.FUZZ_TORCH_MISSING
    assert not (tmp_path / TORCH / "findings.db").exists()


@pytest.fixture(scope="module")
def exported_groups():
    """One exported program per feature group (torch.export, made functional, imported)."""
    from fuzz.torch_gen.export import exported

    return [exported(first_spec_using(group)) for group in GROUPS]


@NEEDS_TORCH
def test_every_feature_exports_and_imports(exported_groups):
    used = set().union(*(made.spec.used for made in exported_groups))
    assert used >= set(TORCH_FEATURES)
    for made in exported_groups:
        assert made.mlir is not None and "func.func @main" in made.mlir, made.import_error
        assert made.archive[:2] == b"PK" and made.spec.ops
    kv = next(made for made in exported_groups if "kv_cache" in made.spec.used)
    assert "util.global" in kv.mlir  # the cache updated in place is a mutable global, as reduce imports it
    dynamic = [made.spec.dynamic for made in exported_groups if made.spec.dynamic is not None]
    assert dynamic and all(len(d.sizes) >= 2 for d in dynamic)


class PlantedEager:
    """A pipeline that is PyTorch again: 'runs' the program eagerly, a half program computed in f32
    and rounded to its type at the end (as a compiler accumulating in f32 does), which differs
    from PyTorch's half kernels by rounding alone."""

    name = "planted-eager"

    def __init__(self, made) -> None:
        self.made = made

    def compile(self, mlir, flags, workdir: Path, shared=None):
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "module.vmfb").write_bytes(b"")
        return workdir / "module.vmfb", None

    def run(self, vmfb, function, inputs, workdir, driver):
        import torch

        from oracles.torch.eager import flat_tensors, to_numpy, to_torch

        module = copy.deepcopy(self.made.module).float()
        values = [to_torch(a) for a in inputs]
        with torch.no_grad():
            outputs = flat_tensors(module(*[v.float() if v.is_floating_point() else v for v in values]))
        kinds = [to_torch(a).dtype for a in self.made.expected[next(iter(self.made.expected))]]
        return [to_numpy(o.to(kind)) for o, kind in zip(outputs, kinds)]


@NEEDS_TORCH
def test_a_planted_comparison_of_eager_against_itself_finds_nothing(exported_groups):
    from fuzz.torch_gen.case import judged_case
    from fuzz.torch_gen.export import exported

    halves = [exported(draw_torch_spec(seed, only(("matmul", "rms_norm", "sdpa", "chain", kind))))
              for seed, kind in ((1, "bf16"), (2, "f16"), (3, "bf16"))]
    judged = 0
    for made in [*exported_groups, *halves]:
        case = judged_case(made, [PIPELINES["cpu"], PIPELINES["cpu-data-tiling"]], PlantedEager(made))
        assert case.findings == [], (made.spec.to_json(), [run.detail for run in case.runs])
        assert all(run.status == "ok" for run in case.runs)
        judged += len(case.runs)
    assert judged >= 2 * (len(GROUPS) + 3)
    assert any(json.loads(made.spec.to_json())["dtype"] != "float32" for made in halves)
    np.testing.assert_equal(len(halves), 3)


def test_the_bf16_linear_the_pytorch_path_fails_on_compiles_through_onnx(tmp_path, iree_compile):
    """The corpus entry fuzz-torch-bf16-linear-bias-convert-bf16-arith-resource fails on the PyTorch
    path only: the same bf16 MatMul + bias through ONNX's importer compiles for the same CPU."""
    import subprocess

    import ml_dtypes
    import onnx
    from onnx import TensorProto, helper

    from oracles.toolchain.tools import find_tool

    def bf16(name: str, values: np.ndarray) -> onnx.TensorProto:
        raw = values.astype(ml_dtypes.bfloat16).view(np.uint16).tobytes()
        return helper.make_tensor(name, TensorProto.BFLOAT16, values.shape, raw, raw=True)

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])], "linear",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2, 2, 1])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2, 2, 2])],
        [bf16("w", np.array([[0.5, -1.25]])), bf16("b", np.array([0.25, 2.0]))])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), tmp_path / "linear.onnx")
    subprocess.run([find_tool("iree-import-onnx"), str(tmp_path / "linear.onnx"), "-o", str(tmp_path / "linear.mlir")], check=True)
    compiled = subprocess.run([iree_compile, *PIPELINES["cpu"].flags, str(tmp_path / "linear.mlir"), "-o", str(tmp_path / "linear.vmfb")],
                              check=False, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    entry = Path(__file__).parent.parent / "corpus" / "entries" / "fuzz-torch-bf16-linear-bias-convert-bf16-arith-resource"
    assert (entry / "repro.pt2").is_file() and json.loads((entry / "entry.json").read_text())["state"] == "reproduces"


@NEEDS_TORCH
@pytest.mark.nightly  # a PyTorch case compiled, its finding reduced with the real compiler: minutes
def test_a_pytorch_finding_is_reduced_kept_as_a_pt2_entry_and_then_known(tmp_path, iree_compile, capsys):
    """Seed 388's first PyTorch case is a bf16 Linear that llvm-cpu fails on: the campaign reduces it
    to one node with its script, keeps a .pt2 corpus entry, and a campaign that knows the project's
    corpus names the root cause after the entry kept from it."""
    common = ["run", "--frontend", "torch", "--seed", "388", "--max-cases", "1", "--pipelines", "cpu", "--targets", "none",
              "-j", "1", "--reduce-jobs", "2", "--time", "20m", "--reduce-budget", "10m", "-q"]
    empty = tmp_path / "no-corpus"
    empty.mkdir()
    assert fuzz_main([*common, "--out", str(tmp_path / "first"), "--corpus", str(empty)]) == 0
    entry = next((tmp_path / "first" / "corpus").iterdir())
    record = json.loads((entry / "entry.json").read_text())
    assert record["input_file"] == "repro.pt2" and record["culprit"]["pass"] == "iree-convert-bf16-arith-to-f32"
    finding = next((tmp_path / "first" / "findings").iterdir())
    assert (finding / "reduced.pt2").is_file() and (finding / "reduced.py").is_file()
    capsys.readouterr()
    assert fuzz_main(["show", str(tmp_path / "first"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["findings"][0]["reduced"]["size"] == 1 and shown["findings"][0]["reduced"]["unit"] == "nodes"
    assert fuzz_main([*common, "--out", str(tmp_path / "second"), "--no-reduce"]) == 0
    assert "fuzz-torch-bf16-linear-bias-convert-bf16-arith-resource" in capsys.readouterr().out
