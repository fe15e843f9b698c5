"""Every refusal a user sees comes from the catalogue (oracles/refusals.py), word for word.

The troubleshooting page is generated from the catalogue, so a refusal written as a literal at
its raise site would be missing from it: the scan below fails on one, and the runs below check
that what `reduce` and `fuzz` print is an entry's message.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fuzz import cli as fuzz_cli
from oracles import refusals
from oracles.registry import ORACLES
from reducer import cli as reduce_cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("oracles", "reducer", "fuzz")

# Exceptions whose message reaches the user as `reduce: error: ...` / `fuzz: error: ...`.
USER_FACING = {"UserError", "OracleSetupError", "ResumeRefused", "ToolNotFound", "StoreError", "ClusterError",
               "PasteError", "ArgumentTypeError", "UserDataError"}
# Modules where a plain ValueError or KeyError is such a message (fuzz's CLI prints every ValueError).
# arrays.py and reference.py read a program's arguments and make its data: every ValueError they
# raise ends up, through str(err), in a UserDataError, a refusal or an oracle's "not interesting"
# line, so the whole module is enforced: a new literal ValueError there fails, wherever it is added.
USER_FACING_IN = {
    "oracles/data/arrays.py": {"ValueError"},
    "oracles/onnx/reference.py": {"ValueError"},
    "fuzz/cli.py": {"ValueError"},
    "fuzz/pipelines.py": {"ValueError"},
    "fuzz/conformance.py": {"ValueError"},
    "fuzz/expectations.py": {"ValueError"},
    "reducer/corpus_entries.py": {"ValueError"},
    "reducer/passes/registry.py": {"KeyError"},
}
ENTRIES = {name for name, value in vars(refusals).items() if isinstance(value, refusals.Refusal)}


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _problem(message: ast.expr) -> str:
    """Why `message` (an exception's first argument) is not built from the catalogue; '' when it is."""
    if isinstance(message, ast.Call) and _name(message.func) == "str" and len(message.args) == 1:
        return ""  # the message of an exception caught here, itself raised from an entry
    if not (isinstance(message, ast.Call) and isinstance(message.func, ast.Attribute)):
        return "a literal or computed message, not refusals.ENTRY.say(...)"
    owner = message.func.value
    if message.func.attr == "relayed" and _name(owner) == "refusals":
        return ""
    if message.func.attr != "say" or not (isinstance(owner, ast.Attribute) and _name(owner.value) == "refusals"):
        return "a message not built with refusals.ENTRY.say(...)"
    if owner.attr not in ENTRIES:
        return f"refusals.{owner.attr} is no entry of the catalogue"
    if any(keyword.arg is None for keyword in message.keywords):
        return ""
    given, wanted = {k.arg for k in message.keywords}, set(getattr(refusals, owner.attr).fields())
    return "" if given == wanted else f"refusals.{owner.attr}.say() is given {sorted(given)}, its template has {sorted(wanted)}"


def uncatalogued(source: str, path: str) -> list[str]:
    """`path:line: why` for each user-facing exception in `source` whose message is not an entry's."""
    classes = USER_FACING | USER_FACING_IN.get(path, set())
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) in classes and node.args:
            why = _problem(node.args[0])
            if why:
                found.append(f"{path}:{node.lineno}: {_name(node.func)}: {why}")
    return found


def test_every_user_facing_error_is_built_from_the_catalogue():
    files = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    found = [line for path in files for line in uncatalogued(path.read_text(), path.relative_to(ROOT).as_posix())]
    assert len(files) > 100
    assert not found, "add the message to oracles/refusals.py and raise ENTRY.say(...):\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'raise UserError("the new refusal nobody catalogued")',
    'raise OracleSetupError(f"--frobnicate {x} is wrong")',
    'raise ResumeRefused(message)',
    'raise UserError(refusals.NO_SUCH_INPUT.say(file=path))',  # the template's field is `path`
    'raise UserError(refusals.NOT_AN_ENTRY.say())',
])
def test_the_scan_fails_on_a_literal_refusal(source):
    assert uncatalogued(source, "reducer/session.py")


@pytest.mark.parametrize(("source", "path"), [
    ('raise UserDataError(f"{where}: a new complaint about {source}")', "oracles/inputs/readers.py"),
    ('raise UserDataError("a new complaint")', "reducer/cli.py"),
    ('raise ValueError(f"argument {i} is odd")', "oracles/data/arrays.py"),
    ('def helper():\n    raise ValueError("input is odd")', "oracles/onnx/reference.py"),
    ('raise ValueError(refusals.INPUT_DYNAMIC.say(name=n, shape=s))', "oracles/onnx/reference.py"),  # `param` missing
])
def test_the_scan_fails_on_a_literal_data_refusal(source, path):
    assert uncatalogued(source, path)


def test_a_plain_value_error_elsewhere_is_not_a_refusal():
    assert not uncatalogued('raise ValueError("internal")', "oracles/numeric/compare.py")


def test_the_scan_takes_catalogued_and_relayed_messages():
    assert not uncatalogued("raise UserError(refusals.NO_SUCH_INPUT.say(path=p))\n"
                            "raise UserError(str(err))\nraise OracleSetupError(refusals.relayed(text))", "reducer/session.py")


def test_entries_have_unique_ids_and_say_what_to_do():
    ids = [entry.id for entry in refusals.CATALOGUE]
    assert len(ids) == len(set(ids))
    assert all(entry.cause and entry.action and entry.topic in refusals.TOPICS for entry in refusals.CATALOGUE)


def _reduce_error(capsys, argv: list[str]) -> tuple[int, str]:
    code = reduce_cli.main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith("reduce: error: ")
    return code, lines[-1].removeprefix("reduce: error: ")


def test_reduce_prints_catalogued_refusals_word_for_word(capsys, tmp_path):
    missing = tmp_path / "bug.mlir"
    cases = [
        (["--oracle=lds-limit"], refusals.USAGE,
         "usage: reduce INPUT --oracle=NAME [-- iree-compile flags]; see reduce --help"),
        ([str(missing), "--oracle=lds-limit", "--timeout", "0"], refusals.LIMIT_NOT_POSITIVE,
         "--timeout 0 makes no sense: it must be positive"),
        ([str(missing), "--oracle=lds-limit", "--candidate-timeout", "-2"], refusals.CANDIDATE_TIMEOUT_NEGATIVE,
         "--candidate-timeout -2 makes no sense: it must be 0 (no limit below --timeout) or more"),
        ([str(missing), "--oracle=no-such"], refusals.UNKNOWN_ORACLE, f"unknown oracle 'no-such'; valid: {', '.join(ORACLES)}"),
        ([str(missing), "--oracle=script"], refusals.SCRIPT_NEEDS_CMD,
         "--oracle=script needs --cmd 'COMMAND {}' (exit 0 = interesting)"),
        ([str(missing), "--oracle=lds-limit"], refusals.NO_SUCH_INPUT, f"cannot read {missing}: no such file"),
        ([str(missing), "--oracle=run-error", "--dim", "M=0"], refusals.DIM_MALFORMED,
         "--dim M=0: give NAME=SIZE with a positive size (M=1 for an ONNX dim_param, arg0.1=4 for dim 1 of MLIR argument 0)"),
        ([str(missing), "--oracle=run-error", "--inputs", str(tmp_path / "x.xyz")], refusals.DATA_SOURCE_MISSING,
         (f"cannot read {tmp_path / 'x.xyz'}: no such file (give .npy, .npz, .pt, .pb, a test_data_set directory, a flagfile, "
         "or an iree-run-module value such as 2x3xf32=@x.bin)")),
    ]
    for argv, entry, expected in cases:
        code, message = _reduce_error(capsys, argv)
        assert (code, message) == (1, expected)
        assert refusals.matching(message) is entry


def test_fuzz_prints_catalogued_refusals(capsys, tmp_path):
    assert fuzz_cli.main(["show", str(tmp_path)]) == 1
    message = capsys.readouterr().err.strip().removeprefix("fuzz: error: ")
    assert message == f"{tmp_path} holds no findings.db: run `fuzz run --out {tmp_path}` first"
    assert refusals.matching(message) is refusals.NO_CAMPAIGN
    with pytest.raises(SystemExit):
        fuzz_cli.main(["run", "--time", "soon"])
    assert "'soon' is not a duration like 90s, 10m or 2h" in capsys.readouterr().err
