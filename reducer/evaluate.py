"""Runs the oracle on candidates: content-hash cache, parallel window, deterministic answers."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass

from oracles import Candidate, Oracle, Verdict
from reducer.passes.base import Proposal


@dataclass
class EvaluationStats:
    oracle_calls: int = 0
    cache_hits: int = 0


class Evaluator:
    """Judges candidates with one oracle; `jobs` of them at once through a concurrent.futures executor.

    Compiles run as child processes, so a thread pool keeps every core busy; any other
    `concurrent.futures.Executor` can be passed in instead.
    """

    def __init__(self, oracle: Oracle, jobs: int = 1, executor: Executor | None = None, deadline: float | None = None) -> None:
        self.oracle = oracle
        self.deadline = deadline  # time.monotonic() after which every new candidate counts as uninteresting
        self.jobs = max(1, jobs)
        self.executor = executor or ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="oracle")
        self.cache: dict[str, Future] = {}
        self.stats = EvaluationStats()
        self._lock = threading.Lock()

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def submit(self, candidate: Candidate) -> Future:
        key = candidate.key
        with self._lock:
            if self.out_of_time() and key not in self.cache:
                expired: Future = Future()
                expired.set_result(Verdict(False, "", "time budget spent"))
                return expired
            if key in self.cache:
                self.stats.cache_hits += 1
                return self.cache[key]
            self.stats.oracle_calls += 1
            future = self.executor.submit(self.oracle.judge, candidate)
            self.cache[key] = future
            return future

    def judge(self, candidate: Candidate) -> Verdict:
        return self.submit(candidate).result()

    def first_interesting(self, proposals: Iterable[Proposal]) -> Proposal | None:
        """The earliest interesting proposal in order, testing up to `jobs` ahead."""
        stream = iter(proposals)
        pending: deque[tuple[Proposal, Future]] = deque()

        def fill() -> None:
            while len(pending) < self.jobs:
                proposal = next(stream, None)
                if proposal is None:
                    return
                pending.append((proposal, self.submit(proposal.candidate)))

        fill()
        while pending:
            proposal, future = pending.popleft()
            if future.result().interesting:
                return proposal
            fill()
        return None

    def judge_all(self, proposals: list[Proposal]) -> list[bool]:
        futures = [self.submit(p.candidate) for p in proposals]
        return [f.result().interesting for f in futures]

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
