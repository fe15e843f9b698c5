"""A real architecture with a known-wrong op of IREE 3.13 on a branch, reduced with reference-mismatch.

The model: SqueezeNet as the `onnx` package ships it (light_squeezenet, opset 9, upgraded to
opset 21), plus a quantized side head on its fire3 activation: AveragePool 5x5 (stride 5), a
reshape to a batch of two 64x60 matrices, QuantizeLinear to uint8 and a batched QLinearMatMul
with a 2x60x16 uint8 weight and non-zero zero points, a second graph output of 2x64x16 = 2,048
uint8 elements. IREE 3.13 drops the zero points of a batched QLinearMatMul (corpus entry
`qlinearmatmul-batched-ignores-zero-points`), so that output is wrong; the classifier's output
is right.

    python bench/plain_wrong_answer.py OUT_DIR [-j 2] [-- extra reduce options]

writes OUT_DIR/squeezenet_qhead.onnx, reduces it with `reduce --oracle=reference-mismatch`, and
prints the wrong answer before and after (kind, fraction of elements, largest error in LSBs),
the nodes, the oracle calls and the seconds; `--results` also writes that table to
docs/results/plain_wrong_answer.md (bench/results.py).
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, version_converter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import results
from oracles import Candidate, OracleOptions
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.numeric.wrong_answer import decode, primary

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / "light_squeezenet.onnx"
BRANCH_FROM = "r16"  # fire3's concatenated output, 1x128x55x55
OPSET = 21


def _const(name: str, value, dtype) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def squeezenet_with_quantized_head() -> onnx.ModelProto:
    model = version_converter.convert_version(onnx.load(LIGHT), OPSET)
    model.ir_version = 10  # opset 21; initializers need not be listed as inputs
    rng = np.random.default_rng(11)
    graph = model.graph
    graph.initializer.extend([
        _const("head_shape", [2, 64, 60], np.int64),
        # a = fire3's activations (0.2 to 10) / 0.625 + 3: uint8 3 to 19
        _const("a_scale", 0.625, np.float32), _const("a_zero", 3, np.uint8),
        _const("w", rng.integers(0, 256, size=(2, 60, 16)), np.uint8),
        _const("w_scale", 0.0037, np.float32), _const("w_zero", 131, np.uint8),
        _const("y_scale", 0.12, np.float32), _const("y_zero", 127, np.uint8),
    ])  # fmt: skip
    graph.node.extend([
        helper.make_node("AveragePool", [BRANCH_FROM], ["head_pool"], kernel_shape=[5, 5], strides=[5, 5]),  # 1x128x11x11
        helper.make_node("Flatten", ["head_pool"], ["head_flat"], axis=1),  # 1x15488
        helper.make_node("Slice", ["head_flat", "head_start", "head_end"], ["head_used"]),  # 1x7680
        helper.make_node("Reshape", ["head_used", "head_shape"], ["head_3d"]),
        helper.make_node("QuantizeLinear", ["head_3d", "a_scale", "a_zero"], ["head_q"]),
        helper.make_node("QLinearMatMul", ["head_q", "a_scale", "a_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero"], ["head"]),
    ])  # fmt: skip
    graph.initializer.extend([_const("head_start", [0, 0], np.int64), _const("head_end", [1, 7680], np.int64)])
    graph.output.append(helper.make_tensor_value_info("head", TensorProto.UINT8, [2, 64, 16]))
    onnx.checker.check_model(model, full_check=True)
    return model


def wrong_answer(path: Path) -> tuple[str, int]:
    """The headline of the reference-mismatch verdict on a model, and its node count."""
    model = onnx.load(path)
    verdict = ReferenceMismatch(OracleOptions()).judge(Candidate(path.name, (), ".onnx", model.SerializeToString()))
    top = primary(decode(verdict.metrics.get("wrong")))
    return (str(top) if top is not None else verdict.detail), len(model.graph.node)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    extra = args[args.index("--") + 1 :] if "--" in args else []
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    results.add_option(parser)
    options = parser.parse_args(args[: args.index("--")] if "--" in args else args)
    options.out.mkdir(parents=True, exist_ok=True)
    source = options.out / "squeezenet_qhead.onnx"
    onnx.save(squeezenet_with_quantized_head(), source)
    before, nodes = wrong_answer(source)
    table = results.Table(["", "nodes", "wrong answer", "oracle calls", "seconds"], [["original", nodes, before, "-", "-"]],
                          f"reduce --oracle=reference-mismatch -j {options.jobs} --no-cache {shlex.join(extra)}".rstrip())
    print(f"before: {nodes} nodes; {before}", flush=True)
    start = time.monotonic()
    command = [sys.executable, "-m", "reducer", str(source), "--oracle=reference-mismatch", "-j", str(options.jobs), "--no-cache", *extra]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    (options.out / "reduce.log").write_text(run.stderr + run.stdout)
    if run.returncode != 0:
        print(run.stderr[-3000:], file=sys.stderr)
        return run.returncode
    calls = re.search(r"oracle calls\s+(\d+)", run.stdout)
    after, reduced_nodes = wrong_answer(options.out / "squeezenet_qhead.reduced.onnx")
    reduced = onnx.load(options.out / "squeezenet_qhead.reduced.onnx")
    kept = ", ".join(n.op_type for n in reduced.graph.node)
    table.rows.append(["reduced", f"{reduced_nodes} ({kept})", after, calls.group(1) if calls else "?", f"{seconds:.0f}"])
    print(f"after: {reduced_nodes} node(s) ({kept}); {after}")
    print(f"oracle calls {calls.group(1) if calls else '?'}, {seconds:.0f} s with -j {options.jobs}")
    print(onnx.printer.to_text(reduced.graph))
    if options.results:
        results.write(__file__, [table], argv=args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
