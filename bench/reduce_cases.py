"""Measures `reduce` on the acceptance cases and prints a table (sizes, shapes, calls, wall time).

    python bench/reduce_cases.py [--jobs 2] [--only NAME ...] [--check-minimal] [--passes-only]

Cases are built by the tests' model builders and the light models the onnx package ships;
every number printed is measured in this run. `--check-minimal` also tries every dimension of
the result one step smaller and counts how many lose the failure (all of them, when the result
is locally minimal). `--passes-only` turns off failure localisation and the warm compiler: the
passes alone, for a before/after comparison. Every result is checked for degenerate tensors (a
zero-sized dim, a window past its padded input); the "degenerate" column lists any.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import onnx

from oracles import Oracle, OracleOptions, make_oracle
from oracles.mlir import ir as irx
from oracles.onnx.importer import onnx_oracle
from oracles.toolchain.tools import find_tool
from reducer.formats.degenerate import candidate_sites
from reducer.passes.base import Proposal
from reducer.passes.registry import passes_for
from reducer.passes.shape_search import shapes_of
from reducer.search.engine import _dimensions, _resize
from reducer.search.problem import ReductionProblem
from reducer.session import Request, reduce_file
from reducer.shapes import mlir_shapes
from tests.models import linalg_chain, matmul_like_block, torch_chain
from tests.test_reduce_onnx import conv_det_network

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
GFX942 = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
SM60 = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_60"]
EXAMPLE = ROOT / "examples" / "conv_chain.mlir"
LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def text_file(text: Callable[[], str]) -> Callable[[Path], Path]:
    def write(tmp: Path) -> Path:
        path = tmp / "case.mlir"
        path.write_text(text())
        return path

    return write


def det_network(as_mlir: bool) -> Callable[[Path], Path]:
    def write(tmp: Path) -> Path:
        onnx.save(conv_det_network(), tmp / "net.onnx")
        if not as_mlir:
            return tmp / "net.onnx"
        subprocess.run([find_tool("iree-import-onnx"), str(tmp / "net.onnx"), "-o", str(tmp / "net.mlir")], check=True)
        return tmp / "net.mlir"

    return write


def light_model(name: str) -> Callable[[Path], Path]:
    """One of the onnx package's light models (real topologies, constant weights), as it is."""

    def write(tmp: Path) -> Path:
        path = tmp / f"{name}.onnx"
        path.write_bytes((LIGHT_MODELS / f"light_{name}.onnx").read_bytes())
        return path

    return write


def light_model_linalg(name: str) -> Callable[[Path], Path]:
    """A light model imported at opset 17 and lowered to upstream linalg (`--compile-to=input`)."""

    def write(tmp: Path) -> Path:
        onnx_path = light_model(name)(tmp)
        subprocess.run([find_tool("iree-import-onnx"), str(onnx_path), "--opset-version", "17", "-o", str(tmp / "torch.mlir")], check=True)
        subprocess.run([find_tool("iree-compile"), "--compile-to=input", str(tmp / "torch.mlir"), "-o", str(tmp / f"{name}.mlir")], check=True)
        return tmp / f"{name}.mlir"

    return write


def dumped_dispatch(text: Callable[[], str], flags: list[str]) -> Callable[[Path], Path]:
    """The program's one dispatch as the standalone hal.executable the compiler dumps."""

    def write(tmp: Path) -> Path:
        src = text_file(text)(tmp)
        dump = tmp / "sources"
        subprocess.run([find_tool("iree-compile"), *flags, str(src), "-o", str(tmp / "x.vmfb"), f"--iree-hal-dump-executable-sources-to={dump}"], check=True)
        (source,) = dump.glob("*.mlir")
        return source

    return write


CASES: dict[str, tuple[Callable[[Path], Path], str, OracleOptions, list[str], bool]] = {
    # name: (writes the input, oracle, options, flags, shrink shapes too)
    "lds-conv-in-12-op-chain": (text_file(lambda: torch_chain(12, 6, "conv")), "lds-limit", OracleOptions(lds_bytes=16384), [], False),
    "lds-example-seed004": (text_file(EXAMPLE.read_text), "lds-limit", OracleOptions(lds_bytes=32768), [], False),
    "compile-error-in-120-op-chain": (
        text_file(lambda: torch_chain(120, 70, "onnx.NoSuchOp")), "compile-error", OracleOptions(), [*CPU, "--iree-opt-const-eval=false"], False,
    ),
    "compile-error-in-162-op-chain": (text_file(lambda: torch_chain(162, 100, "onnx.NoSuchOp")), "compile-error", OracleOptions(), CPU, False),
    "compile-error-in-600-op-chain": (text_file(lambda: torch_chain(600, 420, "onnx.NoSuchOp")), "compile-error", OracleOptions(), CPU, False),
    # A gfx942 codegen error inside one dispatch of a linalg model (the case): localised by the dispatch.
    "codegen-error-in-162-op-linalg-chain": (text_file(lambda: linalg_chain(162, 100)), "compile-error", OracleOptions(), GFX942, False),
    "codegen-error-in-600-op-linalg-chain": (text_file(lambda: linalg_chain(600, 420)), "compile-error", OracleOptions(), GFX942, False),
    "onnx-det-in-50-node-network": (det_network(as_mlir=False), "compile-error", OracleOptions(), CPU, True),
    "mlir-det-in-imported-50-node-network": (det_network(as_mlir=True), "compile-error", OracleOptions(), CPU, True),
    "lds-conv-with-shapes": (text_file(lambda: torch_chain(12, 6, "conv")), "lds-limit", OracleOptions(lds_bytes=16384), [], True),
    # Shapes below ONNX: upstream linalg (a whole network, seed 004's dispatch) and a dumped hal.executable.
    "cuda-sm60-squeezenet-linalg": (light_model_linalg("squeezenet"), "compile-error", OracleOptions(), SM60, True),
    "cuda-sm60-inception-v1-linalg": (light_model_linalg("inception_v1"), "compile-error", OracleOptions(), SM60, True),
    "lds-seed004-matmul-like-linalg": (text_file(matmul_like_block), "lds-limit", OracleOptions(lds_bytes=32768), [], True),
    "lds-seed004-matmul-like-dispatch": (
        dumped_dispatch(matmul_like_block, GFX942), "lds-limit", OracleOptions(lds_bytes=32768), ["--compile-mode=hal-executable"], True,
    ),
    # Opset 9 MaxPool does not legalize; the shape pass must stop above a window past its input.
    "onnx-inception-v1-maxpool": (light_model("inception_v1"), "compile-error", OracleOptions(), CPU, True),
}


def minimal_dimensions(oracle: Oracle, passes, best, pinned_to: Proposal | None = None) -> str:
    """'k/n': how many of the n dimension targets (size groups too) lose the failure one step smaller.

    The failure is the result's own, or `pinned_to`'s: a wrong answer is pinned to the original's
    (its kind, and at least --wrong-share of its wrong fraction and error), as the reduction was."""
    judged = onnx_oracle(oracle) if best.candidate.binary is not None else oracle  # ONNX candidates are imported first
    problem = ReductionProblem(pinned_to or best, judged)
    lost = total = 0
    try:
        problem.calibrate()
        for shrink in (p for p in passes if p.search == "shrink"):
            for key, value in problem.edit(_dimensions, shrink.impl, best, fallback=[]):
                if value <= 1:
                    continue
                total += 1
                smaller = problem.edit(_resize, shrink.impl, best, key, value - 1, fallback=None)
                lost += smaller is None or not problem.judge(smaller.candidate).interesting
    finally:
        problem.shutdown()
    return f"{lost}/{total}"


def largest_tensor(proposal: Proposal) -> str:
    """Elements of the largest builtin tensor of an MLIR candidate ("-" for ONNX and torch IR)."""
    if proposal.candidate.binary is not None:
        return "-"
    ctx = irx.new_context()
    return str(mlir_shapes.largest_tensor(irx.parse(proposal.candidate.text, ctx)) or "-")  # torch tensors are not counted


def degenerate(best: Proposal) -> str:
    sites = candidate_sites(best.candidate, irx.new_context())
    return "; ".join(sorted(sites)) if sites else "none"


def run_case(name: str, jobs: int, check_minimal: bool, passes_only: bool = False) -> dict:
    write, oracle_name, options, flags, shapes = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = write(Path(tmp))
        passes = [p for p in passes_for(src.suffix) if shapes or p.search != "shrink"]
        oracle = make_oracle(oracle_name, options)
        request = Request(
            input_path=src, oracle=oracle, flags=list(flags), output_path=src.with_name("out" + src.suffix), passes=passes, jobs=jobs,
            localize=not passes_only, warm=not passes_only, culprit=False,  # the reduction alone is measured
        )
        start = time.monotonic()
        outcome = reduce_file(request)
        seconds = time.monotonic() - start
        minimal = minimal_dimensions(request.oracle, passes, outcome.best) if check_minimal and shapes else "-"
        largest = f"{largest_tensor(outcome.original)} -> {largest_tensor(outcome.best)}"
    return {
        "case": name,
        "oracle": oracle_name,
        "ops/nodes": f"{outcome.original.ops} -> {outcome.best.ops}",
        "bytes": f"{outcome.original.candidate.size} -> {outcome.best.candidate.size}",
        "flags": f"{len(outcome.original.candidate.flags)} -> {len(outcome.best.candidate.flags)}",
        "shapes": f"{shapes_of(outcome.original.candidate)} -> {shapes_of(outcome.best.candidate)}" if shapes else "-",
        "largest tensor": largest,
        "dims minimal": minimal,
        "degenerate": degenerate(outcome.best),
        "calls": outcome.stats.oracle_calls,
        "hits": outcome.stats.cache_hits,
        "seconds": f"{seconds:.1f}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", choices=list(CASES))
    parser.add_argument("--check-minimal", action="store_true")
    parser.add_argument("--passes-only", action="store_true", help="no localisation, no warm compiler")
    args = parser.parse_args()
    mode = "passes only (no localisation, no warm compiler)" if args.passes_only else "localisation + warm compiler"
    print(f"reduce, -j {args.jobs}, {os.cpu_count()} cores, {mode}, load average {os.getloadavg()[0]:.1f}")
    print_table(run_case(name, args.jobs, args.check_minimal, args.passes_only) for name in args.only or CASES)


def print_table(rows: Iterable[dict]) -> None:
    """Markdown rows as they come (the first row's keys are the columns), each printed at once."""
    columns = None
    for row in rows:
        if columns is None:
            columns = list(row)
            print("| " + " | ".join(columns) + " |")
            print("|" + "---|" * len(columns))
        print("| " + " | ".join(str(row[c]) for c in columns) + " |", flush=True)


if __name__ == "__main__":
    main()
