"""Which op computes a wrong value: localisation on a real architecture with a wrong op added.

The model: Inception v1 as the `onnx` package ships it (light_inception_v1, opset 9, upgraded
to opset 21; 144 nodes once its `ConstantOfShape` weights are seeded He-scaled initializers,
since 0.02 everywhere makes every channel alike), as a feature extractor: its input cut to
1x3xSxS so that a traced run prints megabytes, not gigabytes, the 7x7 AveragePool a
GlobalAveragePool, the classifier (Dropout, Reshape, Gemm, Softmax) left out; 140 nodes. An op is
added on an inception block's output (r52, 1x512x7x7 at a 128x128 input, reshaped to 1x512x49):

- `mid`: the op feeds a Relu (which hides the negative half of its error) and the Relu feeds
  the rest of the network in place of r52: everything after computes on the wrong value;
- `side`: the op and its Relu end in a second graph output; the classifier's output is right.

The op is either an f32 MatMul, which `--iree-global-opt-demote-contraction-inputs-type=bf16`
computes wrong (a miscompile of two CPU pipelines, judged on the MLIR level: the model imported
to torch-onnx MLIR, and that lowered to upstream linalg with `--compile-to=input`), or a batched
QLinearMatMul with non-zero zero points, which IREE 3.13 computes wrong in every pipeline (corpus
entry `qlinearmatmul-batched-ignores-zero-points`; judged against onnx.reference on the ONNX
model).

    python bench/wrong_op_localisation.py OUT_DIR [--variants mid side] [--ops matmul qlinearmatmul]
        [--levels onnx torch linalg] [-j 2] [--time-budget 120]

For each variant: the model's ops, the program runs localisation took (the bound the issue
sets: 2 x log2(ops) + 5), whether the named source op is the added one, whether the
dispatch-level test reproduces alone, and the seconds to the localisation and in all.
`--results` also writes the table to docs/results/wrong_op_localisation.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from iree.compiler import ir
from onnx import TensorProto, helper, numpy_helper, shape_inference, version_converter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import results
from oracles.mlir import ir as irx

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / "light_inception_v1.onnx"
BRANCH_FROM = "r52"  # a concatenated inception block's output, mid-network
CLASSIFIER = {"Dropout", "Reshape", "Gemm", "Softmax"}  # the tail left out
OPSET = 21
LLVM_CPU = "--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic"
DEMOTE_BF16 = "--iree-global-opt-demote-contraction-inputs-type=bf16 --iree-global-opt-demote-contraction-inputs-operations=matmul"
ADDED = "wrong_op"  # the added op's output name


def _const(name: str, value, dtype) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def _with_random_weights(model: onnx.ModelProto) -> onnx.ModelProto:
    """The light model's weights are `ConstantOfShape` 0.02 (every channel alike, so the softmax
    at the end is uniform whatever the network computes): seeded He-scaled weights instead."""
    rng = np.random.default_rng(7)
    shapes = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    kept = []
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            shape = [int(d) for d in shapes[node.input[0]]]
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            value = rng.normal(0.0, math.sqrt(2.0 / fan_in), size=shape) if len(shape) > 1 else rng.normal(0.0, 0.05, size=shape)
            model.graph.initializer.append(_const(node.output[0], value, np.float32))
            model.graph.input.append(helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, shape))  # IR 3: listed
        else:
            kept.append(node)
    while kept[-1].op_type in CLASSIFIER:  # the features: a softmax over 1000 classes would flatten any error
        kept.pop()
    pool = kept[-1]
    pool.op_type = "GlobalAveragePool"  # any input size
    del pool.attribute[:]
    model.graph.output[0].name = pool.output[0]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    return model


def inception_with_wrong_op(variant: str, op: str, size: int = 128) -> onnx.ModelProto:
    """Inception v1 at 1x3xSIZExSIZE with the wrong op added (`variant`: mid or side)."""
    model = version_converter.convert_version(_with_random_weights(onnx.load(LIGHT)), OPSET)
    model.ir_version = 10
    graph = model.graph
    initialized = {t.name for t in graph.initializer}
    data = next(v for v in graph.input if v.name not in initialized)
    dims = data.type.tensor_type.shape.dim
    dims[2].dim_value = dims[3].dim_value = size
    del graph.value_info[:]  # re-inferred at the new size
    for output in graph.output:
        output.type.tensor_type.ClearField("shape")
    inferred = shape_inference.infer_shapes(model)
    shape = next([d.dim_value for d in v.type.tensor_type.shape.dim] for v in inferred.graph.value_info if v.name == BRANCH_FROM)
    channels, hw = shape[1], shape[2] * shape[3]
    rng = np.random.default_rng(5)
    graph.initializer.extend([_const("wo_flat", [1, channels, hw], np.int64), _const("wo_back", shape, np.int64)])
    nodes = [helper.make_node("Reshape", [BRANCH_FROM, "wo_flat"], ["wo_in"])]
    if op == "matmul":  # f32: thirds, which bf16 cannot hold
        graph.initializer.append(_const("wo_w", rng.integers(-30, 30, size=(hw, hw)) / 3, np.float32))
        nodes.append(helper.make_node("MatMul", ["wo_in", "wo_w"], [ADDED]))
    else:  # batched QLinearMatMul with non-zero zero points: IREE 3.13 ignores them
        graph.initializer.extend([
            _const("wo_s", 0.25, np.float32), _const("wo_z", 3, np.uint8),
            _const("wo_w", rng.integers(0, 256, size=(1, hw, hw)), np.uint8),
            _const("wo_ws", 0.004, np.float32), _const("wo_wz", 131, np.uint8),
            _const("wo_ys", 0.5, np.float32), _const("wo_yz", 127, np.uint8),
        ])  # fmt: skip
        nodes += [
            helper.make_node("QuantizeLinear", ["wo_in", "wo_s", "wo_z"], ["wo_q"]),
            helper.make_node("QLinearMatMul", ["wo_q", "wo_s", "wo_z", "wo_w", "wo_ws", "wo_wz", "wo_ys", "wo_yz"], ["wo_qy"]),
            helper.make_node("DequantizeLinear", ["wo_qy", "wo_ys", "wo_yz"], [ADDED]),
        ]
    nodes += [helper.make_node("Reshape", [ADDED, "wo_back"], ["wo_4d"]), helper.make_node("Relu", ["wo_4d"], ["wo_relu"])]
    if variant == "mid":  # fire4 reads the Relu instead of fire3's output
        for node in graph.node:  # the added nodes are not in the graph yet
            node.input[:] = ["wo_relu" if name == BRANCH_FROM else name for name in node.input]
        at = next(i for i, n in enumerate(graph.node) if BRANCH_FROM in n.output) + 1
        for offset, node in enumerate(nodes):
            graph.node.insert(at + offset, node)
    else:
        graph.node.extend(nodes)
        graph.output.append(helper.make_tensor_value_info("wo_relu", TensorProto.FLOAT, shape))
    model = shape_inference.infer_shapes(model)
    onnx.checker.check_model(model, full_check=True)
    return model


def _imported_line(mlir: Path, op_type: str) -> int:
    """The line of the first `onnx.OP_TYPE` op the importer wrote (the added op's, for ops the
    network does not have)."""
    for number, line in enumerate(mlir.read_text().splitlines(), 1):
        if f'"onnx.{op_type}"' in line:
            return number
    raise ValueError(f"no onnx.{op_type} in {mlir}")


LEVELS = {"qlinearmatmul": ("onnx",), "matmul": ("torch", "linalg")}  # where each op's wrong answer is judged


def _without_abi(text: str) -> str:
    """`--compile-to=input` wraps the program in IREE's ABI (`@f$async` on buffer views and
    fences, `@f` calling it): the body as `@f` on tensors, as a user's linalg program is."""
    ctx = irx.new_context()
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(text, ctx)
        functions = irx.functions(module)
        body = next(f for f in functions if irx.symbol_name(f).endswith("$async"))
        name = irx.symbol_name(body).removesuffix("$async")
        for function in functions:
            if irx.symbol_name(function) == name:
                function.erase()
        block = irx.entry_block(body)
        abi_arguments = len(block.arguments)
        results = []
        for op in [op.operation for op in block.operations]:
            if op.name == "hal.tensor.import":
                op.results[0].replace_all_uses_with(block.add_argument(op.results[0].type, ir.Location.unknown(ctx)))
            elif op.name == "hal.tensor.barrier":
                for result, operand in zip(op.results, op.operands, strict=False):
                    result.replace_all_uses_with(operand)
            elif op.name == "hal.tensor.export":
                results.append(op.operands[0].type)
                op.results[0].replace_all_uses_with(op.operands[0])
            else:
                continue
            op.erase()
        for index in reversed(range(abi_arguments)):
            block.erase_argument(index)
        irx.set_function_type(body, [a.type for a in block.arguments], results)
        for attribute in ("iree.abi.stub", "iree.abi.model", "inlining_policy", "arg_attrs", "res_attrs"):
            if attribute in body.attributes:
                del body.attributes[attribute]
        body.attributes["sym_name"] = ir.StringAttr.get(name)
        if not irx.verifies(module):
            raise ValueError("the program without its ABI does not verify")
        return irx.to_text(module)


def _source(out: Path, name: str, onnx_path: Path, level: str) -> Path:
    """The input `reduce` gets: the ONNX model, its torch-onnx import, or that lowered to upstream
    linalg (`--compile-to=input`)."""
    if level == "onnx":
        return onnx_path
    torch = out / f"{name}.mlir" if level == "torch" else out / f"{name}.torch.mlir"
    subprocess.run(["iree-import-onnx", str(onnx_path), "-o", str(torch)], check=True)
    if level == "torch":
        return torch
    linalg = out / f"{name}.mlir"
    subprocess.run(["iree-compile", "--compile-to=input", str(torch), "-o", str(linalg)], check=True)
    linalg.write_text(_without_abi(linalg.read_text()))
    torch.unlink()
    return linalg


def _names_added_op(log: str, source: Path, level: str, op_type: str) -> bool:
    """Whether the culprit localisation names is the added op: its node (ONNX), the importer's
    line of it (torch), a matmul line (linalg: the network has no other matmul)."""
    if level == "onnx":
        node = re.search(r"its source node: (\S+) \((\w+)\)", log)
        return node is not None and node.group(2) == op_type
    named = re.search(r"its source ops: (\S+?):(\d+):\d+", log)
    if named is None:
        return False
    if level == "torch":
        return int(named.group(2)) == _imported_line(source, op_type)
    with source.open() as text:
        line = next((t for number, t in enumerate(text, 1) if number == int(named.group(2))), "")
    return "matmul" in line


def _test_reproduces(summary: str) -> bool:
    """Whether `reduce --json` says the dispatch-level test reproduced the wrong answer alone."""
    try:
        found = json.loads(summary).get("wrong_value") or {}
    except ValueError:
        return False
    return bool((found.get("test") or {}).get("reproduces"))


def run_case(out: Path, variant: str, op: str, level: str, jobs: int, time_budget: float) -> dict:
    name = f"inception_{variant}_{op}_{level}"
    model = inception_with_wrong_op(variant, op)
    onnx_path = out / f"{name}.onnx"
    onnx.save(model, onnx_path)
    op_type = "MatMul" if op == "matmul" else "QLinearMatMul"
    source = _source(out, name, onnx_path, level)
    if op == "matmul":  # a miscompile of two pipelines on the imported (and lowered) model
        oracle = ["--oracle=miscompile", "--pipeline-a", LLVM_CPU, "--pipeline-b", f"{LLVM_CPU} {DEMOTE_BF16}"]
    else:
        oracle = ["--oracle=reference-mismatch"]
    command = [sys.executable, "-m", "reducer", str(source), *oracle, "-j", str(jobs), "--no-cache",
               "--time-budget", str(time_budget), "--json"]
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    log = run.stderr
    (out / f"{name}.log").write_text(log)
    (out / f"{name}.json").write_text(run.stdout)
    original = re.search(r"original: (\d+) (?:ops|nodes)", log)
    located = re.search(r"\[\s*([\d.]+)s\] localisation: (?:ops|nodes) (\d+) -> (\d+) in (\d+) candidates \((\d+) program runs\)", log)
    ops = int(original.group(1)) if original else None
    return {
        "case": name,
        "exit": run.returncode,
        "ops": ops,
        "bound": 2 * math.log2(ops) + 5 if ops else None,
        "runs": int(located.group(5)) if located else None,
        "localised": f"{located.group(2)} -> {located.group(3)}" if located else "no",
        "seconds_to_localised": float(located.group(1)) if located else None,
        "named_added_op": _names_added_op(log, source, level, op_type),
        "test_reproduces": _test_reproduces(run.stdout),
        "seconds": round(seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--variants", nargs="+", default=["mid", "side"])
    parser.add_argument("--ops", nargs="+", default=["matmul", "qlinearmatmul"])
    parser.add_argument("--levels", nargs="+", default=["onnx", "torch", "linalg"])
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--time-budget", type=float, default=120.0)
    results.add_option(parser)
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    title = (f"-j {options.jobs}, --time-budget {options.time_budget:g}, {os.cpu_count()} cores, "
             f"load average {os.getloadavg()[0]:.1f} at the start")
    print(title, flush=True)

    def rows():
        for op in options.ops:
            for level in (lv for lv in LEVELS[op] if lv in options.levels):
                for variant in options.variants:
                    row = run_case(options.out, variant, op, level, options.jobs, options.time_budget)
                    yield {k: f"{v:.1f}" if isinstance(v, float) else v for k, v in row.items()}

    done = results.stream(rows())
    if options.results:
        results.write(__file__, [results.Table.of_dicts(done, title)], argv=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
