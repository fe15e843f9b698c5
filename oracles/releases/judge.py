"""`python -m oracles.releases.judge CASE_DIR`: the installed IREE's verdict on a case, as one JSON line.

Run by `oracles/releases/remote.py` with the python of one release's environment, so that the
oracle judges with that release's compiler, runtime, importer and Python bindings. CASE_DIR holds
`spec.json` (written by `oracles.judge_spec.write_spec`: the oracle, its options, the flags and the
verdict of the installed IREE on the case), the case (`case.mlir`, `case.onnx` or `case.pt2`) and
its data (`data.npz`, when it has some). A model is imported with this release's importer: ONNX
with its onnx importer, a `.pt2` program with its FX importer and the torch of the process that
asked (its directory in IREE_REDUCE_TORCH_SITE, appended to the path), or, where that torch does not
load, judged as the MLIR the asking process imported it to (`imported.mlir`). The verdict is `fails` (the same failure), `does not fail`, or
`cannot judge` with why: the IR does not parse here, a flag has no name this compiler accepts (each
is renamed from this compiler's own option list first), the target or device is missing, the
importer rejects the model, or the judge itself fails on this release's bindings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from oracles.releases.history import CANNOT, FAILS, PASSES

SPEC, DATA, IMPORTED = "spec.json", "data.npz", "imported.mlir"
TORCH_SITE_ENV = "IREE_REDUCE_TORCH_SITE"


def case_file(directory: Path) -> Path:
    return next(directory.glob("case.*"))


def judge_case(directory: Path) -> dict:
    """The verdict as plain data: verdict, detail, the compiler's version line and the flags renamed."""
    from oracles.toolchain.tools import iree_version

    answer = {"verdict": CANNOT, "detail": "", "compiler": _version_line(iree_version()), "renamed": []}
    try:
        answer.update(_judged(directory))
    except Exception as err:  # noqa: BLE001  (this project's code on an old release's bindings: a verdict, not a crash)
        answer.update(verdict=CANNOT, detail=f"the judge fails under this release: {type(err).__name__}: {' '.join(str(err).split())[:200]}")
    return answer


def _judged(directory: Path) -> dict:
    from oracles.candidate import Candidate
    from oracles.data.case_data import load_data
    from oracles.formats import Format, format_of, suffix_of
    from oracles.judge_spec import spec_from
    from oracles.mlir import ir as irx
    from oracles.onnx.importer import is_import_failure
    from oracles.toolchain import tools
    from oracles.toolchain.flags import respelled

    spec = json.loads((directory / SPEC).read_text())
    renamed, unknown = [], []
    for owner, key in ((spec, "flags"), (spec["options"], "pipeline_a"), (spec["options"], "pipeline_b")):
        spelled = respelled(owner[key])
        renamed += [[old, new] for old, new in spelled.renamed]
        unknown += spelled.unknown
        owner[key] = spelled.flags
    tools.flag_spelling = lambda flags: respelled(flags).flags  # the target flags an oracle adds of its own
    if unknown:
        return {"verdict": CANNOT, "detail": f"this compiler has no flag {', '.join(dict.fromkeys(unknown))}", "renamed": renamed}
    judge = spec_from(spec)
    path = case_file(directory)
    data = load_data(directory / DATA) if (directory / DATA).is_file() else ()
    note = ""  # how a .pt2 program was imported, where not by this release
    fmt = format_of(path)
    if fmt is Format.ONNX:
        candidate = Candidate(path.name, judge.flags, suffix_of(fmt), path.read_bytes(), data)
    else:
        archive = path.read_bytes() if fmt is Format.PT2 else None
        if archive is not None:
            try:
                text, note = torch_import(archive, directory / IMPORTED)
            except RejectedProgram as err:
                return {"verdict": CANNOT, "detail": f"its FX importer rejects the program: {err}", "renamed": renamed}
        else:
            text = path.read_text()
        try:
            irx.parse(text, irx.new_context())
        except irx.ParseError as err:
            return {"verdict": CANNOT, "detail": f"cannot parse the IR{note}: {err}", "renamed": renamed}
        candidate = Candidate(text, judge.flags, path.suffix, archive, data)
    verdict = judge.oracle.judge(candidate)
    reference = judge.oracle.reference
    if verdict.tool_error and not verdict.interesting:
        return {"verdict": CANNOT, "detail": verdict.tool_error, "renamed": renamed}
    if is_import_failure(verdict) and not is_import_failure(reference):
        return {"verdict": CANNOT, "detail": f"its importer rejects the model: {verdict.detail}", "renamed": renamed}
    if verdict.limit and not verdict.interesting:
        return {"verdict": CANNOT, "detail": f"stopped by a limit ({verdict.limit}): {verdict.detail}", "renamed": renamed}
    if not verdict.interesting and reference is not None and worded_otherwise(verdict.signature, reference.signature):
        return {"verdict": FAILS, "renamed": renamed,
                "detail": f"the same error as this release words it: {verdict.signature}"}
    if not verdict.interesting and reference is not None and same_crash_site(verdict.signature, reference.signature):
        return {"verdict": FAILS, "renamed": renamed,
                "detail": f"the same crash, its stack as this release's build has it: {verdict.signature}"}
    return {"verdict": FAILS if verdict.interesting else PASSES, "detail": verdict.detail + note, "renamed": renamed}


class RejectedProgram(ValueError):
    """This release's FX importer cannot import the program; the message is one line."""


def torch_import(archive: bytes, fallback: Path) -> tuple[str, str]:
    """(the MLIR this release's FX importer makes of the program, ""); where torch does not load
    here, (the MLIR the asking process imported, a note saying so). RejectedProgram otherwise."""
    site = os.environ.get(TORCH_SITE_ENV)
    if site and site not in sys.path:
        sys.path.append(site)  # after this release's packages: its `iree` is the one imported
    try:
        from oracles.torch.importer import NotImportable, import_text
        from oracles.torch.program import ArchiveError, loaded
    except ImportError as err:
        return fallback.read_text(), f" (torch does not load here, {err}: judged as the installed IREE imported it)"
    try:
        return import_text(loaded(archive)), ""
    except (NotImportable, ArchiveError) as err:
        raise RejectedProgram(str(err)) from None


def worded_otherwise(signature: str, reference: str) -> bool:
    """Whether two error signatures differ only in what one release prints after the message: MLIR's
    newer diagnostics append the op (`...marked illegal: "torch.aten.convolution"`) where older ones
    stop, so one signature is the other cut at a `: `."""
    if not signature or not reference or signature == reference or not signature.startswith("error: "):
        return False
    short, long = sorted((signature, reference), key=len)
    return long.startswith(short) and long[len(short) :].startswith(": ")


def same_crash_site(signature: str, reference: str) -> bool:
    """Whether two crash signatures die in the same function: the frames below it differ between
    builds (what one release inlines, another calls), the function that crashed does not."""
    if signature == reference or not (signature.startswith("crash: ") and reference.startswith("crash: ")):
        return False
    return signature.split(" <- ")[0] == reference.split(" <- ")[0]


def _version_line(version: str) -> str:
    """'IREE compiler version 3.10.0rc20250206 @ 8f2b...' out of `iree_version()`'s answer."""
    return version[version.find("(") + 1 : version.rfind(")")] if "(" in version else version


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not (Path(args[0]) / SPEC).is_file():
        print("usage: python -m oracles.releases.judge CASE_DIR   (CASE_DIR/spec.json, CASE_DIR/case.*)", file=sys.stderr)
        return 2
    print(json.dumps(judge_case(Path(args[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
