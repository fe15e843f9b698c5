"""A fuzzing campaign: cases in a process pool for a time budget, findings deduped into the database.

Workers run cases with the warm in-process backend. A worker that dies (a compiler crash) or a
case that runs past its time limit does not stop the campaign: the pool is replaced and the case
runs again with the isolated backend, whose per-tool timeouts and signal handling turn it into
a crash or timeout finding.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from fuzz.execute import CaseResult, InProcess, Isolated, run_case
from fuzz.findings import FindingsDB
from fuzz.pipelines import DEFAULT_PIPELINES, resolve
from fuzz.strategies import spec_for_seed
from oracles.toolchain import Limits
from oracles.warm import kill_pool, spawn_pool
from reducer.cluster import ClusterExecutor

DB_NAME = "findings.db"


@dataclass
class CampaignSettings:
    seconds: float
    seed: int
    out: Path
    jobs: int = 2
    pipelines: tuple[str, ...] = DEFAULT_PIPELINES
    max_cases: int | None = None
    case_timeout_s: float = 300.0
    compile_timeout_s: float = 120.0
    gpu_drivers: tuple[str, ...] = ()  # GPU pipelines on these drivers run and are compared
    scheduler: str | None = None  # a Dask scheduler: cases run on its cluster instead of the local pool


@dataclass
class CampaignStats:
    cases: int = 0
    seconds: float = 0.0
    isolated_reruns: int = 0
    by_kind: Counter = field(default_factory=Counter)  # every finding, duplicates included
    by_signature: Counter = field(default_factory=Counter)  # how often each signature was seen in this run
    new: list[tuple[str, CaseResult]] = field(default_factory=list)  # (signature, case) first seen now

    @property
    def per_minute(self) -> float:
        return 60.0 * self.cases / self.seconds if self.seconds else 0.0


def case_seed(campaign_seed: int, index: int) -> int:
    """The seed of the campaign's index-th case: stable, so `fuzz replay` can rebuild it."""
    return campaign_seed * 1_000_003 + index


def _work(seed: int, pipelines: tuple[str, ...], compile_timeout_s: float, gpu_drivers: tuple[str, ...], isolated: bool = False) -> CaseResult:
    limits = Limits(timeout_s=compile_timeout_s)
    backend = Isolated(limits) if isolated else InProcess(limits)
    return run_case(seed, spec_for_seed(seed), resolve(list(pipelines)), backend, gpu_drivers)


def _quiet_worker() -> None:
    """In-process compiles print their diagnostics to fd 2; findings carry them, the terminal need not."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    return spawn_pool(jobs, _quiet_worker)


_kill_pool = kill_pool  # the name other fuzz modules import


def run_campaign(
    settings: CampaignSettings,
    progress: Callable[[CampaignStats], None] | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> CampaignStats:
    resolve(list(settings.pipelines))  # unknown names fail before any work
    stats = CampaignStats()
    db = FindingsDB(settings.out / DB_NAME)
    started_wall, start = time.time(), time.monotonic()
    deadline = start + settings.seconds
    args = (settings.pipelines, settings.compile_timeout_s, settings.gpu_drivers)
    # On a cluster, cases run isolated: a compiler crash must not take a shared worker with it.
    cluster = ClusterExecutor(settings.scheduler) if settings.scheduler else None
    pool = cluster or _new_pool(settings.jobs)
    slots = max(settings.jobs, cluster.workers) if cluster else settings.jobs
    in_flight: dict[Future, tuple[int, float]] = {}
    index = 0

    def submit() -> None:
        nonlocal index
        while len(in_flight) < slots and time.monotonic() < deadline:
            if settings.max_cases is not None and index >= settings.max_cases:
                return
            seed = case_seed(settings.seed, index)
            index += 1
            in_flight[pool.submit(_work, seed, *args, cluster is not None)] = (seed, time.monotonic())

    def finish(case: CaseResult) -> None:
        stats.cases += 1
        if on_case:
            on_case(case)
        for finding in case.findings:
            stats.by_kind[finding.kind] += 1
            stats.by_signature[finding.signature] += 1
            if db.record(finding, case):
                stats.new.append((finding.signature, case))
        stats.seconds = time.monotonic() - start
        if progress:
            progress(stats)

    try:
        submit()
        while in_flight:
            done, _ = wait(list(in_flight), timeout=5, return_when=FIRST_COMPLETED)
            broken: list[int] = []
            for future in done:
                seed, _ = in_flight.pop(future)
                try:
                    finish(future.result())
                except BrokenProcessPool:
                    broken.append(seed)
                except Exception:  # the cluster lost the case's worker: run it here
                    if cluster is None:
                        raise
                    stats.isolated_reruns += 1
                    finish(_work(seed, *args, isolated=True))
            # Isolated cases on a cluster are bounded by their tools' own timeouts.
            overdue = [] if cluster else [f for f, (_, t0) in in_flight.items() if time.monotonic() - t0 > settings.case_timeout_s]
            if broken or overdue:
                # A worker died or hung: every case it shared the pool with is run again, isolated.
                broken += [seed for seed, _ in in_flight.values()]
                in_flight.clear()
                _kill_pool(pool)
                pool = _new_pool(settings.jobs)
                for seed in broken:
                    stats.isolated_reruns += 1
                    finish(_work(seed, *args, isolated=True))
            submit()
    finally:
        _kill_pool(pool)
        stats.seconds = time.monotonic() - start
        db.record_run(started_wall, stats.seconds, stats.cases, len(stats.new), {"seed": settings.seed, "pipelines": list(settings.pipelines)})
        db.close()
    return stats
