"""A fuzzing campaign: cases in worker processes for a time budget, findings deduped into the database.

Workers run cases with the warm in-process backend (`fuzz/pool.py`). A worker that dies (a
compiler crash) or a case that runs past its time limit does not stop the campaign: the worker
is replaced and the case runs again with the isolated backend, whose per-tool timeouts and signal
handling turn it into a crash or timeout finding. Each case is drawn with the swarm feature
probabilities of the moment (`fuzz.swarm`: feedback from the configurations and signatures the
cases before it reached, steering away from the known ones), and what its dispatches were
configured as is counted (`fuzz.coverage`).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fuzz.budget import ReductionTally
from fuzz.coverage import DispatchConfig
from fuzz.execute import CaseResult, backend_for, run_case
from fuzz.findings import FindingsDB
from fuzz.generation.draw import spec_for_seed
from fuzz.pipelines import DEFAULT_PIPELINES, resolve
from fuzz.pool import run_with_isolated_reruns
from fuzz.spec import GraphSpec, used_features
from fuzz.swarm import SwarmFeedback
from oracles.toolchain.tools import Limits
from reducer.corpus_entries import REPRODUCES, load_entries
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
    feedback: bool = True  # swarm feature probabilities follow what cases reached (fuzz.swarm)
    known: frozenset[str] = frozenset()  # failure signatures already known (the corpus's): feedback steers away from them
    required: tuple[str, ...] = ()  # generator features on in every case (`--require dynamic`)
    # The command's time budget (fuzz/budget.py): when to stop drawing, and when cases still running
    # are dropped, both by the new findings waiting for a reduction and the findings of this run (a
    # corpus entry's too). None: `seconds` alone decides.
    stop_drawing: Callable[..., bool] | None = None
    cut_off: Callable[..., float] | None = None


@dataclass
class CampaignStats:
    cases: int = 0
    seconds: float = 0.0
    isolated_reruns: int = 0
    by_kind: Counter = field(default_factory=Counter)  # every finding, duplicates included
    by_signature: Counter = field(default_factory=Counter)  # how often each signature was seen in this run
    new: list[tuple[str, CaseResult]] = field(default_factory=list)  # (signature, case) first seen now
    configs: Counter = field(default_factory=Counter)  # DispatchConfig -> dispatches configured so
    lds: dict[str, tuple[int, str]] = field(default_factory=dict)  # GPU target -> (largest workgroup memory, kernel)
    complete: int = 0  # cases whose every pipeline compiled, ran and was compared (or compiled, on a GPU without one)
    cpu_seconds: float = 0.0  # the workers' CPU time for the cases
    rewarded: int = 0  # cases that reached a rare configuration or a new signature
    repeats: int = 0  # cases whose every finding was known already (the corpus, an earlier case or run)
    split: dict[str, float] = field(default_factory=dict)  # the command's wall time: campaign, reductions (fuzz/cli.py)
    reductions: ReductionTally = field(default_factory=ReductionTally)  # the findings reduced after it, and why not the others

    @property
    def per_minute(self) -> float:
        return 60.0 * self.cases / self.seconds if self.seconds else 0.0


def known_signatures(corpus: Path) -> frozenset[str]:
    """The failure signatures of the corpus entries that still reproduce: bugs known already."""
    return frozenset(e.signature for e in load_entries(corpus) if e.state == REPRODUCES) if corpus.is_dir() else frozenset()


def case_seed(campaign_seed: int, index: int) -> int:
    """The seed of the campaign's index-th case: stable, so `fuzz replay` can rebuild it."""
    return campaign_seed * 1_000_003 + index


def _work(
    item: tuple[int, tuple | None], pipelines: tuple[str, ...], compile_timeout_s: float, gpu_drivers: tuple[str, ...], isolated: bool = False
) -> CaseResult:
    """One case: `item` is (seed, the swarm feature probabilities it is drawn with)."""
    seed, probabilities = item
    limits = Limits(timeout_s=compile_timeout_s)
    backend = backend_for(limits, isolated)
    spec = spec_for_seed(seed, dict(probabilities) if probabilities else None)
    return run_case(seed, spec, resolve(list(pipelines)), backend, gpu_drivers)


def case_configs(case: CaseResult) -> list[DispatchConfig]:
    return [DispatchConfig(*config) for run in case.runs for config in run.configs]


def is_complete(case: CaseResult) -> bool:
    """Every pipeline compiled, ran and was compared (a GPU target without a device: compiled)."""
    return bool(case.runs) and all(run.status in ("ok", "mismatch", "compiled") for run in case.runs)


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

    swarm = SwarmFeedback(settings.feedback, settings.known | {finding.signature for finding in db.all()}, settings.required)

    def waiting() -> int:
        """New findings that wait for a reduction (the corpus has the known ones)."""
        return sum(1 for signature, _ in stats.new if signature not in settings.known)

    def seeds() -> Iterator[tuple[int, tuple | None]]:
        for index in itertools.count():
            if time.monotonic() >= deadline or (settings.max_cases is not None and index >= settings.max_cases):
                return
            if settings.stop_drawing is not None and settings.stop_drawing(waiting(), pending=len(stats.new)):
                return
            yield case_seed(settings.seed, index), swarm.probabilities()

    def finish(case: CaseResult, ran_again: bool) -> None:
        stats.cases += 1
        stats.isolated_reruns += ran_again
        if on_case:
            on_case(case)
        db.record_case(case, started_wall, ran_again)
        configs = case_configs(case)
        stats.configs.update(configs)
        stats.complete += is_complete(case)
        stats.cpu_seconds += case.cpu_seconds
        for run in case.runs:
            for kernel, used in run.lds.items():
                if used > stats.lds.get(run.pipeline, (-1, ""))[0]:
                    stats.lds[run.pipeline] = (used, kernel)
        used = used_features(GraphSpec.from_json(case.spec_json))
        stats.rewarded += swarm.observe(used, configs, {f.signature for f in case.findings}) > 0
        stats.repeats = swarm.repeats
        for finding in case.findings:
            stats.by_kind[finding.kind] += 1
            stats.by_signature[finding.signature] += 1
            if db.record(finding, case):
                stats.new.append((finding.signature, case))
        stats.seconds = time.monotonic() - start
        if progress:
            progress(stats)

    try:
        cut_off = settings.cut_off
        run_with_isolated_reruns(work, seeds(), finish, settings.jobs, settings.case_timeout_s, cluster, slots,
                                 None if cut_off is None else lambda: cut_off(waiting(), pending=len(stats.new)))
    finally:
        stats.seconds = time.monotonic() - start
        settings_record = {"seed": settings.seed, "pipelines": list(settings.pipelines), "feedback": settings.feedback}
        db.record_run(started_wall, stats.seconds, stats.cases, len(stats.new), settings_record)
        db.close()
    return stats
