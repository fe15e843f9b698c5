"""The documentation: its generated tables match the code, the site builds with warnings as errors,
works from disk without fetching anything, and renders in a real browser.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fuzz import cli as fuzz_cli
from fuzz.frontends import ONNX, TORCH
from fuzz.generation.features import ALL_FEATURES
from fuzz.pipelines import resolve
from fuzz.torch_gen.features import TORCH_FEATURES
from oracles import refusals
from oracles.registry import ORACLES
from reducer import cli as reduce_cli
from reducer.passes.registry import PASSES
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



# --- The pages as a user reads them: commands that parse, options in sentences, counts generated -----

DOCS = ROOT / "docs"
MAX_WORDS = 1500  # a user page longer than this is split
CONTRIBUTOR_PAGES = ("architecture.md", "performance.md", "contributing/")  # reference for contributors and measurements
REFERENCE_PAGES = ("cli.md", "glossary.md", "troubleshooting.md")  # lists, not tasks: an option there is not yet explained


def doc_pages() -> list[Path]:
    """Every page of the site, generated includes and results aside."""
    return sorted(p for p in DOCS.rglob("*.md") if not p.relative_to(DOCS).as_posix().startswith(("generated/", "results/")))


def user_pages() -> list[Path]:
    return [p for p in doc_pages() if not p.relative_to(DOCS).as_posix().startswith(CONTRIBUTOR_PAGES)]


def task_pages() -> list[Path]:
    return [p for p in user_pages() if p.relative_to(DOCS).as_posix() not in REFERENCE_PAGES]


def fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of each fenced block; a block opened with more backticks holds shorter fences."""
    blocks, inside, fence, lang, lines = [], False, "", "", []
    for line in text.splitlines():
        opening = re.match(r"^\s*(`{3,})\s*([\w+-]*)\s*$", line)
        if not inside and opening:
            inside, fence, lang, lines = True, opening.group(1), opening.group(2), []
        elif inside and re.match(rf"^\s*{fence}`*\s*$", line):
            blocks.append((lang, lines))
            inside = False
        elif inside:
            lines.append(line)
    return blocks


def prose(text: str) -> str:
    """The sentences of a page: no code blocks, tables, headings, includes or comments."""
    out, inside, fence = [], False, ""
    for line in re.sub(r"<!--.*?-->", "", text, flags=re.S).splitlines():
        opening = re.match(r"^\s*(`{3,})", line)
        if opening and not inside:
            inside, fence = True, opening.group(1)
            continue
        if inside:
            inside = not re.match(rf"^\s*{fence}`*\s*$", line)
            continue
        if line.lstrip().startswith(("|", "#", "--8<--")):
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def _joined(lines: list[str]) -> list[str]:
    """Lines with their backslash continuations joined."""
    joined, pending = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
        else:
            joined.append(pending + line)
            pending = ""
    return joined + ([pending] if pending else [])


def block_commands(text: str) -> list[str]:
    """Every command line of a page's code blocks that may hold a `reduce` or `fuzz` command: each line
    of a shell block, each `$ ` line of a text block, each line of a workflow's `run:` steps."""
    found = []
    for lang, lines in fenced_blocks(text):
        if lang in ("shell", "bash", "sh", "console"):
            found += [line.strip().removeprefix("$ ") for line in _joined(lines)]
        elif lang in ("text", "", "yaml"):
            found += [line.strip().removeprefix("$ ") for line in _joined(lines)
                      if line.startswith("$ ") or (lang == "yaml" and line.strip().startswith(("reduce ", "fuzz ")))]
    return [line for line in found if line and not line.startswith("#")]


def simple_commands(line: str) -> list[list[str]]:
    """The `reduce` and `fuzz` commands of a shell line (split at `&&`, `||`, `;`, `|`), as words. A
    placeholder (`<flags>`, `$VAR`) reads as `1`, which every kind of value takes."""
    line = re.sub(r"<[^<>\n]+>", "1", line)
    line = re.sub(r"\s(?:\d?>>?&?|<)\s*[^\s;&|]+", " ", line)  # redirections: > out, 2>&1, < in
    lex = shlex.shlex(line, posix=True, punctuation_chars="&|;")
    lex.whitespace_split = True
    lex.commenters = "#"
    words, commands, current = list(lex), [], []
    for word in [*words, ";"]:
        if word and set(word) <= set("&|;"):
            while current and re.match(r"^\w+=", current[0]):  # VAR=value before the command
                current.pop(0)
            if current and current[0] in ("reduce", "fuzz"):
                commands.append(["1" if "$" in w else w for w in current])
            current = []
        else:
            current.append(word)
    return commands


def command_problem(words: list[str]) -> str | None:
    """Why a `reduce` or `fuzz` command would not run as written (None: it parses, with real names)."""
    if bracketed := [w for w in words if w.startswith("[") or w.endswith("]")]:
        return f"bracketed words {bracketed}: a pasted command must run as it is"
    err = io.StringIO()
    parser = _exact(reduce_cli.build_parser() if words[0] == "reduce" else fuzz_cli.build_parser())
    try:
        with contextlib.redirect_stderr(err):
            args = parser.parse_args(reduce_cli._split_argv(words[1:])[0] if words[0] == "reduce" else words[1:])
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1]
    return _reduce_problem(args) if words[0] == "reduce" else _fuzz_problem(args)


def _exact(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The parser, and its subcommands', taking only whole option names: a page spells them out
    (an abbreviation that works today breaks when a new option shares its prefix)."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _exact(sub)
    return parser


def _reduce_problem(args) -> str | None:
    if args.list_oracles or args.list_passes or args.releases_clean:
        return None
    if args.input is None or args.oracle is None:
        return "no input or no --oracle"
    if args.oracle not in ORACLES:
        return f"no oracle {args.oracle!r}"
    names = {row.name for row in PASSES}
    unknown = [n for n in (args.passes or "").split(",") if n and n not in names]
    return f"no pass {unknown}" if unknown else None


def _fuzz_problem(args) -> str | None:
    if args.command not in ("run", "nightly"):
        return None
    names = [n for n in f"{args.pipelines},{args.targets}".split(",") if n and n not in ("none", "gpu")]
    try:
        resolve(names)
    except ValueError as err:
        return str(err)
    catalogue = {*(ALL_FEATURES if args.frontend != TORCH else ()), *(TORCH_FEATURES if args.frontend != ONNX else ())}
    unknown = [f for f in args.require.split(",") if f and f not in catalogue]
    return f"no feature {unknown}" if unknown else None


def _epilog_commands() -> list[tuple[str, str]]:
    epilogs = {"reduce --help": reduce_cli.build_parser().epilog, "fuzz --help": fuzz_cli.build_parser().epilog}
    return [(where, line.strip()) for where, text in epilogs.items() for line in text.splitlines()
            if line.strip().startswith(("reduce ", "fuzz "))]


def all_commands() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md", *doc_pages(), *sorted((DOCS / "generated").glob("sample*.md"))]
    found = [(page.relative_to(ROOT).as_posix(), line) for page in pages for line in block_commands(page.read_text())]
    return found + _epilog_commands()


def test_every_command_in_the_docs_parses_with_the_real_parsers():
    commands = [(where, words) for where, line in all_commands() for words in simple_commands(line)]
    assert len(commands) > 80  # the pages are full of them: an empty list means the extraction broke
    problems = [f"{where}: {' '.join(words)}\n    {problem}" for where, words in commands if (problem := command_problem(words))]
    assert not problems, "commands in the docs that would not run as written:\n" + "\n".join(problems)


@pytest.mark.parametrize(("line", "problem"), [
    ("reduce model.onnx --oracle=compile-error --opset-verison 17 -- <flags>", "unrecognized arguments"),
    ("reduce bug.mlir --oracle=lds-limit --lds-byte 32768", "unrecognized arguments"),
    ("fuzz run --tim 10m", "unrecognized arguments"),
    ("reduce model.onnx --oracle=compile-error [--opset-version 17] -- <flags>", "bracketed"),
    ("reduce model.onnx --oracle=compile-eror", "no oracle"),
    ("fuzz run --time 10m --targets gfx9999", "unknown pipeline"),
    ("fuzz run --require dynamc", "no feature"),
    ("fuzz run --require kv_cache", "no feature"),  # a PyTorch feature: --frontend torch or both takes it
    ("x && fuzz run --time ten", "not a duration"),
])
def test_the_command_check_catches_a_wrong_option_a_bracket_and_a_wrong_name(line, problem):
    (words,) = simple_commands(line)
    found = command_problem(words)
    assert found is not None and problem in found, found


def _option_groups() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command, parser) of reduce and of each fuzz subcommand."""
    subs = fuzz_cli.build_parser()._subparsers._group_actions[0].choices
    return [("reduce", reduce_cli.build_parser()), *((f"fuzz {name}", sub) for name, sub in subs.items())]


def _mentions(paragraph: str, option: str) -> bool:
    return re.search(rf"`[^`]*(?<![\w-]){re.escape(option)}(?![\w-])", paragraph) is not None


def unexplained_options(pages: list[Path]) -> list[str]:
    """Every option a parser defines that no sentence of a task page uses: `reduce`'s on any page but
    the fuzz pages, a fuzz subcommand's in a paragraph that names a subcommand defining it."""
    paragraphs = {page: re.split(r"\n\s*\n", prose(page.read_text())) for page in pages}
    subs = fuzz_cli.build_parser()._subparsers._group_actions[0].choices
    missing = []
    for command, parser in _option_groups():
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            if command == "reduce":
                named = [p for page, ps in paragraphs.items() if not page.is_relative_to(DOCS / "fuzz") for p in ps]
            else:
                defining = [f"fuzz {n}" for n, s in subs.items() if set(action.option_strings) & {o for a in s._actions for o in a.option_strings}]
                named = [p for ps in paragraphs.values() for p in ps if any(c in p for c in defining)]
            if not any(_mentions(p, option) for p in named for option in action.option_strings):
                missing.append(f"{command} {'/'.join(action.option_strings)}")
    return missing


def test_every_option_is_used_in_a_sentence_of_a_task_page():
    missing = unexplained_options(task_pages())
    assert not missing, "options only the generated reference lists: say in a task page when to use each:\n" + "\n".join(missing)


def test_the_option_check_catches_an_option_no_page_explains(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Use `reduce --oracle=lds-limit` (see the table).\n")
    missing = unexplained_options([page])
    assert "reduce --lds-bytes" in missing and "fuzz run --time" in missing


# A count of things typed into a page goes stale: it must come from a generated include.
COUNTED = r"(?:corpus\s+)?(?:entries|repros|tests|node\s+tests|oracles|passes|pipelines|refusals|features|xfails|root\s+causes)"
HAND_COUNT = re.compile(rf"\b(?:\d[\d,]*\d|\d|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+{COUNTED}\b", re.I)


def _without_code(text: str) -> str:
    """A page's text without its comments and code blocks (a command's real output is not a claim)."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"(?ms)^\s*(`{3,}).*?^\s*\1`*\s*$", "", text)


def hand_typed_counts(pages: list[Path]) -> list[str]:
    return [f"{page.name}: {m.group(0)!r}" for page in pages for m in HAND_COUNT.finditer(_without_code(page.read_text()))]


def test_counts_on_user_pages_come_from_generated_includes():
    found = hand_typed_counts([ROOT / "README.md", *user_pages()])
    assert not found, "counts typed by hand (include a generated sentence instead, docs/gen.py):\n" + "\n".join(found)


def test_the_count_check_catches_a_hand_typed_count(tmp_path):
    page = tmp_path / "corpus.md"
    page.write_text("The corpus holds 52 repros of real failures; three wrong answers.\n\n--8<-- \"generated/corpus-counts.md\"\n")
    assert hand_typed_counts([page]) == ["corpus.md: '52 repros'"]


def test_user_pages_are_short():
    long = [f"{page.relative_to(DOCS)}: {len(page.read_text().split())} words" for page in user_pages()
            if len(page.read_text().split()) > MAX_WORDS]
    assert not long, f"user pages over {MAX_WORDS} words: split them\n" + "\n".join(long)


def test_the_readme_lists_every_page():
    readme = (ROOT / "README.md").read_text()
    missing = [page.relative_to(ROOT).as_posix() for page in doc_pages() if f"]({page.relative_to(ROOT).as_posix()})" not in readme]
    assert not missing, f"the README's list of pages lacks {missing}"


def test_the_landing_page_has_a_row_for_each_task():
    rows = [line.lower() for line in (DOCS / "index.md").read_text().splitlines() if line.startswith("| ")]
    for task in (".pt2", "since when", "hang", "wrong answer", "lds", "filing", "ci for your own iree"):
        assert any(task in row for row in rows), f"no row for {task!r} in the landing page's table"


def test_the_output_page_explains_every_line_of_the_summary():
    sources = "".join(path.read_text() for path in (ROOT / "reducer").rglob("*.py"))
    labels = set(re.findall(r"f?\"  ([a-zA-Z][a-zA-Z ]*[a-zA-Z])  +[{(a-z]", sources)) - {"pipeline"}
    table = [line for line in (DOCS / "reduce" / "output.md").read_text().splitlines() if line.startswith("| ")]
    missing = [label for label in labels if not any(f"`{label}`" in row for row in table)]
    assert len(labels) > 20 and not missing, f"summary lines the output page does not explain: {missing}"


def test_every_exit_status_is_in_the_table():
    codes = {status.code for status in refusals.EXIT_STATUSES}
    assert {entry.exit_code for entry in refusals.CATALOGUE} <= codes
    assert {128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP} <= codes
    returned = set(map(int, re.findall(r"return (\d+)", (ROOT / "fuzz" / "cli.py").read_text())))
    assert returned <= codes
    assert reduce_cli.build_parser().parse_known_args  # argparse errors exit with the refusal status:
    with pytest.raises(SystemExit) as stopped, contextlib.redirect_stderr(io.StringIO()):
        reduce_cli.build_parser().parse_args(["--no-such-option"])
    assert stopped.value.code == refusals.EXIT_REFUSED


# --- The sample report: a real reduction ------------------------------------------------------------------

def test_the_filing_page_shows_the_sample_report():
    sample = (gen.GENERATED / "sample-report.md").read_text()
    assert "## Reproduce" in sample and "## Failing pass" in sample and "## Error" in sample
    assert '--8<-- "generated/sample-report.md"' in (DOCS / "filing.md").read_text()


@pytest.mark.nightly
def test_the_sample_report_is_what_a_real_reduction_writes(tmp_path):
    """The report and summary the docs show are those `reduce` writes on the sample model today
    (`python docs/gen.py --sample` rewrites them; seconds differ run to run)."""
    pages = gen.sample_pages(tmp_path, shipped=False)
    for name, text in pages.items():
        assert gen.comparable(text) == gen.comparable((gen.GENERATED / name).read_text()), f"run `{gen.COMMAND} --sample`: {name} is stale"

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
    assert "--inputs" in wrong_answers and 'id="your-own-data-inputs-expected-outputs"' in wrong_answers
    assert "--dim" in (site / "reduce" / "dynamic-sizes.html").read_text()
    outputs = (site / "outputs.html").read_text()
    assert 'id="exit-codes"' in outputs and "bug.reduced.pass.mlir" in outputs
    assert "## Reproduce" in (site / "filing.html").read_text()  # the sample report, as markdown to paste
    assert "IREE_REDUCE_TOOLS_DIR" in (site / "ci.html").read_text()
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
