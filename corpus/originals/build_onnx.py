"""Builds the ONNX originals that corpus entries were reduced from (see corpus/README.md).

The models are what a user has before `reduce`: whole blocks around the bug, built with
onnx.helper so the corpus does not carry binaries. Import one with
`iree-import-onnx NAME.onnx -o NAME.mlir` and reduce it as the README's table says.

    python corpus/originals/build_onnx.py OUT_DIR [NAME ...]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 21


def _model(name: str, nodes, inputs, outputs, initializers) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=10)


def _weights(rng: np.random.Generator, name: str, shape: tuple[int, ...], dtype=np.float32) -> onnx.TensorProto:
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.05).astype(dtype), name)


def resnet_block_f16() -> onnx.ModelProto:
    """Seed 004's block in f16: 3x3 stride-2 conv, relu, 1x1 conv to 128 channels over the
    56x56 map, residual add, relu."""
    rng = np.random.default_rng(0)
    f16 = TensorProto.FLOAT16
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[1, 1]),
        helper.make_node("Add", ["c2", "skip"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    inits = [
        _weights(rng, "w1", (64, 64, 3, 3), np.float16),
        numpy_helper.from_array(np.zeros(64, np.float16), "b1"),
        _weights(rng, "w2", (128, 64, 1, 1), np.float16),
        numpy_helper.from_array(np.zeros(128, np.float16), "b2"),
    ]
    inputs = [helper.make_tensor_value_info("x", f16, [1, 64, 112, 112]), helper.make_tensor_value_info("skip", f16, [1, 128, 56, 56])]
    return _model("resnet_block_f16", nodes, inputs, [helper.make_tensor_value_info("y", f16, [1, 128, 56, 56])], inits)


def bottleneck_f16() -> onnx.ModelProto:
    """A ResNet-50 bottleneck over 56x56 in f16: 1x1 256->64, 3x3 64->64, 1x1 64->256, residual."""
    rng = np.random.default_rng(1)
    f16 = TensorProto.FLOAT16
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3"], ["c3"], kernel_shape=[1, 1]),
        helper.make_node("Add", ["c3", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    inits = [
        _weights(rng, "w1", (64, 256, 1, 1), np.float16),
        _weights(rng, "w2", (64, 64, 3, 3), np.float16),
        _weights(rng, "w3", (256, 64, 1, 1), np.float16),
    ]
    io = [helper.make_tensor_value_info(n, f16, [1, 256, 56, 56]) for n in ("x", "y")]
    return _model("bottleneck_f16", nodes, io[:1], io[1:], inits)


def head_split_projection() -> onnx.ModelProto:
    """A transformer's query projection as exporters write it: MatMul + bias, the heads split by
    Reshape + Transpose, scaled by 1/sqrt(head_dim), relu. All of it should be one dispatch."""
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"]),
        helper.make_node("Add", ["mm", "b"], ["biased"]),
        helper.make_node("Reshape", ["biased", "heads"], ["split"]),
        helper.make_node("Transpose", ["split"], ["t"], perm=[1, 0, 2]),
        helper.make_node("Mul", ["t", "scale"], ["scaled"]),
        helper.make_node("Relu", ["scaled"], ["y"]),
    ]
    inits = [
        _weights(rng, "w", (256, 512)),
        _weights(rng, "b", (512,)),
        numpy_helper.from_array(np.array([128, 8, 64], np.int64), "heads"),
        numpy_helper.from_array(np.array(0.125, np.float32), "scale"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [128, 256])]
    return _model("head_split_projection", nodes, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 128, 64])], inits)


def int4_blocked_linear() -> onnx.ModelProto:
    """An LLM linear layer with int4 weights quantized in blocks of 32 along K (opset 21's
    blocked DequantizeLinear), MatMul with the activations, then SiLU."""
    rng = np.random.default_rng(7)
    k, n, block = 256, 512, 32
    nodes = [
        helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["w"], axis=0, block_size=block),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Sigmoid", ["h"], ["g"]),
        helper.make_node("Mul", ["h", "g"], ["out"]),
    ]
    inits = [
        helper.make_tensor("w_q", TensorProto.INT4, [k, n], rng.integers(-8, 8, k * n).tolist()),
        numpy_helper.from_array((rng.random((k // block, n)) * 0.01).astype(np.float32), "w_scale"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, k])]
    return _model("int4_blocked_linear", nodes, inputs, [helper.make_tensor_value_info("out", TensorProto.FLOAT, [16, n])], inits)


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    f.__name__: f for f in (resnet_block_f16, bottleneck_f16, head_split_projection, int4_blocked_linear)
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help") or any(n not in MODELS for n in argv[1:]):
        print(f"usage: build_onnx.py OUT_DIR [{' '.join(MODELS)}]", file=sys.stderr)
        return 1
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or MODELS:
        model = MODELS[name]()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, out / f"{name}.onnx")
        print(out / f"{name}.onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
