"""What the releases said about one case: a verdict per release judged, and since when it fails.

Three verdicts: the release shows the same failure (`fails`), it does not (`does not fail`: it
compiles, or fails another way, the detail says which), or it cannot say (`cannot judge`: it
cannot parse the IR, lacks a flag or the target, its importer rejects the model). The last is
neither good nor bad: the bisection steps over it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from oracles.releases.versions import version_key

FAILS, PASSES, CANNOT = "fails", "does not fail", "cannot judge"
# The kinds of result.
REGRESSION = "regression"  # a release fails, the one before it (that could judge) does not
EVERY_RELEASE = "every release"  # the oldest release tried fails too
NO_OLDER_JUDGES = "no older release could judge it"  # the oldest failing one has only releases below it that cannot judge
NEWEST_PASSES = "newest release does not fail"  # the failure is newer than every release tried
NONE_JUDGES = "no release could judge it"
IREE_REPO = "https://github.com/iree-org/iree"
# An oracle's detail on a release that fails, but not the same way: "fails differently: ...", "fails, but
# the output does not match --match", "fails to compile: ..." (a wrong-answer oracle), "finished in 0.4 s
# (< 8 s): fails: ..." (a hang that became a crash).
FAILS_OTHERWISE = re.compile(r"\bfails\b")
_COMMIT = re.compile(r"@ ([0-9a-f]{7,40})")


@dataclass
class ReleaseVerdict:
    """One release's answer; `compiler` is its `iree-compile --version` line (it names the commit)."""

    release: str
    verdict: str
    detail: str = ""
    compiler: str = ""
    seconds: float = 0.0
    installed: bool = False  # this run created the release's environment

    @property
    def commit(self) -> str:
        match = _COMMIT.search(self.compiler)
        return match.group(1) if match else ""

    def line(self) -> str:
        return f"{self.release:<14}{self.verdict}: {self.detail}" if self.detail else f"{self.release:<14}{self.verdict}"


@dataclass
class ReleaseHistory:
    """The bisection's result over `releases` (oldest first)."""

    kind: str
    releases: list[str]
    verdicts: dict[str, ReleaseVerdict] = field(default_factory=dict)
    first_failing: str | None = None  # the oldest release that fails (REGRESSION, EVERY_RELEASE, NO_OLDER_JUDGES)
    last_passing: str | None = None  # the newest release before it that does not fail (REGRESSION, NEWEST_PASSES)
    seconds: float = 0.0
    range: str = ":"

    @property
    def installed(self) -> int:
        """How many release environments this run created."""
        return sum(v.installed for v in self.verdicts.values())

    @property
    def judged(self) -> list[ReleaseVerdict]:
        return sorted(self.verdicts.values(), key=lambda v: version_key(v.release))

    def headline(self) -> str:
        """One line: 'fails since 3.10.0; 3.9.0 compiles it' and the like."""
        if self.kind == REGRESSION:
            passing = self.verdicts[self.last_passing]
            if FAILS_OTHERWISE.search(passing.detail):  # another failure (another error, a crash, no hang): no claim it worked
                return (f"fails this way since {self.first_failing}; {self.last_passing} fails another way "
                        f"({passing.detail.removeprefix('fails differently:').strip()})")
            return f"fails since {self.first_failing}; {self.last_passing} {_does_not_fail(passing)}"
        if self.kind == EVERY_RELEASE:
            return f"fails on every release tried (the oldest: {self.first_failing})"
        if self.kind == NO_OLDER_JUDGES:
            return f"fails on {self.first_failing} and newer; no older release could judge it"
        if self.kind == NEWEST_PASSES:
            return f"the newest release tried, {self.last_passing}, does not fail: the failure is newer"
        return "no release could judge it"

    def commits(self) -> str:
        """The IREE commits between the two bracketing releases ('' when not bracketed)."""
        if self.kind != REGRESSION:
            return ""
        good, bad = self.verdicts[self.last_passing].commit, self.verdicts[self.first_failing].commit
        return f"{IREE_REPO}/compare/{good}...{bad}" if good and bad else ""

    def lines(self) -> list[str]:
        """The summary's lines: the headline, the commit range, then a line per release judged."""
        head = f"{self.headline()} ({len(self.verdicts)} releases judged, {self.installed} installed, {self.seconds:.0f} s)"
        commits = self.commits()
        return [head, *([f"commits {commits}"] if commits else []), *(v.line() for v in self.judged)]

    def markdown(self) -> str:
        """The report's section."""
        rows = "\n".join(f"| {v.release} | {v.verdict} | {_cell(v.detail)} | {v.commit[:12]} |" for v in self.judged)
        commits = self.commits()
        between = f"\nIREE commits between the two: {commits}\n" if commits else ""
        return (f"\n## Since when\n\n**{self.headline()}** (releases {self.range}, judged by bisection)\n{between}\n"
                f"| release | verdict | detail | commit |\n|---|---|---|---|\n{rows}\n")

    def record(self) -> dict:
        """Plain data for `--json` and the corpus entry's `fails_since`."""
        return {
            "kind": self.kind,
            "summary": self.headline(),
            "fails_since": self.first_failing,
            "last_passing": self.last_passing,
            "commits": self.commits() or None,
            "range": self.range,
            "releases_judged": len(self.verdicts),
            "releases_installed": self.installed,
            "seconds": round(self.seconds, 1),
            "verdicts": [{k: v for k, v in asdict(verdict).items() if k != "installed"} | {"seconds": round(verdict.seconds, 2)}
                         for verdict in self.judged],
        }


@dataclass
class SinceWhen:
    """The step's result: the history, or the one line that says why there is none."""

    history: ReleaseHistory | None = None
    note: str = ""

    def lines(self) -> list[str]:
        return self.history.lines() if self.history is not None else [f"not judged: {self.note}"]

    def markdown(self) -> str:
        return self.history.markdown() if self.history is not None else f"\n## Since when\n\nNot judged: {self.note}\n"

    def record(self) -> dict:
        return self.history.record() if self.history is not None else {"kind": "not judged", "error": self.note}


def _does_not_fail(verdict: ReleaseVerdict) -> str:
    """'compiles it' when the detail says so, else 'does not fail (DETAIL)'."""
    if verdict.detail.startswith(("compiles fine", "compiles")):
        return "compiles it"
    return f"does not fail ({verdict.detail})" if verdict.detail else "does not fail"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")[:200]
