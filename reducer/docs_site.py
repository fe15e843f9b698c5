"""Where the built documentation is, for the end of `reduce --help` and `fuzz --help`."""

from __future__ import annotations

from pathlib import Path

# The checkout the commands run from (an editable install): mkdocs.yml and the built site/ sit at its root.
PROJECT = Path(__file__).resolve().parent.parent
INDEX = PROJECT / "site" / "index.html"
BUILD = "pip install -e '.[docs]' && mkdocs build --strict"


def where_the_docs_are() -> str:
    """The last lines of a command's help: how to build the docs site and the page to open."""
    return (f"docs: every oracle, option and refusal, with an example for each kind of failure. Build them\n"
            f"in {PROJECT} with `{BUILD}`, then open\n"
            f"  {INDEX}")
