"""`fuzz report`: the page's plots show the database's data, and a real headless Chromium renders it.

The expected figures are read from `findings.db` with plain SQL here, not through the report's
own code, and compared with the marks in the page's SVG (each point, bar and cell has an id).
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from fuzz.cli import main as fuzz_main
from tests.browser import NO_BROWSER, artifacts_dir, find_browser, headless

SVG = "{http://www.w3.org/2000/svg}"


def plots_of(page: str) -> dict[str, ET.Element]:
    """Each figure's SVG, parsed, by the figure's id."""
    found = re.findall(r'<figure class="plot" id="([^"]+)">(<svg.*?</svg>)', page, re.DOTALL)
    return {plot_id: ET.fromstring(svg) for plot_id, svg in found}


def marks(svg: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {el.get("id"): el for el in svg.iter() if (el.get("id") or "").startswith(prefix)}


def values(svg: ET.Element, prefix: str) -> list[int]:
    """The numbers written on the marks whose id starts with `prefix` (bar labels, cell counts)."""
    found = marks(svg, prefix)
    return [int("".join(el.itertext()).strip()) for _, el in sorted(found.items(), key=lambda kv: [int(n) for n in re.findall(r"\d+", kv[0])])]


def database(out: Path) -> dict:
    """What the plots must show, counted straight from the database."""
    with sqlite3.connect(out / "findings.db") as db:
        rows = db.execute("SELECT ops, pipelines, findings FROM cases ORDER BY finished").fetchall()
        reductions = db.execute("SELECT original_size, reduced_size FROM reductions").fetchall()
        distinct = db.execute("SELECT COUNT(*) FROM findings").fetchone()[0]
    by_class, by_pipeline, by_op, runs, compiled = Counter(), Counter(), Counter(), Counter(), 0
    signatures, with_findings = set(), 0
    for ops_json, pipelines_json, findings_json in rows:
        ops, pipelines, findings = json.loads(ops_json), json.loads(pipelines_json), json.loads(findings_json)
        with_findings += bool(findings)
        for kind, where, signature in findings:
            signatures.add(signature)
            by_class[kind] += 1
            by_pipeline.update(where.split(","))
            by_op.update({op: 1 for op in ops})
        for pipeline, status, _ in pipelines:
            runs[pipeline, status] += 1
            compiled += len(ops) if status in ("ok", "compiled", "mismatch", "run error") else 0
    return {
        "cases": len(rows), "with_findings": with_findings, "signatures": len(signatures), "distinct": distinct,
        "class": by_class, "pipeline": by_pipeline, "op": by_op, "runs": runs, "compiled": compiled, "reductions": reductions,
    }


@pytest.fixture(scope="module")
def report(campaign_dir) -> Path:
    assert fuzz_main(["report", str(campaign_dir)]) == 0
    return campaign_dir / "report.html"


def test_report_plots_count_the_databases_cases_findings_and_reductions(report, campaign_dir):
    page = report.read_text()
    expected = database(campaign_dir)
    plots = plots_of(page)
    assert expected["cases"] == 8 and expected["signatures"] == expected["distinct"] > 0

    timeline = plots["timeline"]
    assert len(list(marks(timeline, "timeline-points")["timeline-points"].iter(f"{SVG}use"))) == expected["cases"]
    assert len(list(marks(timeline, "timeline-finding-points")["timeline-finding-points"].iter(f"{SVG}use"))) == expected["with_findings"]
    assert len(list(marks(timeline, "timeline-root-points")["timeline-root-points"].iter(f"{SVG}use"))) == expected["signatures"]

    for plot_id, key in (("by-class", "class"), ("by-pipeline", "pipeline"), ("by-op", "op")):
        svg, counts = plots[plot_id], expected[key]
        assert len(marks(svg, f"{plot_id}-bar-")) == len(counts) > 0, plot_id
        assert values(svg, f"{plot_id}-value-") == sorted(counts.values(), reverse=True), plot_id
        labels = {"".join(t.itertext()) for t in svg.iter(f"{SVG}text")}
        assert set(counts) <= labels, (plot_id, set(counts) - labels)

    outcomes = plots["coverage-outcomes"]
    assert len(marks(outcomes, "coverage-outcomes-cell-")) == len(expected["runs"])  # one cell per (pipeline, outcome) seen
    assert sum(values(outcomes, "coverage-outcomes-cell-")) == sum(expected["runs"].values())
    assert sum(values(plots["coverage-ops"], "coverage-ops-cell-")) == expected["compiled"]

    reduced = plots["reductions"]
    assert len(marks(reduced, "reductions-before-value-")) == len(expected["reductions"]) == 1
    assert values(reduced, "reductions-before-value-") == [before for before, _ in expected["reductions"]]
    assert values(reduced, "reductions-after-value-") == [after for _, after in expected["reductions"]]

    assert len(re.findall(r'<section class="root-cause"', page)) == expected["distinct"]
    assert "arith.fptoui" in page and "iree-compile" in page and "first seen" in page  # the reduced one: repro and command
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "the page must load nothing from the network"


PROBE = """<script>
window.addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
  const probe = {
    plots: Object.fromEntries([...document.querySelectorAll("figure.plot")].map((f) => [f.id, box(f.querySelector("svg"))])),
    rootCauses: [...document.querySelectorAll("section.root-cause")].map((s) => [s.querySelector("h3").innerText, box(s)]),
    points: document.querySelectorAll("#timeline-points use").length,
  };
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(probe);
  document.body.appendChild(pre);
});
</script>"""


def test_headless_chromium_renders_the_findings_and_plots(report, campaign_dir, tmp_path):
    browser = find_browser()
    if browser is None:
        pytest.skip(NO_BROWSER)
    expected = database(campaign_dir)

    # What the browser laid out: every plot has a size, every root cause a section, every case a point.
    probed = tmp_path / "probed.html"
    probed.write_text(report.read_text().replace("</body>", PROBE + "\n</body>"))
    dom = headless(browser, "--virtual-time-budget=10000", "--dump-dom", probed.as_uri())
    match = re.search(r'<pre id="probe">(.*?)</pre>', dom.stdout, re.DOTALL)
    assert match, dom.stderr[-2000:]
    probe = json.loads(html.unescape(match.group(1)))
    assert set(probe["plots"]) >= {"timeline", "by-class", "by-pipeline", "by-op", "coverage-outcomes", "coverage-ops", "reductions"}
    for plot_id, (width, height) in probe["plots"].items():
        assert width > 200 and height > 80, (plot_id, width, height)
    assert len(probe["rootCauses"]) == expected["distinct"] and all(h > 50 for _, (_, h) in probe["rootCauses"])
    assert any("arith.fptoui" in title for title, _ in probe["rootCauses"])
    assert probe["points"] == expected["cases"]

    # The screenshot, kept as a test artifact; the page is not blank (plot colors are on it).
    shot = artifacts_dir() / "fuzz-report.png"
    shot.unlink(missing_ok=True)
    taken = headless(browser, "--window-size=1280,2400", f"--screenshot={shot}", report.as_uri())
    assert shot.is_file(), taken.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(shot)[..., :3]
    orange = ((abs(pixels[..., 0] - 0xDD / 255) < 0.05) & (abs(pixels[..., 1] - 0x84 / 255) < 0.05) & (abs(pixels[..., 2] - 0x52 / 255) < 0.05))
    assert orange.sum() > 2000, "no findings bars in the screenshot"
    assert (pixels.mean(axis=2) < 0.5).sum() > 5000, "no text in the screenshot"


def test_report_without_a_database_is_one_line(tmp_path, capsys):
    assert fuzz_main(["report", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"fuzz: error: {tmp_path} holds no findings.db: run `fuzz run --out {tmp_path}` first"
