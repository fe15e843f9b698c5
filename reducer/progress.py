"""What a long run shows while it works: lines above, a live status line below (on a terminal).

A reduction can go a minute or more without an improvement; with only improvement lines it
looks hung. On a terminal a `rich` live line under the printed lines shows what the run is doing
now (the pass, the oracle calls done and in flight, the best so far, the rate, the time). When
the stream is not a terminal (CI logs) only the lines are printed, as plain text; quiet prints
nothing. `Display` is shared by `reduce`, `fuzz run` and `fuzz conformance`; `ReductionProgress`
is the observer a reduction reports to (`reducer.session.Request.observer`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from reducer.proposal import Proposal
from reducer.search.evaluate import EvaluationStats

REFRESH_PER_SECOND = 4


def elapsed_text(seconds: float) -> str:
    """1m 05s, 2h 03m: what a person reads at a glance."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"


class Display:
    """Lines printed above; on a terminal, `status()` redrawn below them a few times a second.

    `live` says whether the status line is shown (a terminal, not quiet); otherwise lines go out
    as plain text. Use as a context manager around the run.
    """

    def __init__(self, status: Callable[[], str] | None = None, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.console = Console(file=self.stream, highlight=False, soft_wrap=True)
        self.live = not quiet and status is not None and self.console.is_terminal and not self.console.is_dumb_terminal
        self.started = time.monotonic()
        self._status = status
        self._spinner = Spinner("dots", style="cyan")  # one object: its frame follows the time since it was made
        self._live: Live | None = None
        self._writing = threading.Lock()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def line(self, text: str) -> None:
        """One line above the status (or alone, without one), prefixed by the elapsed seconds."""
        if self.quiet:
            return
        stamped = f"[{self.elapsed:7.1f}s] {text}"
        if self._live is not None:
            self._live.console.print(Text(stamped))
            return
        # One write per line, one writer at a time: `-v` logs verdicts from the threads compiles
        # return on, and print's two writes (the text, then the newline) interleaved with theirs.
        with self._writing:
            self.stream.write(stamped + "\n")
            self.stream.flush()

    def _render(self) -> Spinner:
        self._spinner.update(text=Text(self._status() if self._status else ""))
        return self._spinner

    def __enter__(self) -> Display:  # noqa: PYI034 - returns this display
        if self.live:
            # transient: the status line goes when the run ends; what was printed above stays.
            self._live = Live(
                get_renderable=self._render,
                console=self.console,
                refresh_per_second=REFRESH_PER_SECOND,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


class ShowsProgress:
    """A progress object with a `display`: as a context manager, the live line runs while inside."""

    display: Display

    def __enter__(self):
        self.display.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.display.__exit__(*exc)


class ReductionObserver:
    """What a reduction tells whoever watches it. Every method does nothing here."""

    def started(self, stats: EvaluationStats, unit: str) -> None:
        """The evaluator's counters (read while it runs) and the size unit ("ops" or "nodes")."""

    def phase(self, name: str) -> None:
        """The step now running: judging the original, localisation, a pass, the final check."""

    def improved(self, best: Proposal) -> None:
        """A new best candidate (also the original, first)."""


class ReductionProgress(ReductionObserver, ShowsProgress):
    """The observer `reduce` hands to the reduction: improvement lines and a live status line."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.display = Display(self.status, stream, quiet)
        self.stats: EvaluationStats | None = None
        self.unit = "ops"
        self.current = "starting"
        self.best: Proposal | None = None

    def log(self, line: str) -> None:
        self.display.line(line)

    def started(self, stats: EvaluationStats, unit: str) -> None:
        self.stats, self.unit = stats, unit

    def phase(self, name: str) -> None:
        self.current = name

    def improved(self, best: Proposal) -> None:
        self.best = best

    def status(self) -> str:
        """One line: pass, calls done / in flight / cache hits, best so far, calls a minute, elapsed."""
        elapsed = self.display.elapsed
        parts = [self.current]
        if self.stats is not None:
            s = self.stats
            parts.append(f"calls {s.oracle_calls - s.in_flight} done, {s.in_flight} in flight, {s.cache_hits} cache hits")
            parts.append(f"{60.0 * s.oracle_calls / elapsed if elapsed > 0 else 0.0:.1f} calls/min")
        if self.best is not None:
            unit = self.unit[:-1] if self.best.ops == 1 else self.unit  # "1 op", "3 ops"
            parts.append(f"best {self.best.ops} {unit}, {self.best.candidate.size} bytes")
        parts.append(elapsed_text(elapsed))
        return " | ".join(parts)
