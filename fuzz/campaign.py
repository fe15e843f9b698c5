"""A fuzzing campaign: cases in a process pool for a time budget, findings deduped into the database.

Workers run cases with the warm in-process backend (`fuzz/pool.py`). A worker that dies (a
compiler crash) or a case that runs past its time limit does not stop the campaign: the pool is
replaced and the case runs again with the isolated backend, whose per-tool timeouts and signal
handling turn it into a crash or timeout finding.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fuzz.execute import CaseResult, InProcess, Isolated, run_case
from fuzz.findings import FindingsDB
from fuzz.pipelines import DEFAULT_PIPELINES, resolve
from fuzz.pool import run_with_isolated_reruns
from fuzz.strategies import spec_for_seed
from oracles.toolchain.tools import Limits
from reducer.search.cluster import ClusterExecutor

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
    work = partial(_work, pipelines=settings.pipelines, compile_timeout_s=settings.compile_timeout_s, gpu_drivers=settings.gpu_drivers)
    # On a cluster, cases run isolated: a compiler crash must not take a shared worker with it.
    cluster = ClusterExecutor(settings.scheduler) if settings.scheduler else None
    slots = max(settings.jobs, cluster.workers) if cluster else settings.jobs

    def seeds() -> Iterator[int]:
        for index in itertools.count():
            if time.monotonic() >= deadline or (settings.max_cases is not None and index >= settings.max_cases):
                return
            yield case_seed(settings.seed, index)

    def finish(case: CaseResult, ran_again: bool) -> None:
        stats.cases += 1
        stats.isolated_reruns += ran_again
        if on_case:
            on_case(case)
        db.record_case(case, started_wall, ran_again)
        for finding in case.findings:
            stats.by_kind[finding.kind] += 1
            stats.by_signature[finding.signature] += 1
            if db.record(finding, case):
                stats.new.append((finding.signature, case))
        stats.seconds = time.monotonic() - start
        if progress:
            progress(stats)

    try:
        run_with_isolated_reruns(work, seeds(), finish, settings.jobs, settings.case_timeout_s, cluster, slots)
    finally:
        stats.seconds = time.monotonic() - start
        db.record_run(started_wall, stats.seconds, stats.cases, len(stats.new), {"seed": settings.seed, "pipelines": list(settings.pipelines)})
        db.close()
    return stats
