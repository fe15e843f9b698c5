"""The `reduce` command (and `python -m reducer`).

Compile and edit workers are spawned processes, and a spawned process runs its parent's main
script again before its first job. So the script imports nothing at its top: the command's
modules load in `main`, and each worker starts without loading them (0.3 CPU s a worker).
"""

import sys


def main() -> int:
    from reducer.clock import process_start

    started = process_start()  # the command's wall time counts from the process's start (before its imports)
    from reducer.cli import main as run_command

    return run_command(started=started)


if __name__ == "__main__":
    sys.exit(main())
