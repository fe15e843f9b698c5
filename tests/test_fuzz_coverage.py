"""What a case records beyond pass or fail, with the real compiler and runtime: each dispatch's
configuration, LDS use on gfx942, every size of a dynamic dimension, one finding per error, the
host CPU of a host-tuned pipeline; and how findings become root causes."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import onnx
import pytest

from fuzz.build import build_model
from fuzz.execute import (
    LDS_OVERRUN,
    MISMATCH,
    InProcess,
    compile_failure_findings,
    run_case,
)
from fuzz.generation.features import BASE_PROBABILITY
from fuzz.pipelines import GROUPS, PIPELINES, resolve
from fuzz.root_cause import (
    WRONG_ANSWER,
    FailureFacts,
    canonical_form,
    corpus_groups,
    corpus_keys,
    entry_facts,
    root_cause_key,
    target_of,
)
from fuzz.spec import Const, DynamicDim, GraphSpec, Node, Tensor
from fuzz.swarm import SwarmFeedback
from oracles.toolchain.tools import Limits, ProcessResult
from reducer.corpus_entries import load_entries

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "entries"


def f16_matmul(dynamic: bool = False) -> GraphSpec:
    """x[M x 32] in f16 @ W[32 x 16] f16 -> cast to f32; M symbolic when `dynamic`."""
    return GraphSpec(
        opset=21,
        features=frozenset({"matmul", "f16"} | ({"dynamic"} if dynamic else set())),
        inputs=(Tensor("x", "float16", (8, 32)),),
        consts=(Const("w", "float16", (32, 16), "random", low=-2, high=2, seed=3),),
        nodes=(
            Node("MatMul", ("x", "w"), "y", "float16", (8, 16)),
            Node("Cast", ("y",), "z", "float32", (8, 16), (("to", 1),), "cast"),
        ),
        outputs=("z",),
        dynamic=DynamicDim("M", (("x", 0),), (8, 1, 13)) if dynamic else None,
    )


@pytest.mark.parametrize(
    "target, intrinsic",
    [("gfx942", "MFMA_F32_16x16x16_F16"), ("gfx1100", "WMMAR3_F32_16x16x16_F16"), ("sm_80", "NV_MMA_SYNC_F32_16x8x16_F16"), ("vulkan", "-")],
)
def test_f16_matmul_compiles_for_each_gpu_target_and_records_its_configuration(target, intrinsic, iree_compile):
    """What the coverage table counts, per target: the codegen pipeline, the MMA intrinsic (the
    valhall Vulkan target has none), the op kind; ROCm kernels report their LDS."""
    case = run_case(1, f16_matmul(), [PIPELINES[target]], InProcess(Limits(timeout_s=120)))
    (run,) = case.runs
    assert run.status == "compiled" and not case.findings
    (matmul,) = [config for config in run.configs if config[3] == "matmul"]
    assert matmul[0] == target and matmul[1] in ("TileAndFuse", "VectorDistribute", "BaseVectorize") and matmul[2] == intrinsic
    if target.startswith("gfx"):  # operands staged in LDS
        assert any("matmul" in kernel and used > 0 for kernel, used in run.lds.items())


class WrongAtOneSize(InProcess):
    """The real runtime, with one fault injected: results at M=13 come back off by one."""

    def run(self, vmfb, function, inputs, workdir, driver):
        outputs = super().run(vmfb, function, inputs, workdir, driver)
        if not isinstance(outputs, str) and inputs[0].shape[0] == 13:
            outputs = [o + 1 for o in outputs]
        return outputs


def test_dynamic_case_runs_at_every_size_and_a_finding_names_the_size_and_the_host_cpu(iree_compile):
    spec = f16_matmul(dynamic=True)
    model = build_model(spec)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "M"
    host_tuned = PIPELINES["cpu-O2-dt-uk"]  # one of the opt-level grid: target-cpu=host
    good = run_case(2, spec, [PIPELINES["cpu"]], InProcess(Limits(timeout_s=120)))
    assert [r.status for r in good.runs] == ["ok"] and "M=13" in good.runs[0].detail  # ran at every size, the last one 13
    case = run_case(2, spec, [host_tuned], WrongAtOneSize(Limits(timeout_s=120)))
    (finding,) = case.findings
    assert finding.kind == MISMATCH and finding.size == "M=13" and "at M=13" in finding.detail
    assert finding.signature.endswith("[dynamic]")
    assert finding.host_cpu and "(" in finding.host_cpu  # e.g. "AMD EPYC (x86_64): avx avx2 ..."


def test_a_compile_with_several_errors_gives_one_finding_per_error():
    """Codegen compiles dispatches apart: one fails to distribute, another overruns LDS, and the
    errors IREE stacks on top of them (translation failed, ...) name no bug of their own."""
    stderr = "\n".join(  # noqa: FLY002  (one error per line reads better)
        [
            "x.mlir:3:5: error: 'func.func' op failed to distribute",
            "x.mlir:9:7: error: 'func.func' op uses 398848 bytes of shared memory; exceeded the limit of 65536 bytes",
            "x.mlir:1:1: error: failed to run translation of source executable to target executable for backend #hal.executable.target<\"rocm\">",
            "x.mlir:1:1: error: failed to configure executables",
            "x.mlir:3:5: error: 'func.func' op failed to distribute",
        ]
    )
    found = compile_failure_findings("gfx942", ProcessResult(1, "", stderr, 1.0))
    assert [f.kind for f in found] == ["compile error", LDS_OVERRUN]
    assert found[0].signature == "error: 'func.func' op failed to distribute"
    assert found[0].match and "failed to distribute" in found[0].match.replace("\\", "")
    assert "shared memory" in found[1].signature
    printed = 'x.mlir:2:2: error: failed to legalize operation \'arith.extf\' that was explicitly marked illegal: %12 = "arith.extf"(%7) : (f16) -> f32'
    (extf, _) = compile_failure_findings("vmvx", ProcessResult(1, "", printed + "\n" + stderr.splitlines()[0], 1.0))
    assert re.search(extf.match, printed) and "arith.extf" in extf.match.replace("\\", "")  # matches what the compiler printed


def _qlinear_conv(x_shape: tuple[int, ...], w_rows: int, pads: tuple[int, ...]) -> onnx.ModelProto:
    k = len(pads) // 2
    spec = GraphSpec(
        opset=21,
        features=frozenset({"qlinear_conv"}),
        inputs=(Tensor("x", "uint8", x_shape, 0, 255),),
        consts=(
            Const("xs", "float32", (), "values", (0.5,)), Const("xz", "uint8", (), "values", (128,)),
            Const("w", "int8", (w_rows, x_shape[1], *([3] * k)), "random", low=-8, high=7, seed=1),
            Const("ws", "float32", (w_rows,), "splat", (0.25,)), Const("wz", "int8", (w_rows,), "splat", (0,)),
            Const("ys", "float32", (), "values", (2.0,)), Const("yz", "int8", (), "values", (0,)),
        ),
        nodes=(
            Node("QLinearConv", ("x", "xs", "xz", "w", "ws", "wz", "ys", "yz"), "y", "int8", (x_shape[0], w_rows, *x_shape[2:]),
                 (("kernel_shape", (3,) * k), ("pads", pads))),
        ),
        outputs=("y",),
    )
    return build_model(spec)


def test_a_wrong_answer_is_keyed_by_the_op_that_computes_it_and_the_pipeline_that_gets_it_wrong():
    """Two wrong QLinearConvs of different sizes and pads on one pipeline are one root cause; on
    another pipeline, or another failure, they are not."""
    cpu, tiled = PIPELINES["cpu"].flags, PIPELINES["cpu-data-tiling"].flags
    a = root_cause_key(FailureFacts(MISMATCH, "mismatch: QLinearConv", cpu, reduced=_qlinear_conv((1, 4, 8, 8), 8, (1, 1, 1, 1))))
    b = root_cause_key(FailureFacts(MISMATCH, "mismatch: DequantizeLinear+QLinearConv+Relu", cpu,
                                    reduced=_qlinear_conv((2, 2, 5, 7), 3, (0, 1, 1, 0))))
    assert a == b and a.startswith(WRONG_ANSWER) and "QLinearConv in i8" in a and "llvm-cpu on local-task" in a
    assert root_cause_key(FailureFacts(MISMATCH, "mismatch: QLinearConv", tiled, reduced=_qlinear_conv((1, 4, 8, 8), 8, (1, 1, 1, 1)))) != a
    distribute = FailureFacts("compile error", "error: 'func.func' op failed to distribute", PIPELINES["sm_80"].flags,
                              "iree-llvmgpu-vector-distribute", _qlinear_conv((1, 4, 8, 8), 8, (1, 1, 1, 1)))
    assert root_cause_key(distribute).endswith("| sm_80 | pass iree-llvmgpu-vector-distribute | root QLinearConv")


def test_a_compile_error_is_keyed_by_target_pass_and_error_so_another_op_in_front_is_the_same_bug():
    """The corpus's VMVX fptoui entry and a finding whose reduced graph has another op in front:
    one bug, once the failing pass is known; while it is not, the graphs tell them apart."""
    entries = load_entries(CORPUS)
    keys = corpus_keys(entries)
    entry = next(e for e in entries if e.name == "fuzz-vmvx-quantizelinear-uint8-fptoui")
    facts = entry_facts(entry)
    assert facts.failing_pass and target_of(facts.flags) == "vmvx"
    other_graph = _qlinear_conv((1, 4, 8, 8), 8, (1, 1, 1, 1))
    finding = FailureFacts("compile error", entry.signature, PIPELINES["vmvx"].flags, facts.failing_pass, other_graph)
    assert keys[root_cause_key(finding)] in corpus_groups(entries)[root_cause_key(facts)]
    # The QLinearConv entry is the same VMVX fptoui bug through another op: the key says so.
    assert set(corpus_groups(entries)[root_cause_key(facts)]) == {entry.name, "fuzz-vmvx-qlinearconv-uint8-fptoui"}
    unknown_pass = FailureFacts("compile error", entry.signature, PIPELINES["vmvx"].flags, "", other_graph)
    assert root_cause_key(unknown_pass) not in keys
    assert canonical_form(facts.reduced) == "QuantizeLinear(f32:tensor,f32:scalar,i8:scalar)[]->i8"


def test_swarm_feedback_moves_probability_towards_features_that_reach_new_ground():
    swarm = SwarmFeedback()
    mean = sum(swarm.p.values()) / len(swarm.p)
    for i in range(20):  # f16 matmuls keep reaching new configurations; quant cases repeat one
        swarm.observe({"matmul", "f16"}, [("gfx942", "TileAndFuse", f"MFMA_{i}", "matmul")], set())
        swarm.observe({"quant"}, [("cpu", "DoubleTilingExpert", "-", "elementwise")], {"error: fptoui"})
    assert swarm.p["f16"] > BASE_PROBABILITY["f16"] and swarm.p["matmul"] > 0.5 > swarm.p["quant"]
    assert abs(sum(swarm.p.values()) / len(swarm.p) - mean) < 0.02  # weight moves, the mean stays
    plain = SwarmFeedback(enabled=False)
    plain.observe({"matmul"}, [("cpu", "x", "-", "matmul")], set())
    assert plain.probabilities() is None and plain.rewarded == 1


def test_opt_level_grid_and_default_targets():
    grid = resolve("opt-levels")
    assert len(grid) == 16 and {p.name for p in grid} == set(GROUPS["opt-levels"])
    assert Counter(f.split("=")[0] for p in grid for f in p.flags)["--iree-opt-level"] == 16
    assert [p.name for p in resolve("cpu,opt-levels,cpu")][:2] == ["cpu", "cpu-O0"]
    from fuzz.cli import build_parser

    args = build_parser().parse_args(["run"])
    assert set(args.targets.split(",")) >= {"gfx942", "sm_80"}


@pytest.mark.nightly
def test_campaign_with_gpu_targets_names_a_known_root_cause_by_its_reduced_form(tmp_path, iree_compile, capsys):
    """Six cases through the default pipelines and targets (about a minute and a half on 2 cores):
    coverage reaches gfx942 and sm_80, and a finding whose reduction matches a corpus entry's
    repro is known and named."""
    from fuzz.cli import main as fuzz_main
    from fuzz.findings import FindingsDB

    out = tmp_path / "campaign"
    args = ["run", "--max-cases", "6", "--seed", "41", "--out", str(out), "-j", "2", "-q", "--reduce-budget", "40s", "--corpus", str(CORPUS)]
    assert fuzz_main(args) == 0
    printed = capsys.readouterr().out
    assert "| gfx942 | TileAndFuse |" in printed and "| sm_80 |" in printed
    assert "known (fuzz-vmvx-quantizelinear-uint8-fptoui)" in printed
    db = FindingsDB(out / "findings.db")
    (finding,) = db.all()
    assert finding.known_as == "fuzz-vmvx-quantizelinear-uint8-fptoui" and finding.root_cause.startswith("error: failed to legalize")
    assert db.dispatch_counts()
    db.close()


def test_the_readme_example_is_an_lds_overrun_the_compiler_reports(iree_compile):
    """`reduce examples/qdq_conv_lds_overrun.mlir --oracle=lds-limit` (the default mode) has a failure to keep."""
    from oracles import Candidate, OracleOptions, make_oracle

    example = Path(__file__).resolve().parents[1] / "examples" / "qdq_conv_lds_overrun.mlir"
    verdict = make_oracle("lds-limit", OracleOptions()).judge(Candidate(example.read_text()))
    assert verdict.interesting and verdict.metrics["lds_bytes"] == 296320 and verdict.metrics["limit"] == 65536
