"""The one error a command turns into a line and an exit status: a problem with the user's input."""

from __future__ import annotations

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C, as shells report SIGINT


class UserError(Exception):
    """A problem with the user's input; `str()` is one actionable line, `exit_code` the status."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code
