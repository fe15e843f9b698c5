"""Wall time per step of one `reduce` command, from the process's start: the parts add up to the whole.

A summary that said "16.0 s" for a command that took 22.2 s (its failing-pass step and files came
after the clock stopped) misleads anyone who plans around it. The `reduce` command's clock
starts when its process did (Linux: /proc; elsewhere when this module was first imported; when a
shell exec'd it, as it began running Python), and each step runs until the next.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_IMPORTED = time.monotonic()
# Python starts and loads the command's entry in well under this; a process the kernel started
# longer before that was a shell until it exec'd Python (`bash -c '... && reduce ...'`, `exec
# reduce`): its earlier life is not the command's.
PYTHON_START_S = 3.0


def process_start() -> float:
    """The `time.monotonic()` value at which this process started running Python."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time after boot, in ticks
        uptime_s = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return _IMPORTED
    started = time.monotonic() - (uptime_s - started_s)
    return started if _IMPORTED - PYTHON_START_S <= started <= _IMPORTED else _IMPORTED


class StepClock:
    """Named steps, each from its start to the next one's; `start-up` runs from `started` (the
    process's start, for the `reduce` command; now, for a reduction run in a longer process such as
    a fuzz campaign) to the first."""

    def __init__(self, started: float | None = None) -> None:
        self._steps: list[tuple[str, float]] = [("start-up", time.monotonic() if started is None else started)]

    @property
    def started(self) -> float:
        """The `time.monotonic()` value the first step began at."""
        return self._steps[0][1]

    def step(self, name: str) -> None:
        self._steps.append((name, time.monotonic()))

    def parts(self) -> dict[str, float]:
        """Seconds per step name (a name that recurs adds up), in the order they first ran."""
        found: dict[str, float] = {}
        ends = [at for _, at in self._steps[1:]] + [time.monotonic()]
        for (name, began), ended in zip(self._steps, ends):
            found[name] = found.get(name, 0.0) + ended - began
        return found

    def total(self) -> float:
        return time.monotonic() - self._steps[0][1]
