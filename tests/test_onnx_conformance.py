"""The onnx package's backend node tests for conv, matmul, gemm and quantization, through IREE.

Every selected node test is imported, compiled for llvm-cpu, run and compared with the expected
outputs the test ships. It passes, or tests/onnx_conformance_expectations.json lists how it
fails: then it is a strict xfail, and passing (or failing another way) fails with the command
that regenerates the file. The tests run once per session in warm worker processes, so a
compiler crash costs a worker, not pytest.
"""

from __future__ import annotations

import json
import os

import pytest

from fuzz.cli import main as fuzz_main
from fuzz.conformance import FAMILIES, PASS, Outcome, run_node_tests, select_node_tests
from fuzz.expectations import DEFAULT_PATH, REGENERATE, load

NODE_TESTS = select_node_tests()
EXPECTATIONS = load(DEFAULT_PATH)


class NodeTestFailure(Exception):
    """A node test that does not pass; the only failure a listed test's xfail accepts."""


def _param(name: str):
    listed = EXPECTATIONS.outcome_of(name)
    if listed == PASS:
        return pytest.param(name, id=name)
    reason = f"listed as {listed} in {DEFAULT_PATH.name}; if it passes now, regenerate: {REGENERATE}"
    return pytest.param(name, id=name, marks=pytest.mark.xfail(strict=True, raises=NodeTestFailure, reason=reason))


@pytest.fixture(scope="session")
def node_outcomes(request) -> dict[str, Outcome]:
    """The outcomes of the node tests this session selected (-k works), all run at once."""
    wanted = {
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_node_test_conforms" and hasattr(item, "callspec")
    }
    chosen = [test for test in NODE_TESTS if test.name in wanted]
    return run_node_tests(chosen, os.cpu_count() or 1, EXPECTATIONS.pipeline, EXPECTATIONS.opset_version)


@pytest.mark.parametrize("name", [_param(test.name) for test in NODE_TESTS])
def test_node_test_conforms(name: str, node_outcomes: dict[str, Outcome]) -> None:
    outcome, listed = node_outcomes[name], EXPECTATIONS.outcome_of(name)
    if listed != PASS and outcome.kind not in (listed, PASS):
        pytest.fail(f"listed as {listed}, now {outcome.kind}: {outcome.detail}; regenerate: {REGENERATE}")
    if outcome.kind != PASS:
        raise NodeTestFailure(f"{outcome.kind}: {outcome.detail}")


def test_selection_covers_the_four_families_and_the_expectations_name_only_selected_tests() -> None:
    by_family = {family: [t.name for t in NODE_TESTS if t.family == family] for family in FAMILIES}
    assert len(NODE_TESTS) >= 60
    assert all(len(names) >= 10 for names in by_family.values()), {f: len(n) for f, n in by_family.items()}
    assert "test_dynamicquantizelinear_expanded" in by_family["quantization"]  # an op's expansion counts as the op
    assert not [t.name for t in NODE_TESTS if "attention" in t.name]  # MatMul inside attention is not the matmul family
    assert set(EXPECTATIONS.expected) <= {t.name for t in NODE_TESTS}


def test_cli_reports_a_test_not_as_listed_and_rewrites_only_its_entry(tmp_path, capsys) -> None:
    path = tmp_path / "expectations.json"
    path.write_text(json.dumps({"expected_compile_failures": ["test_gemm_alpha"], "expected_mismatches": ["test_matmul_4d_1d"]}))
    assert fuzz_main(["conformance", "-k", "test_gemm_alpha", "--expectations", str(path), "-j", "1"]) == 3
    printed = capsys.readouterr()
    assert "test_gemm_alpha: listed as compile-fail, now pass" in printed.err
    assert "fuzz: 1 ONNX node tests on cpu" in printed.out
    assert fuzz_main(["conformance", "-k", "test_gemm_alpha", "--expectations", str(path), "--update-expectations"]) == 0
    rewritten = json.loads(path.read_text())
    assert rewritten["expected_compile_failures"] == [] and rewritten["expected_mismatches"] == ["test_matmul_4d_1d"]


def test_cli_refuses_a_missing_expectations_file_in_one_line(tmp_path, capsys) -> None:
    assert fuzz_main(["conformance", "--expectations", str(tmp_path / "none.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("fuzz: error:") and "no such expectations file" in err and "\n" not in err


def test_a_test_past_its_time_limit_is_run_again_isolated() -> None:
    (gemm,) = [test for test in NODE_TESTS if test.name == "test_gemm_alpha"]
    outcome = run_node_tests([gemm], jobs=1, test_timeout_s=0.0)["test_gemm_alpha"]
    assert (outcome.kind, outcome.backend) == (PASS, "isolated")
