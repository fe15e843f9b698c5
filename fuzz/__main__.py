"""The `fuzz` command (and `python -m fuzz`).

Its compile, run and reduce workers are spawned processes, which run the parent's main script
again before their first job: the script imports nothing at its top, the command's modules load
in `main`.
"""

import sys


def main() -> int:
    from fuzz.cli import main as run_command
    from reducer.clock import process_start

    return run_command(started=process_start())  # --time counts from the process's start


if __name__ == "__main__":
    sys.exit(main())
