"""`python -m oracles.judge SPEC FILE`: see oracles/cli/judge.py."""

import sys

from oracles.cli.judge import main

if __name__ == "__main__":
    sys.exit(main())
