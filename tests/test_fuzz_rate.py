"""What keeps a campaign's cases coming and fully compared: compile stretches shared only where
pipelines compile alike, a crashed worker costing its own case alone, and swarm feedback that
steers away from failures already known."""

from __future__ import annotations

import ctypes
import os

from fuzz.build import build_model
from fuzz.execute import InProcess, run_case
from fuzz.generation.draw import spec_for_seed
from fuzz.generation.features import BASE_PROBABILITY
from fuzz.pipelines import PIPELINES, resolve, shared_stretches
from fuzz.pool import run_with_isolated_reruns
from fuzz.spec import Const, GraphSpec, Node, Tensor, used_features
from fuzz.swarm import FLOOR, SwarmFeedback
from oracles.toolchain.tools import Limits
from oracles.toolchain.warm import compile_in_process

# A dequantized constant weight: global optimization evaluates it at compile time (const-eval).
QDQ_MATMUL = GraphSpec(
    opset=21,
    features=frozenset({"qdq_matmul"}),
    inputs=(Tensor("x", "float32", (3, 8)),),
    consts=(
        Const("w", "int8", (8, 5), "random", low=-8, high=7, seed=1),
        Const("s", "float32", (), "values", (0.5,)),
        Const("z", "int8", (), "values", (1,)),
    ),
    nodes=(
        Node("DequantizeLinear", ("w", "s", "z"), "wd", "float32", (8, 5), role="dq"),
        Node("MatMul", ("x", "wd"), "y", "float32", (3, 5)),
    ),
    outputs=("y",),
)


def test_pipelines_share_the_stretch_their_flags_compile_alike(iree_compile, tmp_path):
    """Data tiling acts from dispatch creation on: with it on, off or unset, the program after
    global optimization (its constants evaluated) is the same, byte for byte, so a case compiles
    it once; a pipeline for another target shares nothing but the `input` phase."""
    stretches = shared_stretches(resolve("cpu,cpu-data-tiling,vmvx"))
    assert set(stretches) == {"cpu", "cpu-data-tiling"} and stretches["cpu"].phase == "global-optimization"
    mlir, _ = InProcess(Limits()).import_onnx(build_model(QDQ_MATMUL), tmp_path / "import")
    source = tmp_path / "input.mlir"
    source.write_text(mlir)
    lowered = []
    for name in ("cpu", "cpu-data-tiling", "cpu-no-data-tiling"):
        out = tmp_path / f"{name}.mlir"
        assert compile_in_process(source, [*PIPELINES[name].flags, "--compile-to=global-optimization"], out)
        lowered.append(out.read_bytes())
    assert lowered[0] == lowered[1] == lowered[2] and b"util.global" in lowered[0]
    result = run_case(5, QDQ_MATMUL, resolve("cpu,cpu-data-tiling,vmvx"), InProcess(Limits()))
    assert [run.status for run in result.runs] == ["ok", "ok", "ok"] and not result.findings


def test_a_stretch_that_fails_is_the_failure_of_every_pipeline_sharing_it(iree_compile, monkeypatch):
    """ConvInteger with asymmetric pads fails to legalize in the target-independent `input`
    phase (a corpus bug): one compile says so for all three pipelines."""
    from fuzz import execute

    spec = spec_for_seed(7000026)
    assert any(n.op == "ConvInteger" for n in spec.nodes) and "asym_pads" in used_features(spec)
    compiles = []
    real = execute.compile_capturing
    monkeypatch.setattr(execute, "compile_capturing", lambda *args: compiles.append(args[1]) or real(*args))
    result = run_case(7000026, spec, resolve("cpu,cpu-data-tiling,vmvx"), InProcess(Limits()))
    assert [run.status for run in result.runs] == ["compile error"] * 3 and len(compiles) == 1
    (finding,) = result.findings
    assert finding.pipeline == "cpu,cpu-data-tiling,vmvx" and "(onnx.ConvInteger)" in finding.signature


def _segfault_on_crash(item: str, isolated: bool = False) -> tuple[str, bool, int]:
    if item == "crash" and not isolated:
        ctypes.string_at(0)  # the worker dies as a compiler crash kills it
    return item, isolated, os.getpid()


def test_a_dead_worker_costs_its_own_item_alone():
    finished: dict[str, tuple[bool, bool, int]] = {}

    def finish(result, again):
        item, isolated, pid = result
        finished[item] = (isolated, again, pid)

    run_with_isolated_reruns(_segfault_on_crash, iter(["a", "b", "crash", "c", "d", "e"]), finish, jobs=2, timeout_s=120)
    assert finished["crash"][:2] == (True, True) and finished["crash"][2] != os.getpid()  # a fresh worker ran it again, isolated
    assert all(finished[item][:2] == (False, False) for item in "abcde")  # the others ran warm
    assert len({finished[item][2] for item in "abcde"}) >= 2


def test_feedback_steers_away_from_a_known_failure_through_what_tells_its_cases_apart():
    """uint8 outputs keep hitting a corpus bug: against the same cases with no failure, uint8
    sinks to the floor, while quant, which every such case has too but so do others, and what
    came with some of them (relu, clip) move no more than the mean-keeping rescale moves all."""
    known = "error: fptoui on vmvx"
    steered, plain = SwarmFeedback(known=[known]), SwarmFeedback()
    for i in range(12):
        for swarm in (steered, plain):
            swarm.observe({"matmul", "bias"} | ({"quant"} if i % 3 else set()), [], set())
        used = {"quant", "uint8", "relu" if i % 2 else "clip"}
        steered.observe(used, [], {known})
        plain.observe(used, [], set())
    assert steered.repeats == 12 and steered.common[known] == {"quant", "uint8"}
    assert steered.p["uint8"] <= 2 * FLOOR and plain.p["uint8"] >= 0.5
    scale = steered.p["matmul"] / plain.p["matmul"]  # untouched by the failure: only the rescale moved it
    assert all(abs(steered.p[f] - scale * plain.p[f]) < 0.02 for f in ("quant", "relu", "clip"))
    off = SwarmFeedback(enabled=False, known=[known])
    off.observe({"uint8"}, [], {known})
    assert off.probabilities() is None and off.repeats == 1


def test_uint8_is_a_knob_that_changes_no_graph_until_feedback_turns_it():
    assert BASE_PROBABILITY["uint8"] == 1.0
    seeds = [s for s in range(60) if "uint8" in used_features(spec_for_seed(s))]
    assert seeds
    off = dict(BASE_PROBABILITY, uint8=0.0)
    for seed in seeds:
        spec = spec_for_seed(seed, off)
        assert "uint8" not in used_features(spec)
        assert not any(n.dtype == "uint8" and n.op in ("QuantizeLinear", "QLinearConv", "QLinearMatMul") for n in spec.nodes)
        build_model(spec)  # still a valid model
