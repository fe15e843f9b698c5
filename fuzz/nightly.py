"""The nightly job: a campaign, its new findings reduced, the corpus re-checked, a markdown summary.

`fuzz nightly` exits non-zero when a corpus entry changed state (a bug fixed by the IREE in use,
or a fixed one back), so the scheduled CI job fails where a person has to act.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fuzz.campaign import CampaignStats
from fuzz.findings import StoredFinding
from oracles.toolchain import iree_version
from reducer.corpus import CorpusEntry, check_entry, entry_problem, load_entries


@dataclass
class CorpusChange:
    entry: CorpusEntry
    problem: str


def corpus_changes(root: Path) -> tuple[int, list[CorpusChange]]:
    """(entries checked, those whose state no longer matches the compiler)."""
    entries = load_entries(root)
    changes = []
    for entry in entries:
        problem = entry_problem(entry, check_entry(entry))
        if problem:
            changes.append(CorpusChange(entry, problem))
    return len(entries), changes


def summary_markdown(stats: CampaignStats, findings: list[StoredFinding], checked: int, changes: list[CorpusChange], settings: dict) -> str:
    new = {signature for signature, _ in stats.new}
    by_signature = {f.signature: f for f in findings}
    lines = [
        "# Nightly fuzz summary",
        "",
        f"- IREE: `{iree_version()}`",
        f"- campaign: {stats.cases} cases in {stats.seconds:.0f} s ({stats.per_minute:.1f}/min), seed {settings['seed']}, "
        f"pipelines {', '.join(settings['pipelines'])}",
        f"- findings this run: {sum(stats.by_kind.values())} ({', '.join(f'{k} {n}' for k, n in sorted(stats.by_kind.items())) or 'none'})",
        f"- corpus: {checked} entries checked, {len(changes)} changed state",
        "",
        f"## New findings ({len(new)})",
        "",
    ]
    lines += _finding_rows([by_signature[s] for s in new if s in by_signature], stats) or ["None."]
    known = [by_signature[s] for s in stats.by_signature if s not in new and s in by_signature]
    lines += ["", f"## Known findings seen again ({len(known)})", ""]
    lines += _finding_rows(known, stats) or ["None."]
    lines += ["", f"## Corpus changes ({len(changes)})", ""]
    lines += [f"- **{c.entry.name}**: {c.problem}" for c in changes] or ["None: every entry is in its recorded state."]
    return "\n".join(lines) + "\n"


def _finding_rows(findings: list[StoredFinding], stats: CampaignStats) -> list[str]:
    if not findings:
        return []
    rows = ["| class | pipelines | seen (run / all) | reduced | signature |", "|---|---|---|---|---|"]
    for f in findings:
        signature = f.signature.replace("|", "\\|")[:160]
        rows.append(f"| {f.kind} | {f.pipeline} | {stats.by_signature[f.signature]} / {f.count} | {f.reduced_size or '-'} | `{signature}` |")
    return rows
