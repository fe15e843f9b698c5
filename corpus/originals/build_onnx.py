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


def head_split_projection() -> onnx.ModelProto:
    """A transformer's query projection as exporters write it: MatMul + bias, the heads split by
    Reshape + Transpose, scaled by 1/sqrt(head_dim), relu. All of it should be one dispatch. The
    weights are graph inputs, as torch.onnx.export(export_params=False) writes them."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["mm"]),
        helper.make_node("Add", ["mm", "b"], ["biased"]),
        helper.make_node("Reshape", ["biased", "heads"], ["split"]),
        helper.make_node("Transpose", ["split"], ["t"], perm=[1, 0, 2]),
        helper.make_node("Mul", ["t", "scale"], ["scaled"]),
        helper.make_node("Relu", ["scaled"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.array([128, 8, 64], np.int64), "heads"),
        numpy_helper.from_array(np.array(0.125, np.float32), "scale"),
    ]
    f32 = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info(n, f32, shape) for n, shape in (("x", [128, 256]), ("w", [256, 512]), ("b", [512]))]
    return _model("head_split_projection", nodes, inputs, [helper.make_tensor_value_info("y", f32, [8, 128, 64])], inits)


def int4_blocked_linear(raw: bool = False) -> onnx.ModelProto:
    """An LLM linear layer with int4 weights quantized in blocks of 32 along K (opset 21's
    blocked DequantizeLinear), MatMul with the activations, then SiLU. The weights are stored
    as onnx.helper writes a list (int32_data), or packed in raw_data as exporters write them."""
    rng = np.random.default_rng(7)
    k, n, block = 256, 512, 32
    values = rng.integers(-8, 8, k * n)
    if raw:
        nibbles = (values.astype(np.int8) & 0x0F).astype(np.uint8)
        w_q = helper.make_tensor("w_q", TensorProto.INT4, [k, n], (nibbles[0::2] | (nibbles[1::2] << 4)).tobytes(), raw=True)
    else:
        w_q = helper.make_tensor("w_q", TensorProto.INT4, [k, n], values.tolist())
    nodes = [
        helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["w"], axis=0, block_size=block),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Sigmoid", ["h"], ["g"]),
        helper.make_node("Mul", ["h", "g"], ["out"]),
    ]
    inits = [w_q, numpy_helper.from_array((rng.random((k // block, n)) * 0.01).astype(np.float32), "w_scale")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, k])]
    return _model("int4_blocked_linear_raw" if raw else "int4_blocked_linear", nodes, inputs, [helper.make_tensor_value_info("out", TensorProto.FLOAT, [16, n])], inits)


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "resnet_block_f16": resnet_block_f16,
    "head_split_projection": head_split_projection,
    "int4_blocked_linear": int4_blocked_linear,
    "int4_blocked_linear_raw": lambda: int4_blocked_linear(raw=True),
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
