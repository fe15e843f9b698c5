"""The documentation: its generated tables match the code, the site builds with warnings as errors,
works from disk without fetching anything, and renders in a real browser.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fuzz import cli as fuzz_cli
from oracles import refusals
from reducer import cli as reduce_cli
from tests.browser import NO_BROWSER, artifacts_dir, find_browser, headless

ROOT = Path(__file__).resolve().parent.parent
NO_MKDOCS = "mkdocs is not installed: pip install -e '.[docs]' (.ci/run does)"


def _load_generator():
    spec = importlib.util.spec_from_file_location("docs_gen", ROOT / "docs" / "gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


# --- The generated pages -------------------------------------------------------------------------

def test_generated_pages_match_the_code():
    stale = gen.stale()
    assert not stale, f"docs/generated/{', '.join(stale)} stale: run `{gen.COMMAND}` and commit the result"


@pytest.mark.parametrize(("attribute", "page", "change"), [
    ("PASSES", "passes.md", lambda rows: (dataclasses.replace(rows[0], description="a changed description"), *rows[1:])),
    ("ORACLE_TABLE", "oracles.md", lambda rows: rows[:-1]),
])
def test_a_changed_registry_row_makes_its_page_stale_until_regenerated(monkeypatch, tmp_path, attribute, page, change):
    monkeypatch.setattr(gen, attribute, change(getattr(gen, attribute)))
    assert gen.stale() == [page]  # what the staleness test above would report
    gen.write(tmp_path)
    assert gen.stale(tmp_path) == []


def test_a_changed_refusal_makes_the_troubleshooting_page_stale(monkeypatch):
    changed = dataclasses.replace(refusals.USAGE, action="something else")
    monkeypatch.setattr(refusals, "CATALOGUE", [changed, *refusals.CATALOGUE[1:]])
    assert gen.stale() == ["troubleshooting.md"]


def test_every_refusal_is_on_the_troubleshooting_page():
    page = (gen.GENERATED / "troubleshooting.md").read_text()
    for entry in refusals.CATALOGUE:
        assert f"### {entry.id}\n" in page and gen._spelled(entry.template) in page and entry.action in page, entry.id


def test_every_option_is_in_the_reference():
    reference = (gen.GENERATED / "reduce-options.md").read_text() + (gen.GENERATED / "fuzz-options.md").read_text()
    parsers = [reduce_cli.build_parser(), *fuzz_cli.build_parser()._subparsers._group_actions[0].choices.values()]
    options = {option for parser in parsers for action in parser._actions for option in action.option_strings} - {"-h", "--help"}
    assert len(options) > 60
    assert not [option for option in options if not re.search(rf"`[^`]*(?<![\w-]){re.escape(option)}(?![\w-])", reference)]


@pytest.mark.parametrize(("parser", "command"), [(reduce_cli.build_parser, "reduce"), (fuzz_cli.build_parser, "fuzz run")])
def test_help_ends_with_three_examples_and_where_the_docs_are(parser, command):
    epilog = parser().epilog
    examples = epilog.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(examples) == 3 and all(line.strip().startswith(command.split()[0]) for line in examples)
    assert "site/index.html" in epilog and "mkdocs build --strict" in epilog
    assert epilog.rstrip().splitlines()[-1].strip().endswith("site/index.html")


# --- The benchmarks' results ---------------------------------------------------------------------

RESULTS = ROOT / "docs" / "results"
PROVENANCE = ("command", "machine", "date", "IREE", "commit")  # what bench/results.py heads a file with


def test_the_performance_page_includes_every_benchmarks_results():
    page = (ROOT / "docs" / "performance.md").read_text()
    included = re.findall(r'^--8<-- "results/([\w-]+)\.md"$', page, re.MULTILINE)
    files = {path.stem for path in RESULTS.glob("*.md")}
    writers = {path.stem for path in (ROOT / "bench").glob("*.py") if "results.write(__file__" in path.read_text()}
    assert len(writers) >= 14
    assert writers <= files, f"no results yet: run python bench/SCRIPT.py ... --results for {sorted(writers - files)}"
    assert sorted(included) == sorted(files), "include each docs/results/*.md once in docs/performance.md"
    for stem in sorted(files):
        text = (RESULTS / f"{stem}.md").read_text()
        assert all(f"\n- **{key}**: " in text for key in PROVENANCE), f"{stem}.md lacks its provenance header"
        assert f"python bench/{stem}.py" in text, f"{stem}.md does not say the command that reproduces it"


# --- The built site ------------------------------------------------------------------------------

def _mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=config.parent, capture_output=True, text=True, timeout=300, env=env, check=False)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip(NO_MKDOCS)
    where = tmp_path_factory.mktemp("docs") / "site"
    built = _mkdocs(ROOT / "mkdocs.yml", where)
    assert built.returncode == 0, built.stderr[-3000:]
    return where


@pytest.mark.parametrize("link", ["no-such-page.md", "reduce/oracles.md#no-such-anchor"])
def test_a_broken_link_fails_the_build(tmp_path, link):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip(NO_MKDOCS)
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "corpus.md"
    page.write_text(page.read_text() + f"\nSee [the missing part]({link}).\n")
    built = _mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0 and link.split("#")[-1] in built.stderr


class _Fetches(HTMLParser):
    """The URLs a page makes the browser fetch (scripts, stylesheets, icons, images, frames, inline
    CSS), not the links a reader may click."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "link" and found.get("rel") not in ("canonical", "prev", "next"):
            self.urls.append(found.get("href") or "")
        for name in ("src", "data", "poster"):
            if tag != "a" and found.get(name):
                self.urls.append(found[name])
        self.urls += [part.split()[0] for part in (found.get("srcset") or "").split(",") if part.strip()]
        self.urls += _css_urls(found.get("style") or "")
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False if tag == "style" else self._in_style

    def handle_data(self, data):
        if self._in_style:
            self.urls += _css_urls(data)


def _css_urls(css: str) -> list[str]:
    return re.findall(r"""url\(\s*["']?([^"')\s]+)""", css) + re.findall(r"""@import\s+["']([^"']+)""", css)


def _external(url: str) -> bool:
    return bool(re.match(r"(https?:)?//", url.strip()))


# Absolute URLs in the theme's JavaScript (matched by a part of each), each fetched only on a
# condition this site never meets.
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
CONDITIONAL = {
    "/mermaid@": "the diagram library: only on a page with a mermaid diagram",
    "/resize-observer-polyfill": "only in a browser without ResizeObserver (none since 2020)",
    "//api.github.com/": "repository facts: only with a repository link (repo_url), which mkdocs.yml does not set",
    "/api/v4/projects/": "GitLab repository facts, likewise",
}


def test_the_built_site_fetches_nothing_from_outside(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 15 and (site / "index.html").is_file()
    fetched = []
    for page in pages:
        parser = _Fetches()
        parser.feed(page.read_text())
        fetched += [f"{page.relative_to(site)}: {url}" for url in parser.urls if _external(url)]
    for sheet in site.rglob("*.css"):
        fetched += [f"{sheet.relative_to(site)}: {url}" for url in _css_urls(sheet.read_text()) if _external(url)]
    for script in site.rglob("*.js"):
        for url in re.findall(r"""["'`](https?://[^"'`\s]+)""", script.read_text(errors="replace")):
            if url != SVG_NAMESPACE and not any(part in url for part in CONDITIONAL):
                fetched.append(f"{script.relative_to(site)}: {url}")
    assert not fetched, "the built docs would fetch from outside:\n" + "\n".join(fetched)
    # The conditions the theme's loaders need are absent.
    html = "".join(page.read_text() for page in pages)
    assert 'class="mermaid"' not in html and "md-source" not in html
    # Search works from disk: its index is inlined as a script (the offline plugin).
    assert (site / "search" / "search_index.js").is_file()


def test_the_pages_a_user_looks_for_are_there(site):
    wrong_answers = (site / "reduce" / "wrong-answers.html").read_text()
    assert "--inputs" in wrong_answers and 'id="dynamic-sizes"' in wrong_answers
    trouble = (site / "troubleshooting.html").read_text()
    assert all(f'id="{entry.id}"' in trouble for entry in refusals.CATALOGUE)
    assert "<table>" in (site / "reduce" / "oracles.html").read_text()  # the generated table was included
    performance = (site / "performance.html").read_text()  # every benchmark's results, with where they come from
    assert performance.count("<strong>machine</strong>") == len(list(RESULTS.glob("*.md")))


@pytest.mark.parametrize("page", ["index.html", "troubleshooting.html"])
def test_headless_chromium_renders_the_page(site, page):
    browser = find_browser()
    if browser is None:
        pytest.skip(NO_BROWSER)
    shot = artifacts_dir() / f"docs-{Path(page).stem}.png"
    shot.unlink(missing_ok=True)
    taken = headless(browser, "--window-size=1280,1600", f"--screenshot={shot}", (site / page).as_uri())
    assert shot.is_file(), taken.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(shot)[..., :3]
    assert (pixels.mean(axis=2) < 0.5).sum() > 5000, "no text in the screenshot"
    # Material's header bar is drawn (its stylesheet loaded from the built folder): a wide band of one
    # saturated colour along the top of the page.
    top = pixels[5:40, :, :]
    assert (top.max(axis=2) - top.min(axis=2) > 0.3).mean() > 0.5, "the theme's header is missing: its CSS did not load"
