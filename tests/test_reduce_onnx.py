"""`reduce model.onnx`: the reducer edits the ONNX graph; every candidate is imported, then compiled.

Real `iree-import-onnx` and `iree-compile` throughout; the models are built here with onnx.helper.
The failing op is `Det` on a batched (rank-4) input: IREE 3.13 lowers it to a linalg.generic
that fails verification ("expected operand #0 rank (4) to match the result rank of indexing_map
(2)") for the CPU target, deterministically and within a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracles import make_oracle
from oracles.candidate import Candidate
from oracles.mlir import ir as irx
from oracles.onnx.importer import ImportedOnnx, import_in_process
from oracles.toolchain.tools import find_tool
from reducer.cli import main
from reducer.graphs import onnx_model
from reducer.passes.mlir.attributes import DropAttributes
from reducer.passes.onnx.drop_attributes import OnnxDropAttributes
from reducer.passes.onnx.remove_nodes import OnnxRemoveNodes
from reducer.passes.onnx.simplify_initializers import OnnxSimplifyInitializers
from reducer.passes.support.onnx_edit import onnx_proposal

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
DET_ERROR = "'linalg.generic' op expected operand #0 rank (4) to match the result rank of indexing_map (2)"


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "net", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def conv_det_network(blocks: int = 10, tail: int = 19, shape=(1, 2, 4, 4)) -> onnx.ModelProto:
    """`blocks` x (Conv, Relu, residual Add) with initializer weights, one Det, then `tail` Relu/Add.

    50 nodes at the defaults; the Det (node 31) is the one IREE rejects.
    """
    rng = np.random.RandomState(0)
    n, c, _, _ = shape
    nodes, weights = [], []
    value = "x"
    for i in range(blocks):
        weights.append(numpy_helper.from_array(rng.rand(c, c, 3, 3).astype(np.float32), f"w{i}"))
        weights.append(numpy_helper.from_array(rng.rand(c).astype(np.float32), f"b{i}"))
        nodes.append(helper.make_node("Conv", [value, f"w{i}", f"b{i}"], [f"conv{i}"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
        nodes.append(helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"]))
        nodes.append(helper.make_node("Add", [f"relu{i}", value], [f"add{i}"]))
        value = f"add{i}"
    nodes.append(helper.make_node("Det", [value], ["det"]))
    value = "det"
    for i in range(tail):
        if i % 2:
            weights.append(numpy_helper.from_array(rng.rand(n, c).astype(np.float32), f"k{i}"))
            nodes.append(helper.make_node("Add", [value, f"k{i}"], [f"t{i}"]))
        else:
            nodes.append(helper.make_node("Relu", [value], [f"t{i}"]))
        value = f"t{i}"
    model = _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info(value, TensorProto.FLOAT, [n, c])],
        weights,
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def nodes_in(path: Path) -> int:
    return onnx_model.node_count(onnx.load(path))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer", *args], check=False, capture_output=True, text=True)


def test_fifty_node_network_reduces_to_the_det_with_the_same_signature(tmp_path, iree_compile, capsys):
    src = tmp_path / "model.onnx"
    onnx.save(conv_det_network(), src)
    original = src.read_bytes()
    assert nodes_in(src) == 50
    report = tmp_path / "bug.md"

    assert main([str(src), "--oracle=compile-error", "-j", "2", "-q", "--report", str(report)]) == 0

    out, mlir = tmp_path / "model.reduced.onnx", tmp_path / "model.reduced.mlir"
    assert src.read_bytes() == original  # the input is never modified
    reduced = onnx.load(out)
    onnx.checker.check_model(reduced, full_check=True)
    assert onnx_model.node_count(reduced) <= 3
    assert "Det" in [node.op_type for node in reduced.graph.node]
    assert mlir.exists() and '"onnx.Det"' in mlir.read_text()
    printed = capsys.readouterr().out
    assert "nodes         50 -> " in printed
    assert f"model.reduced.mlir:4:10: error: {DET_ERROR}" in printed
    assert "iree-import-onnx" in printed and str(mlir) in printed
    text = report.read_text()
    assert '"onnx.Det"' in text and DET_ERROR in text and "Imported with `iree-import-onnx`" in text

    # Same normalised signature as the original, seen by a fresh (uncalibrated) oracle.
    oracle = ImportedOnnx(make_oracle("compile-error"))
    before = oracle.judge(Candidate("original", (), ".onnx", original))
    after = oracle.judge(Candidate("reduced", (), ".onnx", out.read_bytes()))
    assert before.interesting and after.interesting
    assert before.signature == after.signature and "linalg.generic" in after.signature


@pytest.mark.parametrize(
    "content, message",
    [
        (b"garbage\x00\xff\x01", "cannot parse the protobuf"),
        (None, "Nodes in a graph must be topologically sorted, however input 'q' of node"),
    ],
)
def test_invalid_onnx_file_is_one_line_without_traceback(tmp_path, content, message):
    src = tmp_path / "bad.onnx"
    if content is None:  # a well-formed protobuf the checker rejects: a node reads an undefined tensor
        vector = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
        onnx.save(_model([helper.make_node("Relu", ["q"], ["y"])], [vector], [y]), src)
    else:
        src.write_bytes(content)
    result = run_cli(str(src), "--oracle=compile-error")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"reduce: error: {src}: invalid ONNX model: ")
    assert message in lines[0]
    assert not (tmp_path / "bad.reduced.onnx").exists()


def test_onnx_model_that_compiles_exits_2_saying_what_the_oracle_saw(tmp_path, iree_compile):
    src = tmp_path / "fine.onnx"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    onnx.save(_model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])], [x], [y]), src)
    result = run_cli(str(src), "--oracle=compile-error")
    assert result.returncode == 2
    assert "not interesting for compile-error: compiles fine" in result.stderr
    assert "Traceback" not in result.stderr


def test_import_failure_is_reduced_as_an_import_failure(tmp_path, capsys):
    """A Constant with a sparse value: the checker accepts it, iree-import-onnx does not."""
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0], np.float32), "v"), numpy_helper.from_array(np.array([2], np.int64), "i"), [4]
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Constant", [], ["c"], sparse_value=sparse),
        helper.make_node("Add", ["r", "c"], ["s"]),
        helper.make_node("Neg", ["s"], ["y"]),
    ]
    vector = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [4]) for name in ("x", "y")]
    src = tmp_path / "sparse.onnx"
    onnx.save(_model(nodes, vector[:1], vector[1:]), src)

    assert main([str(src), "--oracle=compile-error", "-j", "2", "-q"]) == 0

    reduced = onnx.load(tmp_path / "sparse.reduced.onnx")
    assert onnx_model.node_count(reduced) < 4
    assert "Constant" in [node.op_type for node in reduced.graph.node]
    printed = capsys.readouterr().out
    assert "iree-import-onnx fails: iree.compiler.extras.onnx_importer.OnnxImportError" in printed
    assert not (tmp_path / "sparse.reduced.mlir").exists()  # nothing imports, so no MLIR to write


def test_graph_passes_keep_models_valid_and_smaller():
    """No compiler: the edits themselves (types of new inputs, zeros, schema-required attributes)."""
    current = onnx_proposal(onnx_model.serialise(conv_det_network(blocks=2, tail=2)))

    removed = OnnxRemoveNodes().apply(current, [5], None)  # the last residual Add: its output becomes an input
    model = onnx.load_from_string(removed.candidate.binary)
    assert [node.op_type for node in model.graph.node] == ["Det", "Relu", "Add"]  # what only fed it is gone
    assert [i.name for i in model.graph.input] == ["add1"] and len(model.graph.initializer) == 1
    new_input = model.graph.input[0]
    assert [d.dim_value for d in new_input.type.tensor_type.shape.dim] == [1, 2, 4, 4]

    zeroing = OnnxSimplifyInitializers()
    zeroed = zeroing.apply(current, range(zeroing.count(current, None)), None)
    assert zeroed.ops == current.ops and zeroed.cost < current.cost
    assert zeroing.count(zeroed, None) == 0
    weights = onnx.load_from_string(zeroed.candidate.binary).graph.initializer
    assert all(t.raw_data == bytes(len(t.raw_data)) and len(t.raw_data) > 0 for t in weights)

    dropping = OnnxDropAttributes()
    names = [attr for _, attr in dropping.targets(onnx.load_from_string(current.candidate.binary))]
    assert sorted(set(names)) == ["kernel_shape", "pads"]  # optional for Conv
    pads = names.index("pads")
    with pytest.raises(onnx_model.OnnxLoadError):  # 4x4 -> 2x2 breaks the residual Add: the checker rejects it
        dropping.apply(current, [pads], None)
    assert dropping.apply(current, [names.index("kernel_shape")], None) is not None


def test_imported_network_reduces_as_mlir_to_the_det_with_minimal_shapes(tmp_path, iree_compile, capsys):
    """The same network through iree-import-onnx, reduced as torch-dialect MLIR: ops and shapes."""
    onnx.save(conv_det_network(), tmp_path / "net.onnx")
    src = tmp_path / "net.mlir"
    subprocess.run([find_tool("iree-import-onnx"), str(tmp_path / "net.onnx"), "-o", str(src)], check=True)
    assert main([str(src), "--oracle=compile-error", "-q", "--", *CPU]) == 0
    reduced = (tmp_path / "net.reduced.mlir").read_text()
    assert '"onnx.Det"' in reduced and reduced.count("torch.operator") == 1
    assert "!torch.vtensor<[1,1,1,1],f32>" in reduced  # every dimension went to 1: still the rank-4 failure
    printed = capsys.readouterr().out
    assert DET_ERROR in printed
    assert "shapes        1x2x4x4" in printed and "-> 1x1x1x1" in printed


def grouped_conv(group: int = 2) -> onnx.ModelProto:
    """A fuzz finding: a grouped stride-4 Conv over a 2x6x4xW input, W dynamic, on which VMVX in
    IREE 3.13 fails with "slice along dimension 3 runs out-of-bounds: 3 >= 3". `group=1` gives the
    same conv without its group: 6 input channels for a weight that takes 3, which the checker and
    strict shape inference both accept."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 4, "W"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 1, None])
    w = numpy_helper.from_array(np.full((16, 3, 3, 2), 0.5, np.float32), "w")
    attrs = {"group": group} if group != 1 else {}
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 2], strides=[4, 4], **attrs), helper.make_node("Relu", ["c"], ["y"])]
    return _model(nodes, [x], [y], [w])


@pytest.mark.nightly  # 20 s; an ONNX reduction by default: test_fifty_node_network_reduces_to_the_det_with_the_same_signature
def test_a_conv_keeps_its_group_so_the_repro_stays_a_valid_model(tmp_path, iree_compile):
    # Dropping `group` kept the error's signature while making a model no runtime accepts: the
    # reduction ended on that invalid conv before the channel check.
    src = tmp_path / "grouped.onnx"
    onnx.save(grouped_conv(), src)
    assert main([str(src), "--oracle=compile-error", "-q", "--no-culprit", "-j", "2", "--", "--iree-hal-target-backends=vmvx"]) == 0
    reduced = onnx.load(tmp_path / "grouped.reduced.onnx")
    [conv] = reduced.graph.node
    assert {a.name: a.i for a in conv.attribute}.get("group") == 2
    onnx_model.check(reduced)  # its input's channels are what its weight takes
    oracle = ImportedOnnx(make_oracle("compile-error"))
    verdict = oracle.judge(Candidate("reduced", ("--iree-hal-target-backends=vmvx",), ".onnx", onnx_model.serialise(reduced)))
    assert verdict.interesting and "runs out-of-bounds" in verdict.signature


def test_a_model_whose_conv_channels_disagree_is_refused_in_one_line(tmp_path):
    src = tmp_path / "ungrouped.onnx"
    onnx.save(grouped_conv(group=1), src)
    onnx.checker.check_model(onnx.load(src), full_check=True)  # what the checker lets through
    result = run_cli(str(src), "--oracle=compile-error")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"reduce: error: {src}: invalid ONNX model: node 0 (Conv 'c'): its input has 6 channels, "
                                     "its weight takes 3 (3 per group x 1 group)")


def test_torch_onnx_convs_keep_a_group_other_than_one(tmp_path):
    text = import_in_process(onnx_model.serialise(grouped_conv()), tmp_path)
    ungrouped = text.replace("torch.onnx.group = 2", "torch.onnx.group = 1")
    for program, droppable in ((text, False), (ungrouped, True)):
        names = [name for _, name in DropAttributes().targets(irx.parse(program, irx.new_context()))]
        assert ("torch.onnx.group" in names) == droppable and "torch.onnx.strides" in names


def test_torch_onnx_functions_keep_their_opset_while_they_hold_onnx_ops(tmp_path, iree_compile):
    """Without the opset no `torch.operator "onnx.*"` legalizes: an error of the edit's own making,
    never offered (each search of attributes paid a compile or two for it); the importer's other
    metadata is offered."""
    text = import_in_process(onnx_model.serialise(grouped_conv()), tmp_path)
    names = [name for _, name in DropAttributes().targets(irx.parse(text, irx.new_context()))]
    assert irx.ONNX_OPSET not in names and "torch.onnx_meta.ir_version" in names
    plain = 'func.func @f(%a: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {\n  return %a : !torch.vtensor<[2],f32>\n}'
    assert [name for _, name in DropAttributes().targets(irx.parse(plain, irx.new_context()))] == [irx.ONNX_OPSET]
    src = tmp_path / "no_opset.mlir"
    module = irx.parse(text, irx.new_context())
    del irx.functions(module)[0].attributes[irx.ONNX_OPSET]
    src.write_text(irx.to_text(module))
    compiled = subprocess.run([iree_compile, "--iree-hal-target-backends=vmvx", "--compile-to=input", str(src), "-o", str(tmp_path / "out.mlir")],
                              capture_output=True, text=True)
    assert compiled.returncode != 0 and "failed to legalize operation 'torch.operator'" in compiled.stderr
