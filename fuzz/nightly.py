"""The nightly job: a campaign, its new findings reduced, the corpus re-checked, a markdown summary.

`fuzz nightly` exits non-zero when a corpus entry changed state (a bug fixed by the IREE in use,
or a fixed one back), so the scheduled CI job fails where a person has to act.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuzz.campaign import CampaignStats
from fuzz.coverage import coverage_table
from fuzz.findings import StoredFinding
from fuzz.root_cause import RootCauses
from oracles.toolchain.tools import iree_version
from reducer.corpus_entries import CorpusEntry, absent_device, check_entry, entry_problem


@dataclass
class CorpusChange:
    entry: CorpusEntry
    problem: str


def corpus_changes(entries: list[CorpusEntry]) -> list[CorpusChange]:
    """The entries whose state no longer matches the compiler. An entry this machine cannot check
    (a GPU it lacks, torch for a `.pt2`) is left out, as `pytest corpus/` skips it: judged without its
    device it would read as fixed."""
    changes = []
    for entry in entries:
        if absent_device(entry) is not None:
            continue
        problem = entry_problem(entry, check_entry(entry))
        if problem:
            changes.append(CorpusChange(entry, problem))
    return changes


def summary_markdown(
    stats: CampaignStats,
    findings: list[StoredFinding],
    entries: list[CorpusEntry],
    changes: list[CorpusChange],
    settings: dict,
    causes: RootCauses | None = None,
) -> str:
    """New findings are those neither in the findings database before this run nor in the corpus
    (a bug with a corpus entry is known, whichever run first saw it: by its signature, or by its
    reduced form matching the entry's repro)."""
    in_corpus = {entry.signature: entry.name for entry in entries}
    if causes is not None:
        in_corpus.update(causes.known_as)
    new = {signature for signature, _ in stats.new if signature not in in_corpus}
    by_signature = {f.signature: f for f in findings}
    checked = sum(absent_device(entry) is None for entry in entries)
    lines = [
        "# Nightly fuzz summary",
        "",
        f"- IREE: `{iree_version()}`",
        (
            f"- campaign: {stats.cases} cases in {stats.seconds:.0f} s ({stats.per_minute:.1f}/min), seed {settings['seed']}, "
            f"pipelines {', '.join(settings['pipelines'])}"
        ),
        f"- findings this run: {sum(stats.by_kind.values())} ({', '.join(f'{k} {n}' for k, n in sorted(stats.by_kind.items())) or 'none'})",
        f"- corpus: {checked} entries checked ({len(entries) - checked} need a device or package this machine lacks), "
        f"{len(changes)} changed state",
        *([f"- {line}" for line in causes.lines()] if causes is not None else []),
        f"- coverage: {len(stats.configs)} distinct dispatch configurations",
        "",
        f"## New findings ({len(new)})",
        "",
    ]
    lines += _finding_rows([by_signature[s] for s in new if s in by_signature], stats, in_corpus) or ["None."]
    known = [by_signature[s] for s in stats.by_signature if s not in new and s in by_signature]
    lines += ["", f"## Known findings seen again ({len(known)})", ""]
    lines += _finding_rows(known, stats, in_corpus) or ["None."]
    if causes is not None and causes.since:
        lines += ["", f"## Since when (new root causes, {len(causes.since)})", ""]
        lines += [f"- `{key[:120]}`: {record.get('summary', record.get('error', ''))}"
                  + (f" ([commits]({record['commits']}))" if record.get("commits") else "") for key, record in causes.since.items()]
    lines += ["", f"## Corpus changes ({len(changes)})", ""]
    lines += [f"- **{c.entry.name}**: {c.problem}" for c in changes] or ["None: every entry is in its recorded state."]
    if stats.configs:
        lines += ["", "## Coverage: targets x codegen pipelines x intrinsics", "", coverage_table(stats.configs)]
    return "\n".join(lines) + "\n"


def _finding_rows(findings: list[StoredFinding], stats: CampaignStats, in_corpus: dict[str, str]) -> list[str]:
    if not findings:
        return []
    rows = ["| class | pipelines | seen (run / all) | reduced | corpus entry | signature |", "|---|---|---|---|---|---|"]
    for f in findings:
        signature = f.signature.replace("|", "\\|")[:160]
        entry = f"`{in_corpus[f.signature]}`" if f.signature in in_corpus else "-"
        rows.append(
            f"| {f.kind} | {f.pipeline} | {stats.by_signature[f.signature]} / {f.count} | {f.reduced_size or '-'} | {entry} | `{signature}` |"
        )
    return rows
