"""The reduction loop: every registered pass, in order, until a whole round changes nothing."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain

from reducer.proposal import Proposal, recording
from reducer.search import ddmin
from reducer.search.editor import EditSession
from reducer.search.problem import ReductionProblem
from reducer.search.protocol import ReductionPass, ScheduledPass, Search, ShrinkPass
from reducer.storage.resume_state import Position

Log = Callable[[str], None]
LINEAR_SCAN_LIMIT = 16


@dataclass
class PassRecord:
    """What one pass achieved over the whole run (for the summary)."""

    successes: int = 0
    ops_removed: int = 0
    bytes_removed: int = 0
    seconds: float = 0.0
    candidates: int = 0  # the candidates its searches asked verdicts on (cache hits too)

    def rank(self) -> tuple[float, float]:
        """Its order in a later round (smallest first): what it removed per candidate, ops before bytes."""
        judged = max(self.candidates, 1)
        return (-self.ops_removed / judged, -self.bytes_removed / judged)


@dataclass
class Reduction:
    original: Proposal
    best: Proposal
    rounds: int = 0
    passes: dict[str, PassRecord] = field(default_factory=dict)


class Reducer:
    """Runs passes over a problem's best candidate; every verdict and improvement goes through it."""

    def __init__(
        self,
        problem: ReductionProblem,
        passes: Sequence[ScheduledPass],
        on_pass: Callable[[str], None] | None = None,
        start: Position | None = None,
        on_position: Callable[[Position], None] | None = None,
        shrink_threshold: float = ddmin.DEFAULT_SHRINK_THRESHOLD,
        on_round: Callable[[Proposal], None] | None = None,
    ) -> None:
        self.problem = problem
        # told the best as each later round starts: a round that confirms it leaves it the result
        self.on_round = on_round or (lambda _: None)
        # Shrink searches take no step that gains less than this share of a size (--shrink-threshold).
        self.shrink_threshold = shrink_threshold
        # (pass, dimension) -> (the size a search stopped at for the threshold, the largest known to lose the failure).
        self.stopped: dict[tuple[str, str], tuple[int, int]] = {}
        self.on_pass = on_pass or (lambda _: None)  # told each pass as it starts (the live status line)
        self.on_position = on_position or (lambda _: None)  # told each pass as it starts (reduce --resume)
        self.passes = list(passes)
        self.order = list(self.passes)  # this round's passes in the order it runs them (_round_order)
        self.position = start or Position()
        # (pass, dimension) -> the size a shrink search last left it at: probed cheaply next time.
        self._settled: dict[tuple[str, str], int] = {(p, k): size for p, k, size in self.position.settled}
        # pass -> the key of the best it last ran on and could not reduce: on that same best it is
        # skipped (its proposals and their verdicts would be the same), so the confirming last
        # round runs only the passes that have not seen its best yet.
        self._fruitless: dict[str, str] = {}

    def run(self) -> Reduction:
        """Every pass in order until a whole round changes nothing; the problem's best is the result."""
        original = self.problem.best
        result = Reduction(original, original, passes={p.name: PassRecord() for p in self.passes})
        position = self.position  # from where a resumed run stood
        while True:
            result.rounds = position.round
            self.order = self._round_order(result, position)
            if position.round > 1 and position.pass_index == 0:
                self.on_round(self.problem.best)
            for index in range(position.pass_index, len(self.order)):
                reduction = self.order[index]
                before = self.problem.best
                if self._fruitless.get(reduction.name) == before.candidate.key:
                    continue
                if self.problem.out_of_time():
                    return result
                position.pass_index = index
                position.settled = [(p, k, size) for (p, k), size in self._settled.items()]
                self.on_position(position)
                self.on_pass(f"{reduction.name} (round {result.rounds})")
                start = time.monotonic()
                after = functools.partial(self._first_candidates_after, index)
                self.problem.spare_work(after())
                try:
                    self._run_pass(reduction, result.passes[reduction.name], after)
                finally:
                    self.problem.spare_work(None)
                result.best = self.problem.best
                record = result.passes[reduction.name]
                record.seconds += time.monotonic() - start
                if result.best is not before:
                    position.changed = True
                    record.ops_removed += before.ops - result.best.ops
                    record.bytes_removed += before.candidate.size - result.best.candidate.size
                    self._fruitless.pop(reduction.name, None)
                else:
                    self._fruitless[reduction.name] = before.candidate.key
            if not position.changed:
                return result
            position.round, position.pass_index, position.changed, position.order = position.round + 1, 0, False, []

    def _round_order(self, result: Reduction, position: Position) -> list[ScheduledPass]:
        """The first round runs the table's order; a later one runs first the passes that removed
        the most per candidate they judged so far (ops, then bytes), the rest in the table's order
        (C-Vise and llvm-reduce spend their time by what passes achieved the same way). Candidates,
        not seconds: -j N orders as -j 1 does, so it writes the same result. A resumed round keeps
        the order it was started in."""
        by_name = {row.name: row for row in self.passes}
        if position.order and set(position.order) == set(by_name):
            return [by_name[name] for name in position.order]
        order = list(self.passes)
        if position.round > 1:
            order.sort(key=lambda row: result.passes[row.name].rank())
        position.order = [row.name for row in order]
        return order

    def first_candidates(self) -> Iterator[Proposal]:
        """The first candidates `run` judges from where it starts (while the best stays as it is)."""
        return self._first_candidates_after(self.position.pass_index - 1)

    def _first_candidates_after(self, index: int) -> Iterator[Proposal]:
        """The first candidates the passes after `index` judge in this round if the best stays as
        it is now (so, made only while it does): the spare work of idle workers at -j 2 or more.
        A ddmin pass first tries all its targets at once (`_sweeps_ahead`), a bisection its first probes, a shrink
        search its first dimension's first sizes, or where every dimension is settled each one's
        step down (in a last round, often the one compile its shapes cost)."""
        base = self.problem.best
        for row in self.order[index + 1 :]:
            if self._fruitless.get(row.name) == base.candidate.key:
                continue
            if self.problem.best is not base:
                return
            if row.search is Search.SHRINK:
                sizes = [(key, size) for key, size in self._dimensions(row.impl) if size > 1]
                # A new dimension's search usually moves the best (the probes of those after it
                # would be stale); a settled one's step down usually loses the failure.
                keys = self._unsettled(row.name, sizes)[:1] or self._sweep_order(row.name, sizes)
                yield from self._probes_ahead(row.name, row.impl, keys, base, None)
                continue
            n = self.problem.edit(_count, row.impl, base, fallback=0)
            if row.search is Search.DDMIN:
                yield from self._sweeps_ahead(row.impl, base, n)
                continue
            for probe in ddmin.bisect_probes(0, n - 1) if n else []:
                if self.problem.best is not base:
                    return
                proposal = self._proposal(row.impl, [probe])
                if proposal is not None:
                    yield proposal

    def _sweeps_ahead(self, reduction: ReductionPass, base: Proposal, n: int) -> Iterator[Proposal]:
        """A ddmin pass's first candidate (all its targets at once), and the next granularity's
        while every one made so far is known to lose the failure with no call left to wait for
        (ruled out, or judged): in a round that confirms a 2-op result, the op replaced by a
        constant after replacing both, which computes nothing."""
        for chunks in ddmin.sweeps(n):
            made = []
            for chunk in chunks:
                if self.problem.best is not base:
                    return
                proposal = self._proposal(reduction, list(chunk))
                if proposal is not None:
                    made.append(proposal)
                    yield proposal
            if not made or not all(self._known_to_lose(p) for p in made):
                return  # a level with no candidate (or one still to judge) ends the work ahead

    def _unless_moved(self, base: Proposal, search: _Holding, made: list[Proposal],
                      after: Callable[[], Iterator[Proposal]]) -> Iterator[Proposal]:
        """The next passes' first candidates, once a sweep that has moved nothing yet has nothing of
        its own left to judge ahead, while its search (`search`) holds nothing and every probe made
        ahead for the dimensions after it (`made`) is known to lose the failure: the sweep then
        ends as it stands, and the pass with it. The last sweep is often one recheck (ResNet-50's:
        one step down of one dimension); while that compile runs, a second worker judges what the
        next pass asks first."""
        if self.problem.best is base and search.held is None and all(self._known_to_lose(p) for p in made):
            yield from after()

    def _known_to_lose(self, proposal: Proposal) -> bool:
        verdict = self.problem.known_verdict(proposal.candidate)
        return verdict is not None and not verdict.interesting

    def _proposal(self, reduction: ReductionPass, indices: Sequence[int]) -> Proposal | None:
        """The best with `indices` of the pass's targets reduced, if valid and strictly smaller."""
        problem = self.problem
        if problem.out_of_time():
            return None  # no verdict could take it: the search runs out without editing a large model
        proposal = problem.edit(_apply, reduction, problem.best, list(indices), fallback=None)
        # Only strictly smaller candidates: the order is well-founded, so the loop ends.
        if proposal is None or proposal.cost >= problem.best.cost:
            return None
        return problem.with_cut_values(proposal)

    def _run_pass(self, row: ScheduledPass, record: PassRecord, after: Callable[[], Iterator[Proposal]]) -> None:
        """`after`: the first candidates of the passes after it (spare work while the pass waits)."""
        problem, reduction = self.problem, row.impl
        judge_all = _tallied(problem.judge_all, record)

        def count() -> int:
            return problem.edit(_count, reduction, problem.best, fallback=0)

        def propose(indices: Sequence[int]) -> Proposal | None:
            return self._proposal(reduction, indices)

        def commit(proposal: Proposal) -> None:
            record.successes += 1
            problem.incorporate(proposal, by=row.name)

        if row.search is Search.SHRINK:
            self._shrink(row.name, reduction, commit, record, after)
            return
        guess = problem.guess if problem.jobs > 1 else None
        if row.search is Search.BISECT:
            found = ddmin.bisect(count, propose, judge_all, commit, guess=guess)
            if not found and count() <= LINEAR_SCAN_LIMIT:
                # Few targets left: try each one, so the result is 1-minimal for this pass too.
                ddmin.ddmin(count, propose, judge_all, commit, start_size=1, guess=guess)
        else:
            ddmin.ddmin(count, propose, judge_all, commit, guess=guess)

    def _shrink(self, name: str, reduction: ShrinkPass, commit: Callable[[Proposal], None], record: PassRecord,
                after: Callable[[], Iterator[Proposal]]) -> None:
        """One dimension at a time, sweeping until a sweep shrinks nothing (new and moved
        dimensions first in each sweep, then the rechecks: `_sweep_order`).

        Dimensions interact (a smaller one can let another shrink further); resolving that here,
        where a size the search settled on before is only re-probed one smaller, is far cheaper
        than another round of every pass. A resize never adds ops and sizes only go down: it ends.
        """
        judge_all = functools.partial(self.problem.judge_all, first=True)  # shrink_value takes the first hit
        if reduction.keeps is not None:
            judge_all = functools.partial(self.problem.judge_all_keeping, keeps=reduction.keeps, first=True)
        judge_all = _tallied(judge_all, record)
        guess = self.problem.guess if self.problem.jobs > 1 else None
        shrunk = True
        while shrunk:
            shrunk = False
            keys = self._sweep_order(name, self._dimensions(reduction))
            for at, key in enumerate(keys):
                if self.problem.out_of_time():
                    return
                current = dict(self._dimensions(reduction)).get(key)
                if current is None or current <= 1:
                    continue
                base = self.problem.best
                search = _Holding(functools.partial(self._resized, reduction, base, key), judge_all)
                made: list[Proposal] = []
                ahead = recording(self._probes_ahead(name, reduction, keys[at + 1 :], base, search), made)
                self.problem.spare_work(ahead if shrunk else chain(ahead, self._unless_moved(base, search, made, after)))
                settled = (name, key)
                recheck = self._settled.get(settled) == current
                limit = ddmin.Threshold(self.shrink_threshold)
                moved = ddmin.shrink_value(current, search.propose, search.judge_all, commit, recheck, guess, limit)
                shrunk = shrunk or moved
                # Re-inserted, so `_settled` lists dimensions from the longest settled to the latest.
                self._settled.pop(settled, None)
                self._settled[settled] = dict(self._dimensions(reduction)).get(key, 0) if moved else current
                self._note_stop(settled, limit, recheck)

    def _sweep_order(self, name: str, sizes: list[tuple[str, int]]) -> list[str]:
        """The dimensions a sweep searches: first those no search has left at their size (new, or
        moved since), then the rechecks of settled ones. A recheck judges one step down on the
        best as it is when it runs; behind every search that may still move a size, it sees the
        best that sweep ends with, so the sweep after it finds its verdicts cached, where in
        table order a later shrink made each recheck before it stale and due again. The rechecks
        go from the longest settled to the latest: the first saw the most sizes move after it,
        so it is the likeliest to move, and one that moves makes every recheck before it stale."""
        fresh = self._unsettled(name, sizes)
        present = {key for key, _ in sizes}
        rechecks = [key for (row, key) in self._settled if row == name and key in present and key not in fresh]
        return fresh + rechecks

    def _unsettled(self, name: str, sizes: list[tuple[str, int]]) -> list[str]:
        """The dimensions no search has left at their size (new, or moved since), in table order."""
        return [key for key, size in sizes if self._settled.get((name, key)) != size]

    def _resized(self, reduction: ShrinkPass, base: Proposal, key: str, size: int) -> Proposal | None:
        """`base` with dimension `key` at `size`, if valid and no larger."""
        proposal = self.problem.edit(resize_edit, reduction, base, key, size, fallback=None)
        return proposal if proposal is not None and proposal.ops <= base.ops else None

    def _probes_ahead(self, name: str, reduction: ShrinkPass, keys: list[str], base: Proposal,
                      search: _Holding | None) -> Iterator[Proposal]:
        """The first probes of the dimensions after this one: what the search judges next, on the
        best it will start from; an idle worker at -j 2 or more judges them meanwhile, into the
        verdict cache. Each is made on the smallest size of this dimension seen to hold so far
        (`search.held`), which its search commits unless a smaller one holds, else on `base` (most
        settled dimensions keep their size; no `search`: on `base`); made only while the best is
        one of the two."""
        sizes = dict(self._dimensions(reduction)) if keys and self.problem.best is base else {}
        for key in keys:
            current = sizes.get(key)
            if current is None or current <= 1:
                continue
            recheck = self._settled.get((name, key)) == current
            for size in ddmin.first_probes(current, recheck, ddmin.Threshold(self.shrink_threshold)):
                on = (search.held if search is not None else None) or base
                if self.problem.best.candidate.key not in (base.candidate.key, on.candidate.key):
                    return
                proposal = self._resized(reduction, on, key, size)
                if proposal is not None:
                    yield proposal

    def _note_stop(self, settled: tuple[str, str], limit: ddmin.Threshold, recheck: bool) -> None:
        """Where a dimension's search stopped for the threshold (a later search that ends minimal
        forgets it; a recheck that finds nothing leaves it as it was)."""
        if limit.stopped_above is not None:
            self.stopped[settled] = (self._settled[settled], limit.stopped_above)
        elif not recheck:
            self.stopped.pop(settled, None)

    def threshold_stops(self) -> list[tuple[str, int, int]]:
        """(dimension, size, largest size known to lose the failure) of each dimension of the best
        that a shrink search left within the threshold of its smallest."""
        found = []
        for (name, key), (size, above) in self.stopped.items():
            row = next((p for p in self.passes if p.name == name), None)
            if row is not None and dict(self._dimensions(row.impl)).get(key) == size:
                found.append((key, size, above))
        return found

    def _dimensions(self, reduction: ShrinkPass) -> list[tuple[str, int]]:
        return self.problem.edit(dimensions_edit, reduction, self.problem.best, fallback=[])


class _Holding:
    """One dimension's search, watched: the smallest size seen to hold so far (`held`), which the
    search commits unless a smaller one holds (a size's cost need not fall with it: the text of
    a 25-wide dim is as long as a 48-wide one's)."""

    def __init__(self, propose: Callable[[int], Proposal | None], judge_all: Callable[[Iterable[Proposal]], list[bool]]) -> None:
        self._propose, self._judge_all = propose, judge_all
        self._sizes: dict[str, int] = {}
        self.held: Proposal | None = None
        self._held_size = 0

    def propose(self, size: int) -> Proposal | None:
        proposal = self._propose(size)
        if proposal is not None:
            self._sizes[proposal.candidate.key] = size
        return proposal

    def judge_all(self, proposals: Iterable[Proposal]) -> list[bool]:
        asked: list[Proposal] = []
        verdicts = self._judge_all(recording(proposals, asked))
        for proposal, ok in zip(asked, verdicts, strict=True):
            size = self._sizes.get(proposal.candidate.key)
            if ok and size is not None and (self.held is None or size < self._held_size):
                self.held, self._held_size = proposal, size
        return verdicts


def _tallied(judge_all: Callable[[Iterable[Proposal]], list[bool]], record: PassRecord) -> Callable[[Iterable[Proposal]], list[bool]]:
    """`judge_all` that counts in `record` each candidate as the search hands it over (lazily:
    the first are judged while the rest are made)."""

    def counted(proposals: Iterable[Proposal]) -> Iterator[Proposal]:
        for proposal in proposals:
            record.candidates += 1
            yield proposal

    return lambda proposals: judge_all(counted(proposals))


# The edits, run by the problem's editor (in a worker process: a crash there is a verdict on one edit).


def _count(session: EditSession, reduction: ReductionPass, current: Proposal) -> int:
    return reduction.count(current, session.ctx)


def _apply(session: EditSession, reduction: ReductionPass, current: Proposal, indices: list[int]) -> Proposal | None:
    return reduction.apply(current, indices, session.ctx)


def dimensions_edit(session: EditSession, reduction: ShrinkPass, current: Proposal) -> list[tuple[str, int]]:
    return reduction.dimensions(current, session.ctx)


def resize_edit(session: EditSession, reduction: ShrinkPass, current: Proposal, key: str, size: int) -> Proposal | None:
    return reduction.resize(current, key, size, session.ctx, session.import_onnx)
