"""Work through warm worker processes; what a dead or hung worker held runs again, isolated.

Workers keep a warm compiler and runtime (about half the cost of a fresh tool per compile), so a
compiler crash kills a worker, not the caller. When a worker dies or an item runs past its time
limit, the pool is replaced and every item it held runs again here with `isolated=True` (every
tool in its own process, with timeouts), which turns the crash or hang into a result. The fuzz
campaign and the conformance run share this loop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from oracles.toolchain.warm import kill_pool, spawn_pool

_NONE_LEFT = object()


def quiet_worker() -> None:
    """In-process compiles print their diagnostics to fd 2; results carry them, the terminal need not."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def new_pool(jobs: int) -> ProcessPoolExecutor:
    return spawn_pool(jobs, quiet_worker)


def run_with_isolated_reruns(
    work: Callable[..., Any],
    items: Iterator[Any],
    finish: Callable[[Any, bool], None],
    jobs: int,
    timeout_s: float,
    cluster: Executor | None = None,
    slots: int | None = None,
) -> None:
    """Calls `finish(work(item, isolated=...), ran_again)` for every item, `slots` (default `jobs`) at once.

    `work` must be picklable (a module-level function or a partial of one): workers are spawned.
    `items` is read only when a slot is free, so a generator can stop at a deadline. On a
    `cluster` the items run isolated there, one whose worker is lost runs again here, and the
    tools' own timeouts bound them.
    """
    pool: Executor = cluster or new_pool(jobs)
    in_flight: dict[Future, tuple[Any, float]] = {}
    try:
        while True:
            while len(in_flight) < (slots or jobs) and (item := next(items, _NONE_LEFT)) is not _NONE_LEFT:
                in_flight[pool.submit(work, item, isolated=cluster is not None)] = (item, time.monotonic())
            if not in_flight:
                return
            done, _ = wait(list(in_flight), timeout=min(5.0, timeout_s), return_when=FIRST_COMPLETED)
            lost: list[Any] = []
            for future in done:
                item, _ = in_flight.pop(future)
                try:
                    finish(future.result(), False)
                except BrokenProcessPool:
                    lost.append(item)
                except Exception:  # the cluster lost the item's worker: run it here
                    if cluster is None:
                        raise
                    finish(work(item, isolated=True), True)
            overdue = cluster is None and any(time.monotonic() - t0 > timeout_s for _, t0 in in_flight.values())
            if lost or overdue:
                # A worker died or hung: every item it shared the pool with runs again, isolated.
                lost += [item for item, _ in in_flight.values()]
                in_flight.clear()
                kill_pool(pool)
                pool = new_pool(jobs)
                for item in lost:
                    finish(work(item, isolated=True), True)
    finally:
        kill_pool(pool)
