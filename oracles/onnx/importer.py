"""ONNX input: import the candidate model with `iree-import-onnx`, then let any oracle judge the MLIR.

`ImportedOnnx` wraps an oracle. A candidate is a serialised ONNX model (`Candidate.binary`); the
importer runs isolated like every tool (own session, the inner oracle's timeout and memory cap).
A model the importer rejects is a verdict too, with the signature `import: <first error>`: it is
interesting only when the original failed to import the same way (or, before calibration, when
the inner oracle is `compile-error`, whose failure an import error is).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from oracles.base import ImportingOracle, Oracle, mlir_path_for
from oracles.candidate import Candidate
from oracles.compiling.compile_failure import CompileError, Crash, Timeout
from oracles.data.carried import INPUT, OUTPUT, has_inputs, inputs_for, pack, unpack
from oracles.signature import error_signature, first_error, normalise
from oracles.toolchain.tools import Limits, ProcessResult, find_tool, run_tool
from oracles.verdict import Verdict

IMPORT_PREFIX = "import: "
MODEL_NAME = "model.onnx"
MLIR_NAME = "model.mlir"
INNER_DIR = "inner"  # the inner oracle's scratch directory: it names the MLIR `inner/input.mlir`
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b:?")


def import_command(model: str, output: str, opset_version: int | None = None) -> list[str]:
    argv = [find_tool("iree-import-onnx"), model, "-o", output]
    if opset_version is not None:
        argv += ["--opset-version", str(opset_version)]
    return argv


def import_model(
    model_bytes: bytes, workdir: Path, limits: Limits, opset_version: int | None = None
) -> tuple[str | None, ProcessResult]:
    """Writes the model into workdir, imports it; (MLIR text or None on failure, the process)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    model, output = workdir / MODEL_NAME, workdir / MLIR_NAME
    model.write_bytes(model_bytes)
    result = run_tool(import_command(str(model), str(output), opset_version), limits, cwd=str(workdir))
    if result.returncode != 0 or result.timed_out or not output.is_file():
        return None, result
    return output.read_text(), result


def import_in_process(model_bytes: bytes, workdir: Path, opset_version: int | None = None) -> str | None:
    """What `iree-import-onnx` writes for the model, computed by its own code in this process (no
    Python start-up, about a third of a second per import); None when it fails. For a process
    whose crash or hang is already a verdict on one edit (the reducer's edit worker), not for one
    that holds a search."""
    # Imported late: it loads onnx and the bindings.
    from iree.compiler.tools.import_onnx import __main__ as tool

    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    model, output = workdir / MODEL_NAME, workdir / MLIR_NAME
    model.write_bytes(model_bytes)
    argv = [str(model), "-o", str(output)]
    if opset_version is not None:
        argv += ["--opset-version", str(opset_version)]
    with _output_to(workdir / "import.log"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tool's warnings went to its own stderr, never the user's
        try:
            tool.main(tool.parse_arguments(argv))
        except Exception:  # noqa: BLE001  (the tool's failure, whatever it raised, is "does not import")
            return None
    return output.read_text() if output.is_file() else None


@contextlib.contextmanager
def _output_to(log: Path) -> Iterator[None]:
    """Standard output and error (the file descriptors: native code prints too) go to `log` inside."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    sink = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.dup2(sink, 1)
        os.dup2(sink, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, sink):
            os.close(fd)


def import_error_line(stderr: str) -> str:
    """The importer's first error: an MLIR `error:` diagnostic, else the Python exception line."""
    lines = stderr.splitlines()
    if any("error:" in line for line in lines):
        return first_error(stderr)
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    if starts:
        for line in lines[starts[-1] + 1 :]:
            if line and not line[0].isspace():
                return line.strip()
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line.strip()):
            return line.strip()
    return first_error(stderr)


def import_signature(result: ProcessResult) -> str:
    if result.timed_out:
        return IMPORT_PREFIX + "timeout"
    if result.signal_name:
        return f"{IMPORT_PREFIX}crash: {result.signal_name}"
    line = import_error_line(result.stderr)
    if "error:" in line:
        return IMPORT_PREFIX + error_signature(line)
    return IMPORT_PREFIX + (normalise(line) or f"exit {result.returncode}")


def is_import_failure(verdict: Verdict | None) -> bool:
    return verdict is not None and verdict.signature.startswith(IMPORT_PREFIX)


def _excerpt(stderr: str, max_lines: int = 25) -> str:
    lines = stderr.strip().splitlines()
    return "\n".join(lines[-max_lines:])


class ImportedOnnx(ImportingOracle):
    """Judges an ONNX model by importing it and asking `inner` about the imported MLIR."""

    def import_stage(self, candidate: Candidate, workdir: Path) -> tuple[str | None, ProcessResult]:
        assert candidate.binary is not None, "ImportedOnnx judges serialised ONNX models"
        return import_model(candidate.binary, workdir, self.options.limits, self.options.opset_version)

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        text, result = self.import_stage(candidate, workdir)
        if text is None:
            return self._import_failure(result)
        if is_import_failure(self.reference):
            return Verdict(False, "", "imports fine (the original failed in iree-import-onnx)", {"stage": "compile"})
        inner_dir = workdir / INNER_DIR
        inner_dir.mkdir()
        return self.inner.observe(self._imported(candidate, text), inner_dir)

    def _imported(self, candidate: Candidate, text: str) -> Candidate:
        """The imported program, carrying the model's data keyed by argument position."""
        return Candidate(text, candidate.flags, data=as_program_data(candidate.data, candidate.binary, self.options.seed))

    def _import_failure(self, result: ProcessResult) -> Verdict:
        signature = import_signature(result)
        line = "timed out" if result.timed_out else import_error_line(result.stderr)
        verdict = Verdict(
            False,
            signature,
            f"iree-import-onnx fails: {line}",
            {"stage": "import", "returncode": result.returncode},
            excerpt=_excerpt(result.stderr),
        )
        match = getattr(self.inner, "match", None)
        if self.reference is None:
            # Uncalibrated: an import error is the failure of a plain compile-error oracle only.
            compile_error = isinstance(self.inner, CompileError) and not isinstance(self.inner, (Crash, Timeout))
            crash = isinstance(self.inner, Crash) and result.signal_name is not None
            verdict.interesting = (compile_error and not result.timed_out) or crash
            if verdict.interesting and match is not None:
                verdict.interesting = bool(match.search(result.stderr))
        elif is_import_failure(self.reference):
            if match is not None:
                verdict.interesting = bool(match.search(result.stderr))
            else:
                verdict.interesting = signature == self.reference.signature
            if not verdict.interesting:
                verdict.detail = f"iree-import-onnx fails differently: {signature}"
        return verdict

    def calibrated(self, original: Verdict) -> Oracle:
        inner = self.inner if is_import_failure(original) else self.inner.calibrated(original)
        return self._evolved(reference=original, inner=inner)

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        mlir = mlir_path_for(path)
        imported = ["iree-import-onnx", path, "-o", mlir]
        if self.options.opset_version is not None:
            imported += ["--opset-version", str(self.options.opset_version)]
        head = shlex.join(imported)
        if is_import_failure(self.reference):
            return head
        imported_text = ""
        if candidate.data and candidate.binary is not None:  # the inner command binds data to the program's arguments
            with tempfile.TemporaryDirectory(prefix="iree-reduce-import-") as scratch:
                imported_text = import_model(candidate.binary, Path(scratch), self.options.limits, self.options.opset_version)[0] or ""
        program = self._imported(candidate, imported_text) if imported_text else Candidate("", candidate.flags)
        return f"{head} && {self.inner.reproduce_command(program, mlir)}"


def as_program_data(data: tuple[tuple[str, bytes], ...], model_bytes: bytes, seed: int) -> tuple[tuple[str, bytes], ...]:
    """An ONNX candidate's data keyed as its imported program's (`in:argI`, `out:resultJ`):
    iree-import-onnx keeps the graph's inputs and outputs in order, so an oracle that judges the
    imported MLIR (`miscompile`) runs on the user's values, fitted to the candidate's shapes."""
    if not has_inputs(data):
        return ()
    import onnx

    from oracles.onnx import reference  # imported late: onnx.reference is slow to load

    model = onnx.load_from_string(model_bytes)
    try:
        values = inputs_for(data, reference.graph_inputs(model), seed)
    except ValueError:
        return ()
    arrays = {f"{INPUT}arg{i}": np.asarray(value) for i, value in enumerate(values)}
    stored = unpack(data)
    for j, (name, _) in enumerate(reference.graph_outputs(model)):
        if OUTPUT + name in stored:
            arrays[f"{OUTPUT}result{j}"] = stored[OUTPUT + name]
    return pack(arrays)


def onnx_oracle(oracle: Oracle) -> Oracle:
    """The oracle that judges serialised ONNX candidates: `oracle` on the imported MLIR, or
    `oracle` itself when it judges ONNX models directly (it imports them itself)."""
    return oracle if oracle.judges_onnx else ImportedOnnx(oracle)
