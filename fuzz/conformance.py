"""ONNX conformance: the `onnx` package's own backend node tests, run through IREE like a fuzz case.

The fuzzer's reference is our reading of the ONNX spec; the node tests are the ONNX authors'
(model, inputs, expected outputs), so they catch what our reading shares with IREE's. Each test
is imported, compiled for one CPU pipeline, run and compared with the fuzzer's backends and
`compare_outputs`; the outcome is one word, which the expectations file
(`fuzz/expectations.py`) records per test.
"""

from __future__ import annotations

import importlib
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from fuzz.execute import Isolated, backend_for, classify_compile_failure
from fuzz.pipelines import Pipeline, resolve
from fuzz.pool import run_with_isolated_reruns
from oracles import refusals
from oracles.data.arrays import looks_quantized, reduction_length_hint
from oracles.numeric.compare import compare_outputs
from oracles.signature import first_error
from oracles.toolchain.tools import Limits

# The families the run covers, by the op a node test is about. The one place the selection lives.
FAMILIES: dict[str, frozenset[str]] = {
    "conv": frozenset({"Conv", "ConvTranspose", "ConvInteger", "QLinearConv"}),
    "matmul": frozenset({"MatMul", "MatMulInteger", "QLinearMatMul"}),
    "gemm": frozenset({"Gemm"}),
    "quantization": frozenset({"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"}),
}

# Models older than this opset are upgraded by the importer: opsets 10 to 13 often fail to
# legalize as they are (DynamicQuantizeLinear's expansion needs ReduceMin with axes as input).
IMPORT_OPSET = 17
DEFAULT_PIPELINE = "cpu"

PASS, IMPORT_FAIL, COMPILE_FAIL, RUN_FAIL, MISMATCH = "pass", "import-fail", "compile-fail", "run-fail", "mismatch"
OUTCOMES = (PASS, IMPORT_FAIL, COMPILE_FAIL, RUN_FAIL, MISMATCH)

_EXPANDED = re.compile(r"_expanded(?:_ver\d+)?$")  # a test of an op's function body, named after the op's test


@dataclass(frozen=True)
class NodeTest:
    name: str  # also the graph name, which the compiled module exports
    op: str  # the op under test
    family: str
    model: onnx.ModelProto
    inputs: tuple[np.ndarray, ...]
    outputs: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Outcome:
    name: str
    kind: str  # one of OUTCOMES
    detail: str
    seconds: float = 0.0
    backend: str = ""  # "isolated" when a worker died or hung and the test ran again


def family_of(op: str) -> str | None:
    return next((family for family, ops in FAMILIES.items() if op in ops), None)


def _node_test_cases(ops: Iterable[str]) -> list:
    """The onnx TestCases of `ops`: importing their modules takes 0.4 s, collecting all 1,900 about 8 s."""
    import onnx.backend.test.case.node as node_cases

    try:
        for op in ops:  # onnx keeps one module per op, named after it in lower case
            importlib.import_module(f"{node_cases.__name__}.{op.lower()}")
        return list(node_cases._NodeTestCases)
    except (ImportError, AttributeError):  # another layout: collect everything
        return list(node_cases.collect_testcases())


def _array(value: np.ndarray | onnx.TensorProto) -> np.ndarray:
    """Narrow types (float8, int4) come as TensorProto; numpy_helper gives their ml_dtypes array."""
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)


def select_node_tests(families: Iterable[str] = tuple(FAMILIES)) -> list[NodeTest]:
    """Node tests whose op (or, for an `_expanded` test, the op it expands) is in `families`, by name."""
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise ValueError(refusals.UNKNOWN_FAMILY.say(name=unknown[0], valid=", ".join(FAMILIES)))
    wanted = frozenset().union(*(FAMILIES[f] for f in families))
    cases = _node_test_cases(sorted(wanted))
    single_op = {case.name: case.model.graph.node[0].op_type for case in cases if len(case.model.graph.node) == 1}
    tests = []
    for case in cases:
        op = single_op.get(_EXPANDED.sub("", case.name))
        if op not in wanted:
            continue
        inputs, outputs = case.data_sets[0]
        tests.append(
            NodeTest(
                case.name,
                op,
                family_of(op),
                case.model,
                tuple(_array(v) for v in inputs),
                tuple(_array(v) for v in outputs),
            )
        )
    return sorted(tests, key=lambda test: test.name)


def cpu_pipeline(name: str) -> Pipeline:
    """The pipeline by name; a node test must run, so GPU targets (compile only here) are refused."""
    (pipeline,) = resolve([name])
    if pipeline.gpu:
        raise ValueError(refusals.CONFORMANCE_GPU.say(name=name))
    return pipeline


def run_node_test(test: NodeTest, backend: Isolated, pipeline: Pipeline, opset: int = IMPORT_OPSET) -> Outcome:
    """Import, compile, run, compare; never raises for what IREE does (that is the outcome)."""
    start = time.monotonic()

    def outcome(kind: str, detail: str) -> Outcome:
        return Outcome(test.name, kind, " ".join(detail.split())[:300], round(time.monotonic() - start, 2), backend.name)

    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        workdir = Path(tmp)
        mlir, why = backend.import_onnx(test.model, workdir / "import", opset)
        if mlir is None:
            return outcome(IMPORT_FAIL, why)
        vmfb, process = backend.compile(mlir, pipeline.flags, workdir / pipeline.name)
        if vmfb is None:
            kind, signature = classify_compile_failure(process)
            error = first_error(process.stderr)
            return outcome(COMPILE_FAIL, f"{kind}: " + ("error:" + error.split("error:", 1)[1] if "error:" in error else signature))
        outputs = backend.run(vmfb, test.model.graph.name, list(test.inputs), workdir / pipeline.name, pipeline.driver)
        if isinstance(outputs, str):
            return outcome(RUN_FAIL, outputs)
        comparison = compare_outputs(
            test.outputs, outputs, reduction_length=reduction_length_hint(mlir), quantized=looks_quantized(mlir)
        )
        return outcome(PASS if comparison.matches else MISMATCH, comparison.description)


def _work(test: NodeTest, pipeline: str, opset: int, tool_timeout_s: float, isolated: bool = False) -> Outcome:
    limits = Limits(timeout_s=tool_timeout_s)
    backend = backend_for(limits, isolated)
    return run_node_test(test, backend, cpu_pipeline(pipeline), opset)


def run_node_tests(
    tests: list[NodeTest],
    jobs: int = 2,
    pipeline: str = DEFAULT_PIPELINE,
    opset: int = IMPORT_OPSET,
    tool_timeout_s: float = 60.0,
    test_timeout_s: float = 180.0,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> dict[str, Outcome]:
    """Every test's outcome, by name, from warm in-process workers as the campaign runs its cases:
    a worker that dies or a test past `test_timeout_s` costs a pool, and its tests run isolated."""
    cpu_pipeline(pipeline)  # a bad name fails before any work
    outcomes: dict[str, Outcome] = {}

    def finish(outcome: Outcome, ran_again: bool) -> None:
        outcomes[outcome.name] = outcome
        if on_outcome:
            on_outcome(outcome)

    work = partial(_work, pipeline=pipeline, opset=opset, tool_timeout_s=tool_timeout_s)
    run_with_isolated_reruns(work, iter(tests), finish, max(1, jobs), test_timeout_s)
    return outcomes


def outcome_table(tests: list[NodeTest], outcomes: dict[str, Outcome]) -> str:
    """Counts by family and outcome, with a total row: what the README reports."""
    width = max(len(kind) for kind in OUTCOMES)
    rows = [f"{'family':13} {'tests':>5}  " + "  ".join(f"{kind:>{width}}" for kind in OUTCOMES)]
    groups = [(family, [t for t in tests if t.family == family]) for family in FAMILIES] + [("total", tests)]
    for family, members in groups:
        if not members:
            continue
        kinds = [outcomes[t.name].kind for t in members if t.name in outcomes]
        counts = "  ".join(f"{kinds.count(kind):>{width}}" for kind in OUTCOMES)
        rows.append(f"{family:13} {len(members):>5}  {counts}")
    return "\n".join(rows)
