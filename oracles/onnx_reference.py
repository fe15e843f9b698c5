"""`python -m oracles.onnx_reference write-inputs MODEL | check MODEL`: see oracles/cli/onnx_reference.py."""

import sys

from oracles.cli.onnx_reference import main

if __name__ == "__main__":
    sys.exit(main())
