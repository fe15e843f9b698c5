"""`python -m oracles.onnx_reference write-inputs MODEL | check MODEL [-- FLAGS]`: what the
reference-mismatch oracle saw, for an engineer at a shell. MODEL is an .onnx model or torch-onnx
IR (.mlir), which IREE compiles as it is and onnx.reference evaluates lifted to ONNX; the seeded
inputs of the two are the same (one draw per argument, in order)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError

from oracles.base import OracleOptions
from oracles.candidate import Candidate
from oracles.formats import Format, format_of, suffix_of
from oracles.inputs.attach import attach
from oracles.inputs.readers import read_sources
from oracles.numeric.reference_mismatch import ReferenceMismatch
from oracles.onnx.lift import lift_program
from oracles.onnx.reference import write_inputs


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    at = words.index("--") if "--" in words else len(words)
    parser = argparse.ArgumentParser(prog="python -m oracles.onnx_reference")
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write-inputs", help="write the seeded inputs (arg<i>) and onnx.reference's outputs (expected<j>)")
    check = commands.add_parser("check", help="import, compile with the flags after --, run, compare; exit 0 when IREE differs")
    for sub in (write, check):
        sub.add_argument("model", type=Path, help="an .onnx model or torch-onnx IR (.mlir)")
        sub.add_argument("--seed", type=int, default=0)
    write.add_argument("--dir", type=Path, default=Path("."), help="where to write (default: here)")
    check.add_argument("--opset-version", type=int, help="passed to iree-import-onnx")
    check.add_argument("--inputs", action="append", default=[], metavar="SOURCE",
                       help="run on this data instead of seeded inputs (as reduce --inputs; repeatable)")
    args = parser.parse_args(words[:at])
    try:
        program = format_of(args.model) is Format.MLIR
        if args.command == "write-inputs":
            data = args.model.read_bytes()
            model = lift_program(data.decode()).model if program else onnx.load_model_from_string(data)
            print(" ".join(write_inputs(model, args.seed, args.dir)))
            return 0
        flags = tuple(words[at + 1 :])
        if program:
            candidate = Candidate(args.model.read_text(), flags)
        else:
            candidate = Candidate(args.model.name, flags, suffix_of(Format.ONNX), args.model.read_bytes())
        if args.inputs:
            candidate = attach(candidate, read_sources(args.inputs))
    except (OSError, ValueError, DecodeError, UnicodeDecodeError) as err:
        print(f"error: {args.model}: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    oracle = ReferenceMismatch(OracleOptions(seed=args.seed, opset_version=args.opset_version))
    verdict = oracle.judge(candidate)
    print(verdict.excerpt or verdict.detail)
    if verdict.excerpt:
        print(verdict.detail)
    return 0 if verdict.interesting else 1


if __name__ == "__main__":
    sys.exit(main())
