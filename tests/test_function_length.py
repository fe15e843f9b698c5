"""No function or method in reducer/ or oracles/ is longer than 60 lines: a longer one does several
jobs, and each job wants a name. Counted as the function's own lines, `def` to its last line
(decorators excluded), nested functions included in their parent's count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reducer", "oracles")
MOST_LINES = 60

def long_functions(source: str, path: str) -> dict[str, int]:
    """`path::qualified.name` -> lines of each function over MOST_LINES in `source`."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = child.end_lineno - child.lineno + 1
                if lines > MOST_LINES:
                    found[f"{path}::{prefix}{child.name}"] = lines
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def test_no_function_is_longer_than_sixty_lines():
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found |= long_functions(path.read_text(), path.relative_to(ROOT).as_posix())
    assert not found, f"split these into named helpers (at most {MOST_LINES} lines each):\n" + "\n".join(
        f"{name}: {lines} lines" for name, lines in sorted(found.items()))


def test_the_count_excludes_decorators_and_includes_nested_functions():
    body = "\n".join(["    x = 1"] * 59)
    source = f"@decorator\n@another\ndef f():\n{body}\n\n\nclass C:\n    def g(self):\n        def h():\n{body.replace('    ', '            ')}\n        return h\n"
    assert long_functions(source, "m.py") == {"m.py::C.g": 62}
