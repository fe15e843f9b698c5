"""Runs the oracle on candidates: content-hash cache, verdicts kept on disk, any executor."""

from __future__ import annotations

import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass

from oracles import Candidate, Oracle, Verdict
from reducer.proposal import Proposal
from reducer.search.interrupt import Interruption
from reducer.search.rejudge import judge_settled
from reducer.storage.verdict_store import VerdictStore


@dataclass
class EvaluationStats:
    oracle_calls: int = 0
    cache_hits: int = 0  # answered without a call: this run's memory or the disk store
    stored_hits: int = 0  # of those, from verdicts an earlier run left on disk
    failed_calls: int = 0  # the call itself broke (a cluster worker died): counted uninteresting
    ruled_out: int = 0  # answered by the oracle without a call: cannot show the failure (Oracle.ruled_out)
    conversions: int = 0  # format changes run for passes (an ONNX graph imported back to MLIR)
    edit_crashes: int = 0  # edits that killed their worker (a crash in the bindings): counted invalid
    rejected_edits: int = 0  # edits whose candidate a tool rejected (exporter, importer, verifier): not interesting
    timed_out: int = 0  # calls stopped at the time limit, twice (rejudge.py): counted uninteresting
    in_flight: int = 0  # calls sent to the executor and not back yet (the live status line shows it)


Enough = Callable[[Proposal, Verdict], bool]  # a verdict that settles a search reading verdicts in order

SPARE_POLL_S = 0.5  # how long a wait with spare work looks away from Ctrl-C at most


def _settled(verdict: Verdict) -> Future:
    future: Future = Future()
    future.set_result(verdict)
    return future


def _interesting(future: Future) -> bool:
    return future.done() and verdict_of(future).interesting


def verdict_of(future: Future) -> Verdict:
    """The call's verdict; a call that raised (a lost worker) is a failed call, not a dead reduction."""
    try:
        return future.result()
    except Exception as err:  # noqa: BLE001  (whatever broke the call, the reduction goes on)
        return Verdict(False, "", f"oracle call failed: {type(err).__name__}: {err}", {"failed": 1})


class Evaluator:
    """Judges candidates with one oracle; `jobs` of them at once through a concurrent.futures executor.

    Compiles run as child processes, so a thread pool keeps every core busy; any other
    `concurrent.futures.Executor` (a Dask cluster's, see reducer/search/cluster.py) can be passed in.
    With a `store`, verdicts outlive the run; a verdict on disk is only reused under the same
    oracle, options, calibration and IREE build (see reducer/storage/verdict_store.py).
    """

    def __init__(
        self,
        oracle: Oracle,
        jobs: int = 1,
        executor: Executor | None = None,
        deadline: float | None = None,
        store: VerdictStore | None = None,
        interruption: Interruption | None = None,
        on_verdict: Callable[[Verdict], None] | None = None,
    ) -> None:
        self.oracle = oracle
        self.on_verdict = on_verdict  # told every verdict a call returns (reduce --verbose)
        self.interruption = interruption or Interruption()
        self.deadline = deadline  # time.monotonic() after which every new candidate counts as uninteresting
        self.jobs = max(1, jobs)
        self.executor = executor or ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="oracle")
        self.store = store
        self.cache: dict[str, Future] = {}
        self.stats = EvaluationStats()
        self._lock = threading.RLock()  # a call already done runs its callback inside submit
        self._running: set[Future] = set()
        # Candidates judged only while a worker would idle waiting for a verdict: the search's
        # guesses at its next step first (see `ReductionProblem.guess`), then the next passes'
        # first candidates (see `ReductionProblem.spare_work`).
        self.guesses: Iterator[Candidate] | None = None
        self.spare: Iterator[Candidate] | None = None

    def forget(self) -> None:
        """Drops this run's remembered verdicts: they were judged against another pin (the disk
        store keys on the oracle's configuration, so it needs no forgetting)."""
        with self._lock:
            self.cache.clear()

    def remember(self, candidate: Candidate, verdict: Verdict) -> None:
        """`verdict`, judged elsewhere (the original's located compile), answers `candidate` from now on."""
        with self._lock:
            self.cache[self.oracle.call_key(candidate)] = _settled(verdict)

    def known(self, candidate: Candidate) -> Verdict | None:
        """The verdict a call of this run already returned on `candidate`, else None."""
        with self._lock:
            future = self.cache.get(self.oracle.call_key(candidate))
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return future.result()

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def submit(self, candidate: Candidate) -> Future:
        self.interruption.check()  # Ctrl-C stops the search here, between native calls
        key = self.oracle.call_key(candidate)
        with self._lock:
            if key in self.cache:
                self.stats.cache_hits += 1
                return self.cache[key]
            stored_key = self.store.key(self.oracle, candidate) if self.store else None
            stored = self.store.get(stored_key) if self.store and stored_key else None
            if stored is not None:
                self.stats.cache_hits += 1
                self.stats.stored_hits += 1
                future = _settled(stored)
            elif self.out_of_time():
                return _settled(Verdict(False, "", "time budget spent"))
            elif (ruled_out := self.oracle.ruled_out(candidate)) is not None:
                self.stats.ruled_out += 1
                future = _settled(ruled_out)
            else:
                self.stats.oracle_calls += 1
                self.stats.in_flight += 1
                future = self.executor.submit(judge_settled, self.oracle, candidate)
                self._running.add(future)
                future.add_done_callback(lambda done: self._finished(done, stored_key))
            self.cache[key] = future
            return future

    def _finished(self, future: Future, stored_key: str | None) -> None:
        with self._lock:
            self.stats.in_flight -= 1
            self._running.discard(future)
        if future.cancelled():
            return
        if future.exception() is not None:
            with self._lock:
                self.stats.failed_calls += 1
            return
        if future.result().limit == "timeout":
            with self._lock:
                self.stats.timed_out += 1
        if self.on_verdict is not None:
            self.on_verdict(future.result())
        if self.store and stored_key and not self.interruption.requested:  # a killed compile proves nothing
            self.store.put(stored_key, future.result())

    def judge(self, candidate: Candidate) -> Verdict:
        return self.result(self.submit(candidate))

    def result(self, future: Future, batch: Iterable[Future] = ()) -> Verdict:
        """The verdict of `future`; while it is not in and a worker is free, spare work runs.

        `batch`: the calls awaited with it. The search's guesses assume none of them is
        interesting, and the spare work that the best stays as it is: once one is interesting,
        both are dropped (the search commits a new best instead)."""
        while not future.done() and (self.guesses is not None or self.spare is not None):
            with self._lock:
                running, free = set(self._running), self.stats.in_flight < self.jobs
            if not free:
                wait(running | {future}, timeout=SPARE_POLL_S, return_when=FIRST_COMPLETED)
                continue
            if any(_interesting(done) for done in batch):
                self.guesses = self.spare = None
                break
            candidate = self._next_spare()
            if candidate is None:
                break  # nothing more to judge meanwhile
            if self.oracle.call_key(candidate) not in self.cache:
                self.submit(candidate)
        return verdict_of(future)

    def start_beside(self, call: Callable[[], Verdict]) -> Future:
        """`call` started on a thread of its own, a call the executor does not run (the warm
        compiler's agreement check): it counts as one busy worker until it ends, and while `result`
        waits for it spare work takes the others."""
        with self._lock:
            self.stats.in_flight += 1
        outside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beside")
        future = outside.submit(call)
        future.add_done_callback(lambda _: self._release())
        outside.shutdown(wait=False)  # its thread ends with the call
        return future

    def _release(self) -> None:
        with self._lock:
            self.stats.in_flight -= 1

    def _next_spare(self) -> Candidate | None:
        """The search's next guess; once its guesses are all made (or it has none), the next of the
        spare work (the next passes' candidates, or a shape search's next dimensions: further off
        than anything the search says it asks, but a worker that would idle costs nothing)."""
        if self.out_of_time():
            self.guesses = self.spare = None
            return None
        if self.guesses is not None:
            guess = next(self.guesses, None)
            if guess is not None:
                return guess
            self.guesses = None  # the search's guesses are all made: a worker still idle takes spare work
        if self.spare is not None:
            candidate = next(self.spare, None)
            if candidate is None:
                self.spare = None
            return candidate
        return None

    def first_interesting(self, proposals: Iterable[Proposal], ahead: int | None = None) -> Proposal | None:
        """The earliest interesting proposal in order, testing up to `ahead` (default: `jobs`) at once."""
        stream = iter(proposals)
        pending: deque[tuple[Proposal, Future]] = deque()

        def fill() -> None:
            while len(pending) < (ahead or self.jobs):
                proposal = next(stream, None)
                if proposal is None:
                    return
                pending.append((proposal, self.submit(proposal.candidate)))

        fill()
        while pending:
            proposal, future = pending.popleft()
            if self.result(future).interesting:
                return proposal
            fill()
        return None

    def verdicts(self, proposals: Iterable[Proposal], enough: Enough | None = None) -> list[Verdict | None]:
        """Each proposal is submitted as soon as the iterable yields it, then all are awaited in
        order. With `enough`, none after the first verdict it accepts (None in their place): a
        search that takes the first hit in order need not wait for a call still running on a
        candidate it will not read, and one not started yet is withdrawn."""
        pairs = [(p, self.submit(p.candidate)) for p in proposals]
        futures = [future for _, future in pairs]
        if enough is not None:
            for at, (proposal, future) in enumerate(pairs[:-1]):
                future.add_done_callback(functools.partial(self._moot_after, proposal, enough, pairs[at + 1 :]))
        found: list[Verdict | None] = []
        for at, (proposal, future) in enumerate(pairs):
            verdict = self.result(future, futures)
            found.append(verdict)
            if enough is not None and enough(proposal, verdict):
                for later, unread in pairs[at + 1 :]:
                    self._withdraw(later.candidate, unread)
                return found + [None] * (len(pairs) - at - 1)
        return found

    def _moot_after(self, proposal: Proposal, enough: Enough, later: list[tuple[Proposal, Future]], done: Future) -> None:
        """A verdict in before those ahead of it that settles the search if they do not: nothing
        after it will be read, so a call on one not started yet is withdrawn now, not run while
        the search waits (ResNet-50's spatial dims: 2 held while 1 was judged, and 42 started)."""
        if done.cancelled() or done.exception() is not None or not enough(proposal, done.result()):
            return
        for unread, future in later:
            self._withdraw(unread.candidate, future)

    def _withdraw(self, candidate: Candidate, future: Future) -> None:
        """A call no one waits for any more: dropped if no worker has started it (as if never asked)."""
        with self._lock:  # once: a verdict in early and the search reading it may both withdraw it
            if future.cancelled() or not future.cancel():
                return
            self.stats.oracle_calls -= 1
            key = self.oracle.call_key(candidate)
            if self.cache.get(key) is future:
                del self.cache[key]

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        if self.store:
            self.store.close()
