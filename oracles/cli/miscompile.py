"""`python -m oracles.miscompile write-inputs FILE --seed N`: the inputs the miscompile oracle used."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from oracles.data.arrays import (
    entry_signature,
    input_flag,
    inputs_for_signature,
    write_array,
)

# `python -m oracles.miscompile write-inputs FILE --seed N`: the inputs the oracle used.


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracles.miscompile")
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write-inputs", help="write the seeded inputs of FILE's entry function as arg<i>.npy")
    write.add_argument("file")
    write.add_argument("--seed", type=int, default=0)
    write.add_argument("--dir", default=".", help="where to write (default: here)")
    args = parser.parse_args(argv)
    try:
        function, arg_types = entry_signature(Path(args.file).read_text())
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    flags = []
    for i, value in enumerate(inputs_for_signature(arg_types, args.seed)):
        flag, path = input_flag(value, f"arg{i}")
        write_array(value, None if path is None else Path(args.dir) / path)
        flags.append(flag)
    print(shlex.join([f"--function={function}", *flags]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
