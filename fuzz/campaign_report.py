"""`fuzz report OUT`: one self-contained `report.html` for a campaign directory.

Everything is inline (CSS, SVG plots), so the page opens from a CI artifact with no network:
the cases and findings over time, findings by class / pipeline or target / op, the coverage
reached (pipeline runs by outcome; ops that compiled through each pipeline or target), the
reduction results, and one section per root cause with its reduced repro, command, signature
and first-seen time. Counting rules (shared with `fuzz run`'s line): a finding is one
(case, signature) pair, so a bug seen in ten cases counts ten times; a finding that several
pipelines share counts once for each of them in the by-pipeline plot, and once for each op of
its graph in the by-op plot.
"""

from __future__ import annotations

import html
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from fuzz import plots
from fuzz.findings import COMPILED, Campaign, StoredCase, StoredFinding
from fuzz.frontend_report import SHARE_HEADER, feature_rows, share_rows, shares_of
from fuzz.frontends import frontend_of
from fuzz.pipelines import PIPELINES
from oracles.toolchain.tools import iree_version

REPORT_NAME = "report.html"
REPRO_LINES = 60  # a reduced repro longer than this is cut in the page (the file has it whole)
STATUS_ORDER = ("ok", "compiled", "mismatch", "compile error", "LDS overrun", "crash", "timeout", "run error", "import failure")


@dataclass
class Timeline:
    """Minutes of campaign time (runs laid end to end) at which each thing happened."""

    cases: list[float]
    with_findings: list[float]
    root_causes: list[float]  # the first case that showed each distinct signature


def timeline(cases: list[StoredCase]) -> Timeline:
    offsets: dict[float, float] = {}
    ends: dict[float, float] = {}
    for case in cases:
        ends[case.run_started] = max(ends.get(case.run_started, case.run_started), case.finished)
    total = 0.0
    for started in sorted(ends):
        offsets[started] = total
        total += ends[started] - started
    seen: set[str] = set()
    result = Timeline([], [], [])
    for case in cases:
        minute = (offsets[case.run_started] + case.finished - case.run_started) / 60.0
        result.cases.append(minute)
        if case.findings:
            result.with_findings.append(minute)
        for _, _, signature in case.findings:
            if signature not in seen:
                seen.add(signature)
                result.root_causes.append(minute)
    return result


def findings_by(cases: list[StoredCase]) -> dict[str, Counter]:
    """Finding counts by class, by pipeline or target, and by op (see the module docstring)."""
    by = {"class": Counter(), "pipeline": Counter(), "op": Counter()}
    for case in cases:
        for kind, pipelines, _ in case.findings:
            by["class"][kind] += 1
            for pipeline in pipelines.split(","):
                by["pipeline"][pipeline] += 1
            for op in case.ops:
                by["op"][op] += 1
    return by


def coverage(cases: list[StoredCase]) -> tuple[list[str], list[str], list[list[int]], list[str], list[list[int]]]:
    """(pipelines, statuses, runs by pipeline and status, ops, cases by op and pipeline that compiled)."""
    runs: Counter = Counter()
    compiled: Counter = Counter()
    for case in cases:
        for pipeline, status, _ in case.pipelines:
            runs[pipeline, status] += 1
            if status in COMPILED:
                for op in case.ops:
                    compiled[op, pipeline] += 1
    pipelines = sorted({p for p, _ in runs}, key=lambda p: (PIPELINES[p].gpu if p in PIPELINES else True, p))
    statuses = sorted({s for _, s in runs}, key=lambda s: (STATUS_ORDER.index(s) if s in STATUS_ORDER else len(STATUS_ORDER), s))
    ops = sorted({op for case in cases for op in case.ops})
    return (
        pipelines,
        statuses,
        [[runs[p, s] for s in statuses] for p in pipelines],
        ops,
        [[compiled[op, p] for p in pipelines] for op in ops],
    )


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds)) if seconds else "-"


def _e(text: object) -> str:
    return html.escape(str(text))


def _read(path: Path, limit: int | None = None) -> str | None:
    if not path.is_file():
        return None
    lines = path.read_text(errors="replace").splitlines()
    if limit is not None and len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines in {path.name})"]
    return "\n".join(lines)


def _figure(plot_id: str, svg: str, caption: str) -> str:
    return f'<figure class="plot" id="{plot_id}">{svg}<figcaption>{_e(caption)}</figcaption></figure>'


def _root_cause(index: int, finding: StoredFinding, campaign: Campaign, out: Path) -> str:
    reduction = campaign.reductions.get(finding.signature)
    directory = Path(finding.directory) if finding.directory else None
    if directory is not None and not directory.is_absolute() and not directory.exists():
        directory = out / directory
    repro = command = script = None
    if directory is not None:
        # The imported MLIR; a model that does not import (an import failure) has only its issue report.
        repro = _read(directory / "reduced.mlir", REPRO_LINES) or _read(directory / "report.md", REPRO_LINES)
        script = _read(directory / "reduced.py", REPRO_LINES)  # a PyTorch case's standalone repro
        command = _read(directory / "command.txt")
    size = finding.reduced_size or "not reduced (the campaign ran with --no-reduce, or was stopped first)"
    rows = [
        ("class", finding.kind),
        ("pipelines", finding.pipeline),
        ("seen", "once" if finding.count == 1 else f"{finding.count} times"),
        ("first seen", _when(finding.first_seen)),
        ("last seen", _when(finding.last_seen)),
        ("case seed", finding.seed),
        ("graph", finding.description),
        ("reduced", size),
    ]
    if reduction is not None:
        rows.append(("reduction", (f"{reduction.original_size} -> {reduction.reduced_size} {reduction.unit}, "
                                   f"{reduction.original_bytes} -> {reduction.reduced_bytes} bytes in {reduction.seconds:.1f} s ({reduction.oracle})")))
    if directory is not None:
        rows.append(("directory", directory))
    table = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    parts = [
        f'<section class="root-cause" id="root-cause-{index}">',
        f"<h3>#{index} {_e(finding.kind)}: {_e(finding.signature[:140])}</h3>",
        f"<table>{table}</table>",
        f'<p class="label">signature</p><pre class="signature">{_e(finding.signature)}</pre>',
        f'<p class="label">detail</p><pre>{_e(finding.detail)}</pre>',
    ]
    if command:
        parts.append(f'<p class="label">command</p><pre class="command">{_e(command)}</pre>')
    if repro:
        parts.append(f'<p class="label">reduced repro</p><pre class="repro">{_e(repro)}</pre>')
    if directory is not None and script:
        parts.append(f'<p class="label">PyTorch repro script</p><pre class="script">{_e(script)}</pre>')
    parts.append("</section>")
    return "\n".join(parts)


def _reductions(campaign: Campaign, index_of: dict[str, int]) -> str:
    done = [(index_of[s], r) for s, r in campaign.reductions.items() if s in index_of]
    if not done:
        return "<p>No finding was reduced in this database (run without <code>--no-reduce</code>).</p>"
    done.sort()
    labels = [f"#{i} {r.oracle}" for i, r in done]
    unit = ", ".join(sorted({r.unit for _, r in done}))
    svg = plots.before_after("reductions", "Reduced repros: size before and after", labels,
                             [r.original_size for _, r in done], [r.reduced_size for _, r in done], unit)
    rows = "".join(
        f'<tr><td><a href="#root-cause-{i}">#{i}</a></td><td>{_e(r.oracle)}</td><td>{r.original_size} -> {r.reduced_size} {_e(r.unit)}</td>'
        f"<td>{r.original_bytes} -> {r.reduced_bytes}</td><td>{r.seconds:.1f}</td></tr>"
        for i, r in done
    )
    table = f"<table class='grid'><tr><th>root cause</th><th>oracle</th><th>size</th><th>bytes</th><th>seconds</th></tr>{rows}</table>"
    return _figure("reductions", svg, "One pair of bars per reduced root cause (log scale).") + table


def _grid(table_id: str, header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table class='grid' id='{table_id}'><tr>{head}</tr>{body}</table>"


def _frontends(campaign: Campaign) -> str:
    """The front ends side by side: each one's cases, rate, findings and root causes, then how
    often each swarm feature was drawn in its cases."""
    shares = shares_of(campaign.cases)
    causes: dict[str, set[str]] = {}
    for finding in campaign.findings:
        causes.setdefault(frontend_of(finding.spec_json), set()).add(finding.root_cause or finding.signature)
    header = [*SHARE_HEADER[:6], "root causes"]
    rows = [row[:7] for row in share_rows(shares, {f: len(c) for f, c in causes.items()})]
    features = _grid("frontend-features", ["feature", *(f"{f}: cases drawn with it" for f in shares)], feature_rows(shares, False))
    return ("<section id='frontends'><h2>Front ends</h2>" + _grid("frontend-shares", header, rows)
            + "<p>How often each swarm feature was on in a case's draw:</p>" + features + "</section>")


def render(campaign: Campaign, out: Path) -> str:
    """The page for the campaign in `out` (its finding directories are read for repros and commands)."""
    cases, findings = campaign.cases, campaign.findings
    index_of = {f.signature: i for i, f in enumerate(findings, 1)}
    with_findings = sum(1 for c in cases if c.findings)
    seconds = sum(run["seconds"] or 0 for run in campaign.runs)
    runs = "; ".join(
        f"{_when(run['started'])}: {run['cases']} cases in {run['seconds']:.0f} s, seed {run['settings'].get('seed', '-')}, "
        f"pipelines {', '.join(run['settings'].get('pipelines', []))}"
        for run in campaign.runs
    ) or "none finished"
    head = (
        f"<p><b>{len(cases)}</b> cases, <b>{with_findings}</b> with a finding, <b>{len(findings)}</b> distinct root causes, "
        f"<b>{len(campaign.reductions)}</b> reduced; {seconds / 60:.1f} minutes of campaign time.</p>"
        f"<p>Runs: {_e(runs)}</p><p>IREE: <code>{_e(iree_version())}</code></p>"
    )
    sections = [f"<section id='summary'><h2>Summary</h2>{head}</section>"]
    if cases:
        sections.append(_frontends(campaign))
    if not cases:
        sections.append("<section id='no-cases'><p>This database records no cases (it predates case recording, "
                        "or no case finished): only the root causes are listed.</p></section>")
    else:
        line = timeline(cases)
        sections.append("<section id='over-time'><h2>Over time</h2>" + _figure(
            "timeline", plots.timeline("timeline", line.cases, line.with_findings, line.root_causes),
            "One marker per case; runs of the same database are laid end to end.") + "</section>")
        by = findings_by(cases)
        gpu = frozenset(p for p in by["pipeline"] if p in PIPELINES and PIPELINES[p].gpu)
        figures = [
            _figure("by-class", plots.bars("by-class", "Findings by class", dict(by["class"])), "A finding is one case showing one signature."),
            _figure("by-pipeline", plots.bars("by-pipeline", "Findings by pipeline or target", dict(by["pipeline"]), gpu),
                    "GPU targets in purple; a finding several pipelines share counts for each."),
            _figure("by-op", plots.bars("by-op", "Findings by op in the case's graph", dict(by["op"])),
                    "Each finding counts once for every op of its graph."),
        ]
        sections.append("<section id='findings-by'><h2>Findings</h2>" + "".join(figures) + "</section>")
        pipelines, statuses, runs_by, ops, compiled = coverage(cases)
        sections.append("<section id='coverage'><h2>Coverage reached</h2>" + _figure(
            "coverage-outcomes", plots.heatmap("coverage-outcomes", "Pipeline and target runs by outcome", pipelines, statuses, runs_by, "runs"),
            "Every case that imports runs through every pipeline and target; 'compiled': a GPU target with no device to run on.")
            + _figure("coverage-ops", plots.heatmap("coverage-ops", "Cases whose graph had the op and compiled, by pipeline or target", ops, pipelines, compiled, "cases"),
                      "An empty cell: no graph with that op got through that pipeline or target.") + "</section>")
    sections.append("<section id='reductions'><h2>Reduction results</h2>" + _reductions(campaign, index_of) + "</section>")
    roots = [_root_cause(i, f, campaign, out) for i, f in enumerate(findings, 1)] or ["<p>No findings.</p>"]
    sections.append(f"<section id='root-causes'><h2>Root causes ({len(findings)})</h2>" + "\n".join(roots) + "</section>")
    return _PAGE.format(title=_e(f"fuzz campaign report: {out.name or out}"), generated=_e(_when(time.time())), body="\n".join(sections))


def write_report(campaign: Campaign, out: Path, path: Path | None = None) -> Path:
    path = path or out / REPORT_NAME
    path.write_text(render(campaign, out))
    return path


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #222; }}
h1 {{ margin-bottom: 0; }} h2 {{ border-bottom: 1px solid #ccc; margin-top: 2.5rem; }}
figure.plot {{ margin: 1rem 0; }} figure.plot svg {{ max-width: 100%; height: auto; }}
figcaption {{ color: #666; font-size: 0.85rem; }}
pre {{ background: #f6f8fa; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; white-space: pre-wrap; word-break: break-word; }}
table {{ border-collapse: collapse; font-size: 0.9rem; }} th {{ text-align: left; padding-right: 1rem; vertical-align: top; }}
table.grid td, table.grid th {{ border: 1px solid #ddd; padding: 0.2rem 0.5rem; }}
section.root-cause {{ border-left: 4px solid #c44e52; padding-left: 1rem; margin: 1.5rem 0; }}
p.label {{ margin: 0.6rem 0 0 0; font-weight: bold; font-size: 0.85rem; }}
.generated {{ color: #666; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p class="generated">generated {generated} by <code>fuzz report</code></p>
{body}
</body>
</html>
"""
