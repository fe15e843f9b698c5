"""`reduce --inputs / --expected-outputs`: wrong answers shown by the user's own data.

Every format is read here (iree-run-module values, flagfiles, .npy, .npz, ONNX test data), every
bad input is one line and exit 1, and on the real compiler: a wrong answer that only the user's
values show is found, survives a cut because the new argument carries the original's value, and
the QLinearMatMul 3-D node test (a wrong answer of IREE 3.13: batched QLinearMatMul ignores the
input zero points) reduces with its own test data, where the tool's seeded values are refused.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracles import Candidate, OracleOptions
from oracles.data.binding import UserArray, UserData, UserDataError, bind, fit
from oracles.data.carried import INTERMEDIATE, unpack
from oracles.inputs.attach import attach
from oracles.inputs.readers import read_sources
from oracles.numeric.miscompile import Miscompile
from oracles.numeric.reference_mismatch import ReferenceMismatch
from reducer.cli import main
from tests.models import linalg_matmul

I32_2X2 = ("x", ((2, 2), np.dtype("int32")))


def _values(data: UserData) -> list[np.ndarray]:
    return [a.value for a in data.inputs]


# --- formats -------------------------------------------------------------------------------------


def test_iree_run_module_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.arange(6, dtype=np.float32).tofile("x.bin")
    np.save("y.npy", np.eye(2, dtype=np.int8))
    data = read_sources(["--input=2x3xf32=@x.bin", "@y.npy", "2x2xi32=1,2,3,4", "2x2xi32=7", "f32=1.5", "y.npy"])
    x, y, inline, splat, scalar, bare = _values(data)
    assert x.shape == (2, 3) and x.dtype == np.float32 and x[1, 2] == 5
    assert y.dtype == np.int8 and np.array_equal(y, np.eye(2))
    assert np.array_equal(inline, [[1, 2], [3, 4]]) and inline.dtype == np.int32
    assert np.array_equal(splat, np.full((2, 2), 7))
    assert scalar.shape == () and scalar == 1.5 and np.array_equal(bare, y)


def test_flagfile_inputs_and_expected_outputs_relative_to_it(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    np.save(suite / "input_0.npy", np.ones((2, 2), np.float32))
    np.save(suite / "output_0.npy", np.full((2, 2), 2, np.float32))
    flagfile = suite / "run_module_io_flags.txt"
    flagfile.write_text("# iree-test-suites style\n--input=@input_0.npy\n--input=2x2xf32=1\n--expected_output=@output_0.npy\n"
                        "--module=x.vmfb\n")
    data = read_sources([str(flagfile)])
    assert [v.shape for v in _values(data)] == [(2, 2), (2, 2)]
    assert [a.value[0, 0] for a in data.expected] == [2.0]
    only_expected = read_sources([], [str(flagfile)])
    assert len(only_expected.expected) == 3  # given as expected outputs, every array is one


def test_npz_binds_by_name_or_by_order(tmp_path):
    np.savez(tmp_path / "named.npz", b=np.zeros(3, np.float32), a=np.ones(2, np.float32))
    np.savez(tmp_path / "ordered.npz", np.ones(2, np.float32), np.zeros(3, np.float32))
    args = [("a", ((2,), np.dtype("float32"))), ("b", ((3,), np.dtype("float32")))]
    for name in ("named.npz", "ordered.npz"):
        bound = bind(read_sources([str(tmp_path / name)]).inputs, args)
        assert bound["a"].tolist() == [1, 1] and bound["b"].tolist() == [0, 0, 0]


def test_onnx_test_data_layout(tmp_path):
    data_set = tmp_path / "test_x" / "test_data_set_0"
    data_set.mkdir(parents=True)
    for i, value in enumerate([np.ones((2,), np.float32), np.arange(3, dtype=np.int64)]):
        (data_set / f"input_{i}.pb").write_bytes(numpy_helper.from_array(value, f"in{i}").SerializeToString())
    (data_set / "output_0.pb").write_bytes(numpy_helper.from_array(np.zeros(2, np.float32), "out").SerializeToString())
    for source in (tmp_path / "test_x", data_set):  # the test's directory or its data set
        data = read_sources([str(source)])
        assert [a.name for a in data.inputs] == ["in0", "in1"] and [a.name for a in data.expected] == ["out"]
    single = read_sources([str(data_set / "input_1.pb")], [str(data_set / "output_0.pb")])
    assert single.inputs[0].value.tolist() == [0, 1, 2] and single.expected[0].name == "out"


def test_expected_outputs_without_inputs_are_refused():
    expected = UserData((), (UserArray(np.zeros((4, 4), np.float32), "out.npy"),))
    with pytest.raises(UserDataError, match="needs the inputs they were computed from"):
        attach(Candidate(MATMUL), expected)


def test_fit_cuts_data_to_a_shrunk_shape_and_keeps_what_it_cannot_cut():
    value = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    assert np.array_equal(fit(value, ((1, 2, 2), np.dtype("int8"))), value[:1, :2, :2])
    assert fit(value, ((2, 3, 4), np.dtype("int8"))) is value or np.array_equal(fit(value, ((2, 3, 4), np.dtype("int8"))), value)
    assert fit(value, ((2, 3, 5), np.dtype("int8"))) is None  # larger: no user value
    assert fit(value, ((2, 3, 4), np.dtype("uint8"))) is None


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arrays, message",
    [
        ([UserArray(np.zeros((2, 3), np.int32), "x.npy")], "argument 'x' expects 2x2xi32; x.npy has shape 2x3"),
        ([UserArray(np.zeros((2, 2), np.float32), "x.npy")], "argument 'x' expects 2x2xi32; x.npy holds float32 elements"),
        ([], "argument 0 'x' (2x2xi32) has no value: 0 given for 1 arguments"),
    ],
)
def test_data_that_does_not_fit_names_the_argument(arrays, message):
    with pytest.raises(UserDataError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        bind(arrays, [I32_2X2])


@pytest.mark.parametrize(
    "write, source, message",
    [
        (None, "missing.npy", "cannot read missing.npy: no such file"),
        (None, "--input=@missing.npy", "cannot read missing.npy: no such file"),
        ("flags.txt", "flags.txt", "unknown flag '--parameters'"),
        (None, "--input=2x2xf32=@raw.bin", "cannot read raw.bin: no such file"),
    ],
)
def test_unreadable_sources_are_one_line(tmp_path, monkeypatch, write, source, message):
    monkeypatch.chdir(tmp_path)
    if write:
        Path(write).write_text("--input=i32=1\n--parameters=model.irpa\n")
    with pytest.raises(UserDataError, match=message):
        read_sources([source])


MATMUL = linalg_matmul(4, 64, 4)


@pytest.mark.parametrize(
    "inputs, message",
    [
        (["a.npy"], "argument 1 'arg1' (64x4xf32) has no value: 1 given for 2 arguments"),
        (["a.npy", "a.npy"], "argument 'arg1' expects 64x4xf32; a.npy has shape 4x64"),
        (["a.npy", "missing.npy"], "cannot read missing.npy: no such file"),
        (["a.npy", "flags.txt"], r"flags.txt:1: unknown flag '--bogus'"),
    ],
)
def test_reduce_refuses_bad_inputs_in_one_line(tmp_path, monkeypatch, capsys, inputs, message):
    monkeypatch.chdir(tmp_path)
    Path("mm.mlir").write_text(MATMUL)
    np.save("a.npy", np.ones((4, 64), np.float32))
    Path("flags.txt").write_text("--bogus=1\n")
    argv = ["mm.mlir", "--oracle=miscompile", "--pipeline-b=--iree-opt-level=O0", "-q", "--no-cache"]
    assert main([*argv, *(f"--inputs={i}" for i in inputs)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


# --- on the real compiler -------------------------------------------------------------------------

LLVM_CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic"]
DEMOTE_BF16 = ["--iree-global-opt-demote-contraction-inputs-type=bf16", "--iree-global-opt-demote-contraction-inputs-operations=matmul"]


def test_miscompile_that_only_the_users_values_show(tmp_path):
    """Demoting matmul inputs to bf16 is exact on the tool's small integers (the pipelines agree)
    and wrong on thirds, which bf16 cannot hold: the user's data shows the difference."""
    oracle = Miscompile(OracleOptions(pipeline_a=LLVM_CPU, pipeline_b=[*LLVM_CPU, *DEMOTE_BF16]))
    seeded = oracle.judge(Candidate(MATMUL))
    assert not seeded.interesting and "agree" in seeded.detail
    rng = np.random.default_rng(1)
    thirds = [UserArray((rng.integers(1, 100, size=s) / 3).astype(np.float32), "user") for s in ((4, 64), (64, 4))]
    verdict = oracle.judge(attach(Candidate(MATMUL), UserData(tuple(thirds))))
    assert verdict.interesting, verdict.detail


def _qlinearmatmul(a_scale_from_abs: bool) -> onnx.ModelProto:
    """QLinearMatMul of 2x2x4 by 2x4x3 int8 (IREE 3.13 ignores the zero points of the batched form);
    with `a_scale_from_abs` its a_scale is Abs(a_scale_raw), which a cut turns into an input."""
    i8, f32 = TensorProto.INT8, TensorProto.FLOAT
    scale = "a_scale_raw" if a_scale_from_abs else "a_scale"
    inputs = [helper.make_tensor_value_info("a", i8, [2, 2, 4]), helper.make_tensor_value_info(scale, f32, [1])]
    nodes = [helper.make_node("Abs", ["a_scale_raw"], ["a_scale"])] if a_scale_from_abs else []
    nodes.append(helper.make_node("QLinearMatMul", ["a", "a_scale", "azp", "b", "bs", "bzp", "ys", "yzp"], ["y"]))
    rng = np.random.default_rng(3)
    initializers = [
        numpy_helper.from_array(np.array([5], np.int8), "azp"),
        numpy_helper.from_array(rng.integers(-60, 60, size=(2, 4, 3)).astype(np.int8), "b"),
        numpy_helper.from_array(np.array([0.02], np.float32), "bs"),
        numpy_helper.from_array(np.array([-3], np.int8), "bzp"),
        numpy_helper.from_array(np.array([0.05], np.float32), "ys"),
        numpy_helper.from_array(np.array([1], np.int8), "yzp"),
    ]
    graph = helper.make_graph(nodes, "qmm", inputs, [helper.make_tensor_value_info("y", i8, [2, 2, 3])], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_a_cut_argument_carries_the_value_the_original_computes(tmp_path):
    """The original's a_scale is Abs of the user's -0.03; once a cut makes a_scale an argument, it
    gets 0.03, the wrong answer stays; with the tool's own value instead the case is lost."""
    a = UserArray(np.random.default_rng(4).integers(-100, 100, size=(2, 2, 4)).astype(np.int8), "a.npy", "a")
    raw = UserArray(np.array([-0.03], np.float32), "s.npy", "a_scale_raw")
    original = attach(Candidate("qmm", (), ".onnx", _qlinearmatmul(True).SerializeToString()), UserData((a, raw)))
    assert unpack(original.data)[INTERMEDIATE + "a_scale"].tolist() == pytest.approx([0.03])
    oracle = ReferenceMismatch(OracleOptions())
    calibration = oracle.judge(original)
    assert calibration.interesting, calibration.detail
    calibrated = oracle.calibrated(calibration)
    cut = original.with_binary("qmm", _qlinearmatmul(False).SerializeToString())
    kept = calibrated.judge(cut)
    assert kept.interesting, kept.detail
    without = tuple((name, array) for name, array in cut.data if not name.startswith(INTERMEDIATE))
    lost = calibrated.judge(cut.__class__(cut.text, cut.flags, cut.suffix, cut.binary, without))
    assert not lost.interesting, lost.detail


def _node_test(name: str, directory: Path) -> Path:
    """Writes an ONNX node test as the backend-test layout: model.onnx and test_data_set_0/."""
    from fuzz.conformance import select_node_tests

    (test,) = [t for t in select_node_tests(["matmul"]) if t.name == name]
    data_set = directory / name / "test_data_set_0"
    data_set.mkdir(parents=True)
    onnx.save(test.model, directory / name / "model.onnx")
    for stem, values, infos in (("input", test.inputs, test.model.graph.input), ("output", test.outputs, test.model.graph.output)):
        for i, (info, value) in enumerate(zip(infos, values)):
            (data_set / f"{stem}_{i}.pb").write_bytes(numpy_helper.from_array(value, info.name).SerializeToString())
    return directory / name


QLINEARMATMUL_3D = ["test_qlinearmatmul_3D_int8_float32", "test_qlinearmatmul_3D_uint8_float32",
                    "test_qlinearmatmul_3D_int8_float16", "test_qlinearmatmul_3D_uint8_float16"]


def _reduce_node_test(name: str, tmp_path: Path, capsys) -> tuple[Path, str]:
    case = _node_test(name, tmp_path)
    out = tmp_path / "out" / "r.onnx"
    out.parent.mkdir()
    code = main([str(case / "model.onnx"), "--oracle=reference-mismatch", "--inputs", str(case / "test_data_set_0"),
                 "-o", str(out), "-j", "2", "-q", "--no-cache"])
    assert code == 0, capsys.readouterr().err
    return out, capsys.readouterr().out


def _check_reduced(out: Path) -> float:
    """The printed `check` line on the written data: exit 0 (IREE still differs); the wrong share."""
    check = subprocess.run([sys.executable, "-m", "oracles.onnx_reference", "check", str(out), "--inputs",
                            str(out.parent / "r.onnx.data" / "test_data_set_0")], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    wrong, total = re.search(r"wrong: output 0 \w+ on (\d+)/(\d+) elements", check.stdout).groups()
    return int(wrong) / int(total)


@pytest.mark.nightly  # 30 s; the user's values by default: test_miscompile_that_only_the_users_values_show
def test_qlinearmatmul_node_test_refused_with_seeded_values_reduces_with_its_data(tmp_path, capsys):
    case = _node_test(QLINEARMATMUL_3D[0], tmp_path / "seeded")
    assert main([str(case / "model.onnx"), "--oracle=reference-mismatch", "-q", "--no-cache", "-o", str(tmp_path / "x.onnx")]) != 0
    assert "scale 'b_scale' is not positive" in capsys.readouterr().err
    out, summary = _reduce_node_test(QLINEARMATMUL_3D[0], tmp_path, capsys)
    assert "--input=@" in summary and "r.onnx.data/test_data_set_0" in summary
    assert (out.parent / "r.onnx.data" / "test_data_set_0" / "input_7.pb").is_file()
    assert _check_reduced(out) >= 0.5


@pytest.mark.nightly
@pytest.mark.parametrize("name", QLINEARMATMUL_3D[1:])
def test_other_qlinearmatmul_3d_node_tests_reduce_with_their_data(tmp_path, capsys, name):
    out, _ = _reduce_node_test(name, tmp_path, capsys)
    assert _check_reduced(out) >= 0.5
