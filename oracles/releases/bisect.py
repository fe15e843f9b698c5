"""The search over ordered releases: the oldest that fails, the newest before it that does not.

A binary search (about four judgements for sixteen releases) that steps over a release that
cannot judge the case. IR syntax and flags move with time, so a release that cannot judge often
has older ones that cannot either: the search first narrows between that release and the oldest
failing one, and below it tries the nearest older releases, giving up after `give_up_after` of
them could not judge (each costs an install).
"""

from __future__ import annotations

from collections.abc import Callable

from oracles.releases.history import (
    CANNOT,
    EVERY_RELEASE,
    FAILS,
    NEWEST_PASSES,
    NO_OLDER_JUDGES,
    NONE_JUDGES,
    PASSES,
    REGRESSION,
    ReleaseHistory,
    ReleaseVerdict,
)

Judge = Callable[[str], ReleaseVerdict]


def bisect(releases: list[str], judge: Judge, known: dict[str, ReleaseVerdict] | None = None,
           give_up_after: int = 3) -> ReleaseHistory:
    """Bisects `releases` (oldest first); `known` verdicts are not judged again (the installed one's)."""
    verdicts = dict(known or {})

    def verdict(i: int) -> str:
        if releases[i] not in verdicts:
            verdicts[releases[i]] = judge(releases[i])
        return verdicts[releases[i]].verdict

    def result(kind: str, bad: int | None = None, good: int | None = None) -> ReleaseHistory:
        return ReleaseHistory(kind, list(releases), verdicts, None if bad is None else releases[bad],
                              None if good is None else releases[good])

    bad = None
    for skipped, i in enumerate(reversed(range(len(releases))), start=1):  # the newest release that can judge
        if verdict(i) != CANNOT:
            bad = i
            break
        if skipped >= give_up_after:
            break
    if bad is None:
        return result(NONE_JUDGES)
    if verdicts[releases[bad]].verdict == PASSES:
        return result(NEWEST_PASSES, good=bad)
    good = -1
    while True:
        between = range(good + 1, bad)
        open_ = [i for i in between if releases[i] not in verdicts]
        if not open_:
            break
        cannot = [i for i in between if verdicts.get(releases[i]) and verdicts[releases[i]].verdict == CANNOT]
        floor = max(cannot, default=good)
        above = [i for i in open_ if i > floor]
        if above:
            middle = (floor + bad) / 2
            pick = min(above, key=lambda i: (abs(i - middle), -i))
        elif good < 0 and len(cannot) >= give_up_after:
            break
        else:
            pick = max(open_)  # the nearest release below one that cannot judge
        answer = verdict(pick)
        if answer == FAILS:
            bad = pick
        elif answer == PASSES:
            good = pick
    if good >= 0:
        return result(REGRESSION, bad, good)
    if bad == 0:
        return result(EVERY_RELEASE, bad)
    return result(NO_OLDER_JUDGES, bad)
