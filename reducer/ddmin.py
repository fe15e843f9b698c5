"""The search strategies, independent of IR: delta-debugging chunks and a k-ary bisection.

Both take `propose(indices) -> T | None` (a candidate with those targets reduced, None when
invalid) and `first_interesting(candidates) -> T | None` (the earliest interesting one in order;
the caller may test several at once but must answer as a sequential scan would, which keeps
`-j N` results identical to `-j 1`). `commit(T)` makes a candidate the new current best.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
Propose = Callable[[Sequence[int]], "T | None"]
FirstInteresting = Callable[[Iterable[T]], "T | None"]


def _chunk_proposals(propose: Propose, chunks: list[range], tried: list) -> Iterator:
    """Valid proposals for the chunks, in order, remembering which chunk made each."""
    for chunk in chunks:
        proposal = propose(chunk)
        if proposal is not None:
            tried.append((proposal, chunk))
            yield proposal


def ddmin(
    count: Callable[[], int],
    propose: Propose,
    first_interesting: FirstInteresting,
    commit: Callable[[T], None],
    start_size: int | None = None,
) -> bool:
    """Try all targets at once, then halves, quarters, ... down to single targets.

    After a success the granularity is kept and the sweep goes on from the same position (the
    targets behind it were tried already). Returns whether anything was committed.
    """
    progress = False
    size = start_size or count()
    while size >= 1:
        start = 0
        while start < count():
            n = count()
            chunks = [range(s, min(s + size, n)) for s in range(start, n, size)]
            tried: list[tuple[T, range]] = []
            hit = first_interesting(_chunk_proposals(propose, chunks, tried))
            if hit is None:
                break
            commit(hit)
            progress = True
            start = next(chunk for proposal, chunk in tried if proposal is hit).start
        if size == 1:
            break
        size = (size + 1) // 2
    return progress


def bisect(count: Callable[[], int], propose: Propose, judge_all: Callable[[list[T]], list[bool]], commit: Callable[[T], None], arity: int = 3) -> bool:
    """Find the earliest single target whose reduction stays interesting, assuming monotone order.

    Each round probes `arity - 1` evenly spaced points (tested together), so the probe sequence,
    and thus the result, does not depend on how many jobs run them.
    """
    lo, hi = 0, count() - 1
    best = None
    while lo <= hi:
        points = sorted({lo + (hi - lo) * i // arity for i in range(1, arity)})
        proposals = {p: propose([p]) for p in points}
        valid = [(p, prop) for p, prop in proposals.items() if prop is not None]
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


def shrink_value(
    value: int,
    propose: Callable[[int], T | None],
    judge_all: Callable[[list[T]], list[bool]],
    commit: Callable[[T], None],
) -> bool:
    """The smallest size that stays interesting: 1 and 2 first, then bisect toward `value`.

    On return the committed size s is locally minimal: s - 1 was tried and lost the failure
    (or was no valid candidate), assuming larger sizes keep it once a smaller one does.
    """
    first = [v for v in (1, 2) if v < value]
    proposals = {v: propose(v) for v in first}
    valid = [v for v in first if proposals[v] is not None]
    answers = dict(zip(valid, judge_all([proposals[v] for v in valid]))) if valid else {}
    for v in first:
        if answers.get(v):
            commit(proposals[v])
            return True
    lo, hi, best = (first[-1] if first else 0), value, None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        proposal = propose(mid)
        if proposal is not None and judge_all([proposal])[0]:
            hi, best = mid, proposal
        else:
            lo = mid
    if best is None:
        return False
    commit(best)
    return True
