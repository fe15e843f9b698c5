"""onnx-bypass-nodes and fx-bypass-nodes: a node replaced by its input of the same type and shape.

The edits alone (no compiler): which targets each pass lists, that an edit keeps every shape and
passes the checker (ONNX) or export and import (FX). Then a reduction where only a bypass can
remove a node: removing it makes its output a new input, which changes what flows on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from reducer.cli import main
from reducer.graphs import onnx_model
from reducer.passes.onnx.bypass_nodes import OnnxBypassNodes
from reducer.passes.registry import PASSES
from reducer.passes.support.onnx_edit import onnx_proposal


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "net", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def clip_matmul(tail: bool = False) -> onnx.ModelProto:
    """x: Mx4 -> Clip(-1, 1) -> Relu -> MatMul by 4x3 (-> Sigmoid when `tail`), `M` dynamic."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["M", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", 3])
    weights = [
        numpy_helper.from_array(np.array(-1, np.float32), "lo"),
        numpy_helper.from_array(np.array(1, np.float32), "hi"),
        numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3), "w"),
    ]
    nodes = [
        helper.make_node("Clip", ["x", "lo", "hi"], ["clipped"]),
        helper.make_node("Relu", ["clipped"], ["relu"]),
        helper.make_node("MatMul", ["relu", "w"], ["mm" if tail else "y"]),
    ]
    if tail:
        nodes.append(helper.make_node("Sigmoid", ["mm"], ["y"]))
    return _model(nodes, [x], [y], weights)


def ops_and_inputs(binary: bytes) -> tuple[list[str], list[str]]:
    model = onnx.load_from_string(binary)
    return [n.op_type for n in model.graph.node], [i.name for i in model.graph.input]


def test_the_bypass_rows_run_before_their_formats_removal():
    names = [row.name for row in PASSES]
    assert names.index("onnx-bypass-nodes") < names.index("onnx-remove-nodes")
    assert names.index("fx-bypass-nodes") < names.index("fx-remove-nodes")


def test_onnx_bypass_lists_same_typed_inputs_and_keeps_the_graph_valid():
    current = onnx_proposal(onnx_model.serialise(clip_matmul(tail=True)))
    bypass = OnnxBypassNodes()
    # Clip and Relu keep x's type (the Relu may read past the Clip too), Sigmoid keeps mm's; the
    # MatMul changes the shape: no target.
    targets = bypass.targets(onnx.load_from_string(current.candidate.binary))
    assert targets == [(0, "x"), (1, "clipped"), (1, "x"), (3, "mm")]

    clip_gone = bypass.apply(current, [0], None)
    assert ops_and_inputs(clip_gone.candidate.binary) == (["Relu", "MatMul", "Sigmoid"], ["x"])
    model = onnx.load_from_string(clip_gone.candidate.binary)
    assert model.graph.node[0].input[0] == "x"
    assert {t.name for t in model.graph.initializer} == {"w"}  # the Clip's bounds only fed it: gone

    both = bypass.apply(current, [0, 1], None)  # a chain: the Relu's input was the bypassed Clip's output
    assert ops_and_inputs(both.candidate.binary) == (["MatMul", "Sigmoid"], ["x"])
    assert onnx.load_from_string(both.candidate.binary).graph.node[0].input[0] == "x"

    past_the_clip = bypass.apply(current, [2], None)  # one step: the Relu reads x, the Clip only fed it
    assert ops_and_inputs(past_the_clip.candidate.binary) == (["MatMul", "Sigmoid"], ["x"])

    last = bypass.apply(current, [3], None)  # the graph output's producer: the output keeps its name and type
    model = onnx_model.check(onnx.load_from_string(last.candidate.binary))
    assert [n.op_type for n in model.graph.node] == ["Clip", "Relu", "MatMul"]
    (output,) = model.graph.output
    assert output.name == "y" and model.graph.node[-1].output[0] == "y"
    assert [d.dim_param or d.dim_value for d in output.type.tensor_type.shape.dim] == ["M", 3]


def test_onnx_bypass_of_a_node_on_a_graph_input_to_an_output_renames_the_output():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    current = onnx_proposal(onnx_model.serialise(_model([helper.make_node("Relu", ["x"], ["y"])], [x], [y])))
    bypass = OnnxBypassNodes()
    assert bypass.count(current, None) == 1
    result = onnx.load_from_string(bypass.apply(current, [0], None).candidate.binary)
    assert len(result.graph.node) == 0 and [o.name for o in result.graph.output] == ["x"]


def test_onnx_bypassed_outputs_keep_their_names_and_are_never_returned_twice():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y1, y2 = (helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 3]) for name in ("y1", "y2"))
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Sigmoid", ["r"], ["y1"]), helper.make_node("Tanh", ["r"], ["y2"])]
    current = onnx_proposal(onnx_model.serialise(_model(nodes, [x], [y1, y2])))
    bypass = OnnxBypassNodes()
    targets = bypass.targets(onnx.load_from_string(current.candidate.binary))
    assert targets == [(0, "x"), (1, "r"), (1, "x"), (2, "r"), (2, "x")]

    sigmoid_gone = onnx.load_from_string(bypass.apply(current, [1], None).candidate.binary)
    assert [(n.op_type, list(n.input), list(n.output)) for n in sigmoid_gone.graph.node] == [
        ("Relu", ["x"], ["y1"]), ("Tanh", ["y1"], ["y2"])]  # the Relu's tensor took the output's name
    assert [o.name for o in sigmoid_gone.graph.output] == ["y1", "y2"]
    assert bypass.apply(current, [1, 3], None) is None  # both outputs would return the Relu's tensor


def clip_add_matmul() -> onnx.ModelProto:
    """x: Mx4 -> Clip(-1, 1) -> Add(x) -> MatMul by 4x3, `M` dynamic."""
    model = clip_matmul()
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend([nodes[0], helper.make_node("Add", ["clipped", "x"], ["sum"]), helper.make_node("MatMul", ["sum", "w"], ["y"])])
    return model


# Interesting: the imported program adds and multiplies, reading the data the user gave (one
# argument, x) and nothing else: a removal in front of the Add makes a second argument, which
# runs on other data than the node computed.
SAME_DATA_ADD_MATMUL = """\
import re, sys
text = open(sys.argv[1]).read()
signature = re.search(r"func.func @\\w+\\((.*?)\\)\\s*->", text).group(1)
sys.exit(0 if "onnx.Add" in text and "onnx.MatMul" in text and signature.count("%arg") == 1 else 1)
"""


def test_only_a_bypass_removes_a_node_whose_removal_changes_the_data(tmp_path, capsys):
    """Clip, Add(clipped, x), MatMul: removing the Clip makes its output a second argument (other
    data), so the removal passes keep all three; onnx-bypass-nodes lets x flow on and the Clip goes."""
    script = tmp_path / "same_data.py"
    script.write_text(SAME_DATA_ADD_MATMUL)
    source = tmp_path / "net.onnx"
    onnx.save(clip_add_matmul(), source)
    argv = [str(source), "--oracle=script", "--cmd", f"{sys.executable} {script} {{}}", "--no-cache", "--no-localize", "-j", "2", "-q"]

    assert main([*argv, "--passes", "onnx-cut-outputs,onnx-cut-inputs,onnx-remove-nodes", "-o", str(tmp_path / "removed.onnx")]) == 0
    assert ops_and_inputs((tmp_path / "removed.onnx").read_bytes()) == (["Clip", "Add", "MatMul"], ["x"])

    assert main([*argv, "--passes", "onnx-cut-outputs,onnx-cut-inputs,onnx-bypass-nodes,onnx-remove-nodes",
                 "-o", str(tmp_path / "bypassed.onnx")]) == 0
    assert ops_and_inputs((tmp_path / "bypassed.onnx").read_bytes()) == (["Add", "MatMul"], ["x"])
    assert onnx.load(tmp_path / "bypassed.onnx").graph.node[0].input == ["x", "x"]
    capsys.readouterr()



BENCH_DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
CPU_DATA_TILING = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                   "--iree-llvmcpu-target-cpu=generic", "--iree-opt-data-tiling=true"]


@pytest.mark.nightly  # the real compiler on a real wrong answer: about a minute on 2 cores
def test_the_dynamic_size_wrong_answer_reduces_to_its_two_matmuls(tmp_path, iree_compile, capsys):
    """Issue 36: Cast, MatMul, Cast, Clip, Cast, batched MatMul, Cast with `M` dynamic, wrong with
    data tiling at M=1. Node removal ended at five nodes (the Clip and the casts kept: removing
    one drops the first MatMul, which the bug needs); bypassed, the two matmuls are what is left."""
    source = tmp_path / "dyn.onnx"
    source.write_bytes((BENCH_DATA / "dynamic_m_data_tiling.onnx").read_bytes())
    argv = [str(source), "--oracle=reference-mismatch", "--dim", "M=1", "--no-cache", "--no-localize", "-j", "2", "-q",
            "--passes", "onnx-cut-outputs,onnx-cut-inputs,onnx-bypass-nodes,onnx-remove-nodes",
            "-o", str(tmp_path / "dyn.reduced.onnx"), "--", *CPU_DATA_TILING]
    assert main(argv) == 0, capsys.readouterr()
    assert ops_and_inputs((tmp_path / "dyn.reduced.onnx").read_bytes()) == (["MatMul", "MatMul"], ["t2"])

def signature(text: str) -> str:
    """The imported function's signature: its argument and result types."""
    return next(line.split("{")[0].strip() for line in text.splitlines() if "func.func @main" in line)


def test_fx_bypass_lists_same_shaped_inputs_and_the_program_exports_again(tmp_path):
    """The token scorer: LayerNorm, MatMul (4 -> 4), casts, clamp, MatMul, cast, sigmoid, with a
    dynamic token count. Each same-dtype, same-shape input is a target; a bypassed clamp's users
    read its input, the program exports and imports again with the same signature."""
    pytest.importorskip("torch")
    from reducer.formats.pt2_input import program_proposal
    from reducer.graphs import torch_program
    from reducer.passes.fx.bypass_nodes import FxBypassNodes
    from tests import torch_models

    built = torch_program.normalised(torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4).read_bytes())
    current = program_proposal(built, (), ())
    bypass = FxBypassNodes()
    targets = bypass.targets(torch_program.editable_of(current.candidate.binary))
    # The casts change the dtype, the second MatMul the shape: no targets, but the cast back to f16
    # may read past the clamp and the cast to f32, to the first MatMul.
    assert targets == [("layer_norm", "x"), ("matmul", "layer_norm"), ("matmul", "x"), ("clamp", "convert_element_type"),
                       ("convert_element_type_1", "matmul"), ("sigmoid", "convert_element_type_2")]

    clamp_gone = bypass.apply(current, [targets.index(("clamp", "convert_element_type"))], None)
    assert clamp_gone.ops == current.ops - 1
    ops = [str(n.target) for n in torch_program.editable_of(clamp_gone.candidate.binary).ops()]
    assert "aten.clamp.default" not in ops and sum("convert_element_type" in op for op in ops) == 3
    assert signature(clamp_gone.candidate.text) == signature(current.candidate.text)
    assert "[2,?,4],f16" in signature(current.candidate.text)  # the token count stays dynamic

    round_trip = bypass.apply(current, [targets.index(("convert_element_type_1", "matmul"))], None)  # the casts and the clamp go
    assert round_trip.ops == current.ops - 3

    # A chain: the matmul reads the bypassed norm's input, the cast back its own; what is left is
    # the second MatMul, its cast and nothing else.
    all_gone = bypass.apply(current, list(range(len(targets))), None)
    ops = [str(n.target) for n in torch_program.editable_of(all_gone.candidate.binary).ops()]
    assert ops[0] == "aten.matmul.default" and len(ops) == 2 and "convert_element_type" in ops[1]
    assert signature(all_gone.candidate.text) == signature(current.candidate.text)
