"""The search strategies, independent of IR: delta-debugging chunks and a k-ary bisection.

All take `propose(indices) -> T | None` (a candidate with those targets reduced, None when
invalid) and `judge_all(candidates) -> list[bool]` (which of them are interesting; the caller
may test them at once). `commit(T)` makes a candidate the new current best. Which candidates
are judged depends only on the verdicts, never on how many run at once, so `-j N` gives the
same result as `-j 1`.

`guess(candidates)` (given when several candidates can be judged at once) tells the caller what
the search asks next if none of the candidates it now waits for is interesting: a worker that
would idle judges them meanwhile (lazily: a guess no worker takes is never built; once one of
them is interesting, the guess is dropped), and `guess(None)` ends it. A right guess makes two
steps cost one; a wrong one costs a call, no more. An empty guess says the search goes on
after these verdicts whatever they are (so nothing beyond it, such as the next pass, is near).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, islice
from typing import TypeVar

T = TypeVar("T")
Propose = Callable[[Sequence[int]], "T | None"]
JudgeAll = Callable[[Iterable[T]], list[bool]]
Guess = Callable[["Iterable[T | None] | None"], None]

# A shrink search takes no step that gains less than this share of the size the failure holds at
# (`reduce --shrink-threshold`): the last steps of a bisection of a large dim (23 -> 19 of 127)
# each cost a compile and leave the case as readable. Below a half, halving any dim of a result
# still loses the failure (it stays 1-minimal by halving). Measured on the README's example: 0.1
# -> 0.25 took its uncached compiles from 77 to 51, the dims left near their smallest 1 -> 2.
DEFAULT_SHRINK_THRESHOLD = 0.25
ONE_AT_A_TIME = 10  # sizes up to this go one at a time whatever the threshold: 5 channels or 4 is read

# Chunks judged together before their successes are merged. Fixed, not -j: the window decides
# which candidates are tried (and so the result), -j only how many of them run at once.
WINDOW = 8


def _chunk_proposals(propose: Propose, chunks: list[range]) -> Iterator[tuple[T, range]]:
    """Valid proposals for the chunks, in order, with the chunk that made each."""
    for chunk in chunks:
        proposal = propose(chunk)
        if proposal is not None:
            yield proposal, chunk


def _recorded(pairs: Iterable[tuple[T, range]], batch: list[tuple[T, range]]) -> Iterator[T]:
    """The proposals, lazily (the first are judged while the rest are built), each pair kept in `batch`."""
    for pair in pairs:
        batch.append(pair)
        yield pair[0]


def _window_hits(pairs: Iterator[tuple[T, range]], judge_all: JudgeAll, window: int) -> list[tuple[T, range]]:
    """The interesting pairs of the first window that has any, judged `window` at a time."""
    while True:
        batch: list[tuple[T, range]] = []
        verdicts = judge_all(_recorded(islice(pairs, window), batch))
        hits = [pair for pair, interesting in zip(batch, verdicts) if interesting]
        if hits or len(batch) < window:
            return hits


@contextmanager
def _guessing(guess: Guess | None, ahead: Iterable[T | None] | None) -> Iterator[None]:
    """`ahead` is the search's guess while the block waits for verdicts (see the module's doc);
    None: the search may end with them, so it has none."""
    if guess is None or ahead is None:
        yield
        return
    guess(ahead)
    try:
        yield
    finally:
        guess(None)


def _chunks(start: int, n: int, size: int) -> list[range]:
    return [range(s, min(s + size, n)) for s in range(start, n, size)]


def _union(hits: list[tuple[T, range]]) -> list[int]:
    return sorted({i for _, chunk in hits for i in chunk})


def merge(hits: list[tuple[T, range]], propose: Propose, judge_all: JudgeAll, guess: Guess | None = None) -> tuple[T, list[range]]:
    """One candidate for several successes of one window, and the chunks it reduces.

    Tries the union of their chunks; when that is not interesting (or not valid), the earlier
    half of the successes, and so on down to the earliest one (already known interesting): a
    binary split, one oracle call a step. The later successes are tried again on the new best.
    """
    while len(hits) > 1:
        union = propose(_union(hits))
        half = hits[: (len(hits) + 1) // 2]
        if union is not None:
            after = [_union(half)] if len(half) > 1 else []  # the guess: the union fails
            with _guessing(guess, (propose(indices) for indices in after)):
                if judge_all([union])[0]:
                    return union, [chunk for _, chunk in hits]
        hits = half
    return hits[0][0], [hits[0][1]]


def ddmin(
    count: Callable[[], int],
    propose: Propose,
    judge_all: JudgeAll,
    commit: Callable[[T], None],
    start_size: int | None = None,
    window: int = WINDOW,
    guess: Guess | None = None,
) -> bool:
    """Try all targets at once, then halves, quarters, ... down to single targets.

    Chunks are judged `window` at a time and the successes of a window merged into one commit.
    After a commit the granularity is kept and the sweep goes on from the last merged chunk
    (the targets before it were tried already). Returns whether anything was committed.
    """
    progress = False
    for size in _granularities(start_size or count()):
        start = 0
        while start < count():
            n = count()
            # The guess: nothing here holds, and the next granularity starts over from the first
            # target (single targets are the last: with no hit this search ends).
            finer = _chunk_proposals(propose, _chunks(0, n, (size + 1) // 2)) if size > 1 else None
            with _guessing(guess, (proposal for proposal, _ in finer) if finer is not None else None):
                hits = _window_hits(_chunk_proposals(propose, _chunks(start, n, size)), judge_all, window)
            if not hits:
                break
            proposal, merged = merge(hits, propose, judge_all, guess)
            commit(proposal)
            progress = True
            # Where the last merged chunk sits once the chunks before it are gone.
            start = max(0, merged[-1].start - sum(len(chunk) for chunk in merged[:-1]))
    return progress


def _granularities(size: int) -> Iterator[int]:
    """`size`, then its halves rounded up, down to 1 (none for 0)."""
    while size > 1:
        yield size
        size = (size + 1) // 2
    if size == 1:
        yield 1


def sweeps(n: int) -> Iterator[list[range]]:
    """The chunks `ddmin` tries over `n` targets while none holds: all at once, then halves,
    quarters, ... single targets, each granularity from the first target."""
    return (_chunks(0, n, size) for size in _granularities(n))


def bisect(
    count: Callable[[], int],
    propose: Propose,
    judge_all: JudgeAll,
    commit: Callable[[T], None],
    arity: int = 3,
    guess: Guess | None = None,
) -> bool:
    """Find the earliest single target whose reduction stays interesting, assuming monotone order.

    Each round probes `arity - 1` evenly spaced points (tested together), so the probe sequence,
    and thus the result, does not depend on how many jobs run them.
    """
    lo, hi = 0, count() - 1
    best = None
    while lo <= hi:
        points = bisect_probes(lo, hi, arity)
        proposals = {p: propose([p]) for p in points}
        valid = [(p, prop) for p, prop in proposals.items() if prop is not None]
        after = bisect_probes(points[-1] + 1, hi, arity)  # the guess: every point fails (else it ends)
        with _guessing(guess, (propose([p]) for p in after) if after else None):
            answers = judge_all([prop for _, prop in valid]) if valid else []
        hits = {p: prop for (p, prop), ok in zip(valid, answers) if ok}
        for p in points:  # every point before the first hit failed: the answer lies after it
            if p in hits:
                best, hi = hits[p], p - 1
                break
            lo = p + 1
    if best is None:
        return False
    commit(best)
    return True


def bisect_probes(lo: int, hi: int, arity: int = 3) -> list[int]:
    """The points one round of `bisect` probes between `lo` and `hi` (inclusive)."""
    return sorted({lo + (hi - lo) * i // arity for i in range(1, arity)}) if lo <= hi else []


def _prime_factors(n: int) -> list[int]:
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return sorted(set(factors + ([n] if n > 1 else [])))


def _quotients(value: int, above: int) -> list[int]:
    """`value` divided by each of its prime factors, smallest first, those above `above`."""
    return sorted(q for q in {value // p for p in _prime_factors(value)} if q > above)


@dataclass
class Threshold:
    """How small a step a shrink search still takes: none that gains less than `share` of the size
    the failure holds at (0: every step, down to one less). When a search stops for it,
    `stopped_above` is the largest size known to lose the failure (the size is within the share
    of the smallest); None when it ended locally minimal."""

    share: float = 0.0
    stopped_above: int | None = None

    def worth(self, size: int, holding: int) -> bool:
        return holding - size >= self._step(holding)

    def step_down(self, holding: int) -> int:
        """The largest size below `holding` worth a probe."""
        return holding - self._step(holding)

    def _step(self, holding: int) -> int:
        return 1 if holding <= ONE_AT_A_TIME else max(1, math.ceil(self.share * holding))


def shrink_value(
    value: int,
    propose: Callable[[int], T | None],
    judge_all: JudgeAll,
    commit: Callable[[T], None],
    recheck: bool = False,
    guess: Guess | None = None,
    threshold: Threshold | None = None,
) -> bool:
    """The smallest size that stays interesting: 1, 2 and the largest whole division first, then
    divisions by its prime factors while one holds, then a bisection below what they reached.

    Compilers pick tiles by divisibility, so a failure at 384 channels often holds at 64 and not
    at 193: dividing first finds such sizes where a plain bisection would stop at the first odd
    midpoint. One step down (one less, or with a `threshold` the smallest step worth a call) is
    judged only when no division holds (see `first_probes`): when it loses the failure too, the
    size is settled (a bisection below it would only lose the failure step after step). `recheck`
    is for a size this search settled on before, since when other sizes moved: the step down is
    judged alone first, and only when it holds does the search go on below it (`_below_moved`).
    On return the committed size s is locally minimal: s - 1 was tried and lost the failure (or
    was no valid candidate); with a `threshold`, within its share of that (a bisection stops
    before a step that gains less, and `threshold.stopped_above` says where).

    The guesses (with `guess`): 1 and 2 lose the failure, so the other quotients come next, then
    the smallest's own; a quotient holds and is divided again, or else the step down and the
    bisection below it come next (a prime size: the bisection's first probe beside the step down);
    a bisection step that loses the failure is followed by another.

    Each decision takes the smallest size that holds of those judged together (given ascending),
    so `judge_all` may answer False unread after the first interesting one, without waiting.
    """
    limit = threshold if threshold is not None else Threshold()
    down = limit.step_down(value)
    small = [v for v in (1, 2) if v < value]
    lo = small[-1] if small else 0
    proposals = {v: propose(v) for v in first_probes(value, recheck, limit)}
    with _guessing(guess, () if recheck else _asked_next(value, lo, down, propose, limit)):
        answers = _judged(proposals, judge_all)
    if recheck and not answers.get(down):
        return False
    if recheck:
        commit(_below_moved(down, proposals[down], propose, judge_all, guess, limit))
        return True
    for v in small:
        if answers.get(v):
            commit(proposals[v])
            return True
    hi, best = _divided(value, lo, down, propose, judge_all, guess, limit, answers)
    if best is None:
        if down not in proposals:  # no division holds: now the step down decides
            proposals[down] = propose(down)
            below = _probe_between(lo, down, limit)
            with _guessing(guess, (propose(v) for v in [below] if v is not None)):
                answers.update(_judged({down: proposals[down]}, judge_all))
        if not answers.get(down):
            return False  # neither a step down nor a division holds: the size is settled
        hi, best = down, proposals[down]
    best = _bisected(lo, hi, best, propose, judge_all, guess, limit)
    commit(best)
    return True


def first_probes(value: int, recheck: bool, limit: Threshold) -> list[int]:
    """The sizes `shrink_value` judges first: 1, 2 and the largest whole division of the size
    (one step down where it has none; a recheck: the step down alone). What an idle worker may
    judge ahead for the next dimension. The step down beside 1 and 2 whatever they showed cost
    ResNet-50's 256 channels a compile of 192 where the halving, 128, held."""
    down = limit.step_down(value)
    if recheck:
        return [down] if down >= 1 else []
    small = [v for v in (1, 2) if v < value]
    quotients = _quotients(value, small[-1] if small else 0)
    return sorted(v for v in {*small, quotients[-1] if quotients else down} if 1 <= v < value)


def _asked_next(value: int, lo: int, down: int, propose: Callable[[int], T | None], limit: Threshold) -> Iterator[T | None]:
    """What `shrink_value` asks after its first probes if 1 and 2 lose the failure: the other
    quotients, then, if the smallest holds, its own; with no quotient, the bisection's first
    probe below the step down (if the step down holds)."""
    quotients = _quotients(value, lo)
    yield from (propose(q) for q in quotients[:-1])
    if quotients:
        yield from (propose(q) for q in _quotients(quotients[0], lo))
    elif (after := _probe_between(lo, down, limit)) is not None:
        yield propose(after)


def _below_moved(hi: int, best: T, propose: Callable[[int], T | None], judge_all: JudgeAll, guess: Guess | None,
                 limit: Threshold) -> T:
    """Below a settled size whose step down held (another size moved since it settled; `hi` is that
    step): its halving and its next step down, judged together. A settled size moves a little
    more often than it falls to 1 (its first search tried 1 and 2 then), and these two probes are
    what the result is held to (halving and stepping down lose the failure), where starting over
    from 1 and 2 cost two more calls on the README's example. Neither holds: settled at `hi`.
    The halving holds: the size moved far, and a whole search goes on below it. Only the step:
    a bisection between the two."""
    half, step = hi // 2, limit.step_down(hi)
    probes = {v: propose(v) for v in sorted({half, step}) if 1 <= v < hi}
    held = _judged(probes, judge_all)
    if held.get(half):
        below: list[T] = []
        return below[-1] if shrink_value(half, propose, judge_all, below.append, False, guess, limit) else probes[half]
    if held.get(step):
        return _bisected(half, step, probes[step], propose, judge_all, guess, limit)
    if hi - step > 1:
        limit.stopped_above = step
    return best


def _divided(value: int, lo: int, down: int, propose: Callable[[int], T | None], judge_all: JudgeAll,
             guess: Guess | None, limit: Threshold, known: dict[int, bool]) -> tuple[int, T | None]:
    """Divides while a quotient holds, the smallest one first: (the size reached, its proposal or
    None). `known`: the first probes' verdicts (the largest quotient's among them)."""
    hi, best = value, None
    while True:
        quotients = {q: propose(q) for q in _quotients(hi, lo)}
        if not quotients:
            break
        held_first = (propose(q) for q in _quotients(min(quotients), lo))
        if best is None and not known.get(max(quotients)):  # the largest lost the failure: likelier none holds
            below = _probe_between(lo, down, limit)
            ahead = chain((propose(v) for v in (down, below) if v is not None and v not in quotients), held_first)
        else:  # a quotient held: likelier the next does too, else the bisection below the last one
            below = _probe_between(lo, hi, limit)
            ahead = chain(held_first, (propose(v) for v in [below] if v is not None and v not in quotients))
        with _guessing(guess, ahead):
            held = _judged(quotients, judge_all)
        smallest = next((q for q in quotients if held.get(q)), None)
        if smallest is None:
            break
        hi, best = smallest, quotients[smallest]
    return hi, best


def _bisected(lo: int, hi: int, best: T | None, propose: Callable[[int], T | None], judge_all: JudgeAll,
              guess: Guess | None, limit: Threshold) -> T | None:
    """Bisects between a size that loses the failure (lo) and one that holds it (hi): the smallest
    that holds, or the size it held at when no step worth `limit` is left above lo."""
    held_last = False  # the last step's outcome: the guess for the next one
    while (mid := _probe_between(lo, hi, limit)) is not None:
        proposal = propose(mid)
        after = _probe_between(lo, mid, limit) if held_last else _probe_between(mid, hi, limit)
        with _guessing(guess, (propose(v) for v in [after] if v is not None)):
            held_last = proposal is not None and judge_all([proposal])[0]
        if held_last:
            hi, best = mid, proposal
        else:
            lo = mid
    if hi - lo > 1:
        limit.stopped_above = lo
    return best


def _probe_between(lo: int, hi: int, limit: Threshold) -> int | None:
    """The midpoint, or where it gains less than `limit` allows the largest step that is worth a
    call while it stays above lo: a stop leaves no size between lo and hi that a recheck of hi
    would probe (one that stopped at the midpoint left a 28% step untried, taken a sweep later
    at the cost of a whole sweep more). None when nothing is left to probe."""
    if hi - lo <= 1:
        return None
    mid = (lo + hi) // 2
    if not limit.worth(mid, hi):
        mid = limit.step_down(hi)
    return mid if lo < mid < hi else None


def _judged(proposals: dict[int, T | None], judge_all: JudgeAll) -> dict[int, bool]:
    """Verdicts of the valid proposals, judged together, by size."""
    valid = [v for v, proposal in proposals.items() if proposal is not None]
    return dict(zip(valid, judge_all([proposals[v] for v in valid]))) if valid else {}
