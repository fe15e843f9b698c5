"""The `fuzz` command (and `python -m fuzz`).

Its compile, run and reduce workers are spawned processes, which run the parent's main script
again before their first job: the script imports nothing at its top, the command's modules load
in `main`.
"""

import sys


def main() -> int:
    from fuzz.cli import main as run_command

    return run_command()


if __name__ == "__main__":
    sys.exit(main())
