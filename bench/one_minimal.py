"""Is a reduced result 1-minimal? Every single edit of it judged, uncached, by the oracle that reduced it.

    python bench/one_minimal.py RESULT INPUT --oracle=NAME [reduce's options] [-- FLAGS]
                                [--flags-of SUMMARY.json] [--write-smaller PATH]

RESULT is what `reduce INPUT --oracle=NAME ... -- FLAGS` wrote; everything after RESULT is that
command line, read by `reduce`'s own parser, so the check judges with the same oracle, options,
flags and data. The original is judged once (the failure the candidates must keep), then the
result, then each op or node of the result deleted, each bypassed by a same-typed operand, and
each static dimension halved (bench/minimality/, which shares no code with the reducer's passes),
until one still fails. Prints `1-minimal: yes (...)` or `1-minimal: NO: <edit> still fails`;
exit status 0 for yes, 1 for no, 2 when the check cannot run. `--flags-of` takes the result's
compile flags from `reduce --json`'s summary (the reduction may have dropped some);
`--write-smaller` writes the smaller candidate found.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.minimality.judging import check_command


def _option(argv: list[str], name: str) -> tuple[str | None, list[str]]:
    """The value of `name VALUE` (ours, not reduce's) and the words without it."""
    if name not in argv:
        return None, argv
    at = argv.index(name)
    return argv[at + 1], argv[:at] + argv[at + 2 :]


def main(argv: list[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if len(words) < 2 or words[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    summary, words = _option(words, "--flags-of")
    smaller, words = _option(words, "--write-smaller")
    flags = json.loads(Path(summary).read_text())["reduced"]["flags"] if summary else None
    found = check_command(words[1:], Path(words[0]), flags)
    print(f"1-minimal: {found.cell()} in {found.seconds:.1f} s")
    if found.minimal is False and smaller and found.found is not None:
        candidate = found.found
        Path(smaller).write_bytes(candidate.binary if candidate.binary is not None else candidate.text.encode())
        print(f"the smaller candidate: {smaller} ({found.detail})")
    return {True: 0, False: 1, None: 2}[found.minimal]


if __name__ == "__main__":
    sys.exit(main())
