"""`python -m oracles.miscompile write-inputs FILE --seed N`: see oracles/cli/miscompile.py."""

import sys

from oracles.cli.miscompile import main

if __name__ == "__main__":
    sys.exit(main())
