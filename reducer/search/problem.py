"""The reduction problem: the one owner of a reduction's state, and the one door to the oracle.

Modelled on Shrink Ray's `ReductionProblem` and Hypothesis's `incorporate_new_buffer`: the
problem holds the original, the best candidate so far, the configured oracle (calibrated,
stopping early, on a warm compiler) and the statistics. Every verdict the reduction acts on,
localisation and the final check included, is asked of it, so every call is counted once and
nothing outside it touches an oracle or its stats. Improvements come in through `incorporate`,
which writes the result before anyone announces it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any, TypeVar

from oracles import Candidate, Oracle, Verdict
from oracles.candidate import CandidateRejected
from oracles.numeric.wrong_answer import same_headline_kind
from oracles.toolchain.flags import judging_shortcuts
from oracles.toolchain.warm import WarmCompiler
from reducer.proposal import Proposal, recording
from reducer.search.cut_values import CutValues
from reducer.search.editor import EditCrashed, Editor, LocalEditor
from reducer.search.evaluate import EvaluationStats, Evaluator
from reducer.search.interrupt import Interruption
from reducer.search.rejudge import judge_settled
from reducer.storage.verdict_store import VerdictStore

Log = Callable[[str], None]
R = TypeVar("R")

# `--candidate-timeout auto`: a candidate whose compile takes this many times the original's
# verdict (and at least the floor) is stopped there and counts as not interesting. A shape that
# sends the compiler into a minutes-long search is no repro anyone wants, and such calls can cost
# more than the rest of the reduction (an 18-op matmul-like block: 35 to 120 s a compile at odd
# sizes, 1.4 s the original's). Not the default: a result is then 1-minimal only among candidates
# that compile within the limit (docs/reduce/speed.md).
SLOW_FACTOR = 10.0
SLOW_FLOOR_S = 10.0


def candidate_compile_limit(original_s: float, asked: float | None) -> float | None:
    """The seconds a candidate's compile may take: `asked` (--candidate-timeout; 0: none below
    --timeout); None (auto): SLOW_FACTOR times the original's, at least SLOW_FLOOR_S."""
    if asked is not None:
        return asked or None
    return max(SLOW_FLOOR_S, SLOW_FACTOR * original_s)


class ReductionProblem:
    """One reduction: its original, best-so-far, oracle configuration and call statistics."""

    def __init__(
        self,
        original: Proposal,
        oracle: Oracle,
        *,
        jobs: int = 1,
        executor: Executor | None = None,
        store: VerdictStore | None = None,
        interruption: Interruption | None = None,
        write: Callable[[Proposal], None] | None = None,
        log: Log | None = None,
        verbose: bool = False,
        editor: Editor | None = None,
        candidate_timeout: float | None = 0.0,
    ) -> None:
        self.original = original
        self._candidate_timeout = candidate_timeout  # --candidate-timeout (0: none; None: auto, from the original's time)
        self.best = original
        self.calibration: Verdict | None = None  # the original's verdict, once judged
        self.interruption = interruption or Interruption()
        self.log = log or (lambda _: None)
        self._write = write or (lambda _: None)
        self._verbose = verbose
        self._evaluator = Evaluator(oracle, jobs, executor, store=store, interruption=self.interruption,
                                    on_verdict=self._tell if verbose else None)
        # Where candidate edits run (reducer/search/editor.py); by default in this process.
        self._editor = editor or LocalEditor(oracle.options.limits, oracle.options.opset_version)
        # Keys of every candidate that was the best: one never comes back, so two passes that undo
        # each other's edits (zeroing a scale, then making it 1 again) cannot cycle.
        self._former_bests: set[str] = {original.candidate.key}
        self._bests: list[Proposal] = [original]  # every best in turn: where a retreat goes back to
        self._shortcuts_used: tuple[str, ...] = ()  # the judging shortcuts any candidate was judged with
        self.located: Verdict | None = None  # the original's located verdict, when calibration located it
        self._unconfirmed_stop: str | None = None  # a phase compiles stop at, not yet checked on the original
        self._calls_lock = threading.Lock()
        self._cut_values = CutValues(oracle.values_at, self.log)
        self._offered: WarmCompiler | None = None  # a warm compiler loading (`offer_compiler`)
        self._early_check: _AgreementCheck | None = None  # its agreement check, begun beside localisation

    # -- the oracle's configuration ---------------------------------------------------------

    @property
    def oracle(self) -> Oracle:
        """The oracle as configured now (read-only: reconfiguring goes through the methods below)."""
        return self._evaluator.oracle

    @property
    def stats(self) -> EvaluationStats:
        return self._evaluator.stats

    @property
    def jobs(self) -> int:
        return self._evaluator.jobs

    def set_deadline(self, deadline: float | None) -> None:
        """After `deadline` (time.monotonic()), new candidates count as uninteresting."""
        self._evaluator.deadline = deadline

    def calibrate(self, locate: bool = False) -> Verdict:
        """Judges the original and pins the oracle to its failure; the verdict (interesting or not).

        With `locate`, and an oracle whose located compile judges as its plain one does, that one
        compile also says where the failure is and in which phase (kept as `located`): a large
        original is compiled once, not once per question.
        """
        if locate and self.oracle.locates and self.oracle.judges_located:
            verdict = self.located = self.locate_settled(self.original.candidate)
            self._evaluator.remember(self.original.candidate, verdict)
        else:
            verdict = self.judge(self.original.candidate)
        if verdict.interesting:
            self.calibration = verdict
            self._uncalibrated = self.oracle
            limit = candidate_compile_limit(verdict.seconds, self._candidate_timeout)
            self._evaluator.oracle = self.oracle.calibrated(verdict).with_compile_limit(limit)
        return verdict

    def pin_to_source(self, source: Proposal) -> Verdict | None:
        """Pins the oracle to the wrong answer of `source`, the op a wrong-value localisation traced
        the original's wrong answer to (its inputs right, its output wrong): a later Relu can turn
        the op's wrong signs into the original's wrong magnitudes, so the op alone is wrong its own
        way. The verdict (uncached, unpinned) when `source` is wrong the original's kind of way, else
        None and nothing changes."""
        unpinned = getattr(self, "_uncalibrated", None)
        if unpinned is None:
            return None
        verdict = self._fresh(unpinned, source.candidate)
        if not verdict.interesting or not same_headline_kind(self.calibration.metrics, verdict.metrics):
            return None  # another kind of wrong answer is another bug: the user's stays pinned
        self.calibration = verdict
        self._evaluator.oracle = unpinned.calibrated(verdict).with_compile_limit(self.oracle.compile_limit_s)
        self._evaluator.forget()
        return verdict

    def stop_early(self, phase: str, checked: bool = True) -> bool:
        """Compiles stop at `phase` from now on, if the original still fails the same way there.

        Unchecked (the phase comes from the original's own located compile, where the phases
        before it were dumped and it failed), the check waits: `confirm_stop` runs it only if
        no candidate showed the failure at that phase.
        """
        stopping = self.oracle.stopping_at(phase)
        if stopping is self.oracle:
            return False
        stopping = stopping.with_shortcuts(judging_shortcuts(self.original.candidate.flags, phase))
        if checked and not self._fresh(stopping, self.original.candidate).interesting:
            return False
        self._evaluator.oracle = stopping
        self._shortcuts_used = self._shortcuts_used or stopping.shortcuts
        if not checked:
            self._unconfirmed_stop = phase
        return True

    def confirm_stop(self) -> bool:
        """Whether compiles may go on stopping at an unchecked phase: the original compiled only that
        far must still fail. If not, they are whole compiles again and the verdicts judged at the
        phase are forgotten."""
        if self._unconfirmed_stop is None:
            return True
        self._unconfirmed_stop = None
        if self._fresh(self.oracle, self.original.candidate).interesting:
            return True
        self._evaluator.oracle = self.oracle.stopping_at(None).with_shortcuts(())
        self._evaluator.forget()
        self._shortcuts_used = ()  # no best came in while they were on: a later refusal is the tool's to report
        return False

    def stop_confirmed(self) -> None:
        """A candidate showed the failure at the unchecked phase: the phase holds."""
        self._unconfirmed_stop = None

    def offer_compiler(self, compiler: WarmCompiler) -> None:
        """`compiler` is loading. At -j 2 or more, the first candidate a localisation judges one at a
        time is also judged on it, beside that compile (on a worker that would idle): `attach_compiler` then finds
        its agreement check done, where it would take a worker from the passes' first candidates."""
        self._offered = compiler if self.jobs > 1 else None

    def attach_compiler(self, compiler: WarmCompiler, check: Proposal, meanwhile: Iterable[Proposal] | None = None) -> bool:
        """Compiles run on `compiler` from now on, once one warm compile of `check` gives the verdict
        `iree-compile` gave (diagnostics printed differently would change every signature).
        `meanwhile`: what the search judges first, judged by the tool on the workers the check
        leaves idle (verdicts as trusted as any before the switch). A check begun beside the
        localisation on the oracle as it is now (`offer_compiler`) stands for the one on `check`."""
        if self.out_of_time():
            return False
        early, self._early_check, self._offered = self._early_check, None, None
        if early is not None and (early.compiler, early.oracle) != (compiler, self.oracle):
            early = None  # begun for another compiler, or compiles were reconfigured since
        expected = self.judge(early.candidate if early is not None else check.candidate)
        agreement = early or self._agreement_check(compiler, check.candidate)
        self.spare_work(meanwhile)
        try:
            seen = self._evaluator.result(agreement.verdict)
        finally:
            self.spare_work(None)
        if (seen.interesting, seen.signature) != (expected.interesting, expected.signature):
            self.log(f"warm compiler off: it saw {seen.detail!r} where iree-compile saw {expected.detail!r}")
            return False
        self._evaluator.oracle = self.oracle.with_compiler(compiler)
        self.log(f"warm compiler on ({compiler.workers} workers)")
        return True

    def whole_compiles(self) -> Oracle:
        """The oracle compiling as the printed command does: the whole compile, run as the tool
        (the final check, the dispatch alone)."""
        return self.oracle.stopping_at(None).with_shortcuts(()).with_compiler(None)

    def full_compiles(self) -> None:
        """Every compile from now on is the whole compile (`whole_compiles`)."""
        self._evaluator.oracle = self.whole_compiles()

    # -- verdicts -----------------------------------------------------------------------------

    def judge(self, candidate: Candidate) -> Verdict:
        """The (cached) verdict on one candidate."""
        return self._evaluator.judge(candidate)

    def judge_all(self, proposals: Iterable[Proposal], first: bool = False) -> list[bool]:
        """Which proposals are interesting and admissible. `first`: for a search that reads the
        verdicts in order and takes the first hit (a shrink search, smallest size first), none after
        it is awaited (each answers False, unread)."""
        return self._judged(proposals, lambda verdict: verdict.interesting, first)

    def judge_all_keeping(self, proposals: Iterable[Proposal], keeps: Callable[[Verdict, Verdict], bool],
                          first: bool = False) -> list[bool]:
        """Interesting, and `keeps(baseline, its verdict)` for the best's verdict or the original's:
        for passes that must not trade away what the failure shows (a plainer value must leave the
        wrong answer as plain as it is now, or as the original's)."""
        baselines = [self.judge(self.best.candidate)]  # cached: the best was judged when it came in
        if self.calibration is not None:
            baselines.append(self.calibration)
        return self._judged(proposals, lambda v: v.interesting and any(keeps(baseline, v) for baseline in baselines), first)

    def _judged(self, proposals: Iterable[Proposal], holds: Callable[[Verdict], bool], first: bool) -> list[bool]:
        judged: list[Proposal] = []
        enough = (lambda proposal, verdict: holds(verdict) and self._admissible([proposal], [True])[0]) if first else None
        verdicts = self._evaluator.verdicts(recording(proposals, judged), enough)
        return self._admissible(judged, [verdict is not None and holds(verdict) for verdict in verdicts])

    def verdicts(self, proposals: list[Proposal]) -> list[Verdict]:
        """The (cached) verdicts of `proposals`, judged at once: for searches that read what a
        candidate shows (which symptoms it lost), not only whether it is interesting."""
        return self._evaluator.verdicts(proposals)

    def guess(self, proposals: Iterable[Proposal | None] | None) -> None:
        """With -j 2 or more: what a search asks next if the verdicts it waits for go the likely
        way (see reducer/search/ddmin.py), judged before the spare work while a worker would idle;
        built one at a time as a worker frees, and dropped once the best changes (they were
        edits of the old one). Their verdicts are the cache's; nothing is decided by them. None
        ends the guess."""
        if proposals is None or self.jobs == 1:
            self._evaluator.guesses = None
            return
        self._evaluator.guesses = self._while_best_is(self.best, iter(proposals))

    def _while_best_is(self, base: Proposal, proposals: Iterator[Proposal | None]) -> Iterator[Candidate]:
        while self.best is base:
            proposal = next(proposals, base)
            if proposal is base:
                return
            if proposal is not None and self.best is base:
                yield proposal.candidate

    def spare_work(self, proposals: Iterable[Proposal] | None) -> None:
        """With -j 2 or more: candidates judged only while a worker would otherwise idle, waiting
        for a verdict the search needs (its guesses at what it asks later: the next passes' first
        candidates); drawn one at a time, so edits are made only when a worker is free. Their
        verdicts are the cache's; nothing is decided by them. None stops it."""
        self._evaluator.spare = (p.candidate for p in proposals) if proposals is not None and self.jobs > 1 else None

    def out_of_time(self) -> bool:
        """Past --time-budget: no verdict can change the best any more, so no edit is worth making."""
        return self._evaluator.out_of_time()

    def first_interesting(self, proposals: Iterable[Proposal], ahead: int | None = None) -> Proposal | None:
        """The earliest interesting of `proposals`, up to `ahead` (default: -j) judged at once."""
        admissible = (p for p in proposals if p.candidate.key not in self._former_bests)
        if ahead == 1:  # one compile at a time leaves a worker idle
            admissible = self._checking_beside(admissible)
        return None if self._evaluator.out_of_time() else self._evaluator.first_interesting(admissible, ahead)

    def _checking_beside(self, proposals: Iterator[Proposal]) -> Iterator[Proposal]:
        """`proposals`; as the first is judged, a compiler on offer judges it too (`offer_compiler`)."""
        for proposal in proposals:
            if self._offered is not None and self._early_check is None and not self.out_of_time():
                self._early_check = self._agreement_check(self._offered, proposal.candidate)
            yield proposal

    def _agreement_check(self, compiler: WarmCompiler, candidate: Candidate) -> _AgreementCheck:
        """One warm compile of `candidate` on the oracle as it is now, begun beside what else runs."""
        oracle = self.oracle
        warm = oracle.with_compiler(compiler)
        return _AgreementCheck(compiler, oracle, candidate, self._evaluator.start_beside(lambda: self._fresh(warm, candidate)))

    def _admissible(self, proposals: list[Proposal], interesting: list[bool]) -> list[bool]:
        """Interesting and able to become the best: not a former best, and time is left (past the
        budget a cached verdict must not keep the search going either)."""
        if self._evaluator.out_of_time():
            return [False] * len(proposals)
        return [ok and p.candidate.key not in self._former_bests for p, ok in zip(proposals, interesting, strict=True)]

    def locate(self, candidate: Candidate, debuginfo: bool = True, oracle: Oracle | None = None) -> Verdict:
        """One uncached compile that also says where the failure is (see Oracle.locate), by the
        oracle as configured now or by `oracle` (one derived from it: `whole_compiles`)."""
        self._count_call()
        verdict = (oracle or self.oracle).locate(candidate, debuginfo)
        if self._verbose:
            self._tell(verdict)
        return verdict

    def locate_settled(self, candidate: Candidate, debuginfo: bool = True, oracle: Oracle | None = None) -> Verdict:
        """`locate`, judged once more when this tool's limit decided it (as every verdict is)."""
        verdict = self.locate(candidate, debuginfo, oracle)
        return self.locate(candidate, debuginfo, oracle) if verdict.limit else verdict

    def known_verdict(self, candidate: Candidate) -> Verdict | None:
        """The verdict this run already has on `candidate` (in memory), or None: asks no oracle."""
        return self._evaluator.known(candidate)

    def judge_fresh(self, candidate: Candidate, oracle: Oracle | None = None) -> Verdict:
        """An uncached verdict (the final check: the written result must still fail), by the oracle
        as configured now or by `oracle` (one derived from it: `whole_compiles`)."""
        return self._fresh(oracle or self.oracle, candidate)

    def _fresh(self, oracle: Oracle, candidate: Candidate) -> Verdict:
        self._count_call()
        verdict = judge_settled(oracle, candidate)  # a verdict decided by a limit is judged once more
        if self._verbose:
            self._tell(verdict)
        return verdict

    def _count_call(self) -> None:
        with self._calls_lock:  # a located compile may run beside the final check
            self.stats.oracle_calls += 1

    def _tell(self, verdict: Verdict) -> None:
        """One line per oracle call (`reduce --verbose`): the answer and why."""
        self.log(f"oracle: {'interesting' if verdict.interesting else 'not interesting'}: {verdict.detail}")

    # -- edits -------------------------------------------------------------------------------

    def edit(self, fn: Callable[..., R], *args: Any, fallback: R) -> R:
        """`fn(session, *args)` on the editor (reducer/search/editor.py). Two outcomes are verdicts on
        that edit, `fallback` (no targets, no candidate), counted: a crash of its worker (logged), and
        a candidate a tool rejected (CandidateRejected: the exporter, the importer, the verifier or
        the checker; logged with --verbose): the one place, for every input format, where such a
        rejection becomes an uninteresting candidate and the step that asked goes on without it."""
        try:
            result, imports = self._editor.call(fn, *args)
        except EditCrashed as crash:
            self.stats.edit_crashes += 1
            self.log(f"an edit crashed its worker ({crash}): counted as invalid; a fresh worker goes on")
            return fallback
        except CandidateRejected as rejected:
            self.stats.rejected_edits += 1
            if self._verbose:
                self.log(f"edit rejected ({type(rejected).__name__}: {rejected}): counted as not interesting")
            return fallback
        self.stats.conversions += imports
        return result

    def with_cut_values(self, proposal: Proposal) -> Proposal:
        """`proposal` (an edit of the best) with the values the best computes where it cut
        (reducer/search/cut_values.py): what its new arguments run on."""
        return self._cut_values.fill(proposal, self.best)

    # -- the best candidate -------------------------------------------------------------------

    def incorporate(self, proposal: Proposal, by: str = "") -> None:
        """`proposal` (judged interesting) is the new best: written first, then announced."""
        old, self.best = self.best, proposal
        self._former_bests.add(proposal.candidate.key)
        if not self._bests or proposal.candidate.key != self._bests[-1].candidate.key:
            self._bests.append(proposal)
        self._write(proposal)
        if by:
            self.log(
                f"{by}: ops {old.ops} -> {proposal.ops}, bytes {old.candidate.size} -> "
                f"{proposal.candidate.size}, flags {len(proposal.candidate.flags)}"
            )

    def retreat(self, phase: str | None) -> Proposal | None:
        """After a final check found the best no longer failing as the user's compile does, and
        the search judged with shortcuts: the newest best that still fails (a bisection of the
        bests by whole compiles from the original, which calibration judged so) becomes the best,
        and compiles stop at `phase` without shortcuts from now on. None when no shortcut was
        used: then the check's verdict is the tool's to report."""
        shortcuts, self._shortcuts_used = self._shortcuts_used, ()
        if not shortcuts or len(self._bests) < 2:
            return None
        good, bad = 0, len(self._bests) - 1  # the best at `bad` is the one the final check refused
        while bad - good > 1:
            middle = (good + bad) // 2
            if self._fresh(self.oracle, self._bests[middle].candidate).interesting:
                good = middle
            else:
                bad = middle
        kept = self._bests[: good + 1]
        self._bests, self._former_bests = kept[:-1], {p.candidate.key for p in kept}
        self._evaluator.forget()  # verdicts judged with the shortcuts
        if phase is not None:
            self._evaluator.oracle = self.oracle.stopping_at(phase)
        self.log(f"final check: the result fails only with {' '.join(shortcuts)}; the passes again, without it, "
                 f"from the last best that fails as the user's compile does ({kept[-1].ops} ops)")
        self.incorporate(kept[-1])
        return kept[-1]

    def shutdown(self) -> None:
        self._evaluator.shutdown()
        self._editor.shutdown()


@dataclass(frozen=True)
class _AgreementCheck:
    """A warm compile of `candidate` begun beside its cold one, on `oracle` as configured then."""

    compiler: WarmCompiler
    oracle: Oracle
    candidate: Candidate
    verdict: Future
