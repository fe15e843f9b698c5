"""The front ends side by side: cases, their rate, findings, and how often each feature was drawn.

`fuzz run` prints it after the coverage table, `fuzz nightly`'s summary.md and `fuzz report`'s
page show it as tables: a feature's two counts are the cases drawn with it on (swarm testing's
subset) and the cases whose program exercised it. A campaign of one front end shows one column.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass
class FrontendShare:
    """One front end's share of a campaign: what the report and summary show side by side."""

    cases: int = 0
    seconds: float = 0.0  # its cases' own wall time, summed
    with_findings: int = 0
    redrawn: int = 0  # PyTorch: draws torch.export rejected (drawn again, not findings)
    drawn: Counter = field(default_factory=Counter)  # feature -> cases drawn with it on
    used: Counter = field(default_factory=Counter)  # feature -> cases whose program exercised it
    signatures: set = field(default_factory=set)


def shares_of(cases: Iterable) -> dict[str, FrontendShare]:
    """Front end -> its share, from a database's stored cases (features drawn; what each program
    used is not stored, so `used` stays empty)."""
    shares: dict[str, FrontendShare] = {}
    for case in cases:
        share = shares.setdefault(case.frontend, FrontendShare())
        share.cases += 1
        share.seconds += case.seconds
        share.with_findings += bool(case.findings)
        share.drawn.update(case.features)
        share.signatures |= {signature for _, _, signature in case.findings}
    return shares


def share_rows(shares: Mapping, root_causes: Mapping[str, int] | None = None) -> list[list[str]]:
    """One row per front end (its stats: `cases`, `seconds`, `with_findings`, `signatures`, `redrawn`)."""
    rows = []
    for frontend, share in shares.items():
        rate = 60.0 * share.cases / share.seconds if share.seconds else 0.0
        causes = [str(root_causes.get(frontend, 0))] if root_causes is not None else []
        rows.append([frontend, str(share.cases), f"{share.seconds:.0f}", f"{rate:.1f}", str(share.with_findings),
                     str(len(share.signatures)), *causes, str(share.redrawn)])
    return rows


SHARE_HEADER = ["front end", "cases", "case seconds", "cases/min of its time", "with findings", "signatures", "redrawn"]


def feature_rows(shares: Mapping, with_used: bool = True) -> list[list[str]]:
    """feature, then `drawn / used` (or drawn alone) per front end ('-' where none of its cases drew it)."""
    drawn: dict[str, Counter] = {f: s.drawn for f, s in shares.items()}
    used: dict[str, Counter] = {f: s.used for f, s in shares.items()}
    features = sorted({feature for counter in drawn.values() for feature in counter}
                      | {feature for counter in used.values() for feature in counter if not feature.startswith("opset")})

    def cell(frontend: str, feature: str) -> str:
        if not drawn[frontend][feature] and not used[frontend][feature]:
            return "-"
        return f"{drawn[frontend][feature]} / {used[frontend][feature]}" if with_used else str(drawn[frontend][feature])

    return [[feature, *(cell(f, feature) for f in shares)] for feature in features]


def frontend_lines(shares: Mapping) -> list[str]:
    """The plain-text lines `fuzz run` prints: each front end's share, then the feature table."""
    if not shares:
        return []
    lines = [f"front end {row[0]}: {row[1]} cases, {row[3]}/min of its {row[2]} s, {row[4]} with findings, "
             f"{row[5]} signatures, {row[6]} draws torch.export rejected (drawn again)" for row in share_rows(shares)]
    lines.append("features (cases drawn with it / whose program used it): "
                 + "; ".join(f"{row[0]} {' | '.join(row[1:])}" for row in feature_rows(shares)))
    return lines


def markdown(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(row) + " |" for row in rows)]
