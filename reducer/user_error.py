"""The one error a command turns into a line and an exit status: a problem with the user's input."""

from __future__ import annotations

import argparse
import sys

from oracles.refusals import EXIT_INTERRUPTED, EXIT_REFUSED

INTERRUPTED = EXIT_INTERRUPTED  # the exit status of a run stopped by Ctrl-C, as shells report SIGINT


class UserError(Exception):
    """A problem with the user's input; `str()` is one actionable line, `exit_code` the status."""

    def __init__(self, message: str, exit_code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class CommandLineParser(argparse.ArgumentParser):
    """argparse, but a command line it cannot read ends with the refusal status (1), as every other
    refusal does: argparse's own 2 would read as `reduce`'s "the original does not show the failure"."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_REFUSED, f"{self.prog}: error: {message}\n")
