"""Work through warm worker processes; what a dead or hung worker held runs again, isolated.

Workers keep a warm compiler and runtime (about half the cost of a fresh tool per compile), so a
compiler crash kills a worker, not the caller. Each of the `jobs` slots has a worker of its own
(a one-worker pool), so a worker that dies or an item that runs past its time limit costs that
slot alone: its worker is replaced, and the new worker runs the item it held again with
`isolated=True` (every tool in its own process, with timeouts), which turns the crash or hang
into a result, while the other slots go on with their items. The fuzz campaign and the
conformance run share this loop.
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
from dataclasses import dataclass
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


@dataclass
class _Running:
    item: Any
    started: float
    slot: int
    again: bool  # the isolated re-run of an item whose worker died or hung


def run_with_isolated_reruns(
    work: Callable[..., Any],
    items: Iterator[Any],
    finish: Callable[[Any, bool], None],
    jobs: int,
    timeout_s: float,
    cluster: Executor | None = None,
    slots: int | None = None,
    cut_off: Callable[[], float] | None = None,
) -> None:
    """Calls `finish(work(item, isolated=...), ran_again)` for every item, `slots` (default `jobs`) at once.

    At `cut_off()` (a time.monotonic() value, asked again as items finish: it moves earlier once
    findings wait for their reductions) the items still running are dropped, their workers killed:
    the command's time is up (fuzz/budget.py).

    `work` must be picklable (a module-level function or a partial of one): workers are spawned.
    `items` is read only when a slot is free, so a generator can stop at a deadline. On a
    `cluster` the items run isolated there, one whose worker is lost runs again here, and the
    tools' own timeouts bound them.
    """
    if cluster is not None:
        _on_cluster(work, items, finish, cluster, slots or jobs)
        return
    local = _LocalSlots(work, jobs)
    try:
        while True:
            local.fill(items)
            if not local.in_flight:
                return
            limit = None if cut_off is None else cut_off()
            if limit is not None and time.monotonic() >= limit:
                return  # the finally below kills every worker, the running items with them
            wait_s = min(5.0, timeout_s) if limit is None else max(0.0, min(5.0, timeout_s, limit - time.monotonic()))
            lost = local.collect(finish, wait_s)
            lost += local.overdue(timeout_s)
            for running in lost:
                local.rerun(running, finish)
    finally:
        local.close()


class _LocalSlots:
    """`jobs` slots, each with a one-worker pool of its own (started on first use) and its running item."""

    def __init__(self, work: Callable[..., Any], jobs: int) -> None:
        self.work = work
        self.workers: list[ProcessPoolExecutor | None] = [None] * jobs
        self.in_flight: dict[Future, _Running] = {}

    def submit(self, slot: int, item: Any, again: bool) -> None:
        self.workers[slot] = self.workers[slot] or new_pool(1)
        future = self.workers[slot].submit(self.work, item, isolated=again)  # type: ignore[union-attr]
        self.in_flight[future] = _Running(item, time.monotonic(), slot, again)

    def fill(self, items: Iterator[Any]) -> None:
        """An item for each free slot, while `items` has any."""
        busy = {running.slot for running in self.in_flight.values()}
        for slot in (s for s in range(len(self.workers)) if s not in busy):
            item = next(items, _NONE_LEFT)
            if item is _NONE_LEFT:
                break
            self.submit(slot, item, False)

    def collect(self, finish: Callable[[Any, bool], None], wait_s: float) -> list[_Running]:
        """Finishes the items done within `wait_s`; returns those whose worker died."""
        done, _ = wait(list(self.in_flight), timeout=wait_s, return_when=FIRST_COMPLETED)
        lost: list[_Running] = []
        for future in done:
            running = self.in_flight.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                lost.append(running)
                continue
            finish(result, running.again)
        return lost

    def overdue(self, timeout_s: float) -> list[_Running]:
        """Takes out the first runs past `timeout_s` (an isolated re-run is bounded by its tools' timeouts)."""
        now = time.monotonic()
        return [self.in_flight.pop(f) for f, r in list(self.in_flight.items()) if not r.again and now - r.started > timeout_s]

    def rerun(self, running: _Running, finish: Callable[[Any, bool], None]) -> None:
        """Its worker died or hung: the slot's new worker runs it again, isolated."""
        kill_pool(self.workers[running.slot])  # type: ignore[arg-type]
        self.workers[running.slot] = None
        if running.again:  # an isolated run cannot take its worker down, but if it did: run it here
            finish(self.work(running.item, isolated=True), True)
        else:
            self.submit(running.slot, running.item, True)

    def close(self) -> None:
        for pool in self.workers:
            if pool is not None:
                kill_pool(pool)


def _on_cluster(work: Callable[..., Any], items: Iterator[Any], finish: Callable[[Any, bool], None], cluster: Executor, slots: int) -> None:
    """Items run isolated on the cluster; one whose worker the cluster lost runs again here."""
    in_flight: dict[Future, Any] = {}
    while True:
        while len(in_flight) < slots and (item := next(items, _NONE_LEFT)) is not _NONE_LEFT:
            in_flight[cluster.submit(work, item, isolated=True)] = item
        if not in_flight:
            return
        done, _ = wait(list(in_flight), timeout=5.0, return_when=FIRST_COMPLETED)
        for future in done:
            item = in_flight.pop(future)
            try:
                result, again = future.result(), False
            except Exception:  # noqa: BLE001  (the cluster lost the item's worker, however it says so: run it here)
                result, again = work(item, isolated=True), True
            finish(result, again)
