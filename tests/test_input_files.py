"""Input files as users have them: empty ones, a directory, MLIR bytecode; and an exception out
of the in-process compiler, which the tool turns into the compiler's own verdict."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from iree.compiler import ir

from oracles import Candidate
from oracles.compiling.compile_failure import CompileError
from oracles.toolchain import warm
from oracles.toolchain.warm import WarmCompiler
from tests.models import torch_chain
from tests.test_reduce import CPU


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer", *args], check=False, capture_output=True, text=True)


def test_an_empty_or_blank_file_and_a_directory_are_one_line_refusals(tmp_path: Path):
    (tmp_path / "empty.mlir").write_text("")
    (tmp_path / "blank.mlir").write_text("  \n\n\t\n")
    (tmp_path / "export").mkdir()
    for name, said in (("empty.mlir", "is empty: there is no program to reduce"),
                       ("blank.mlir", "is empty: there is no program to reduce"),
                       ("export", "is a directory: give the failing .mlir, .mlirbc or .onnx file in it")):
        result = run_cli(str(tmp_path / name), "--oracle=compile-error")
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blank.mlir", "empty.mlir", "export"]  # nothing written


def test_mlir_bytecode_is_reduced_to_bytecode_with_its_text_beside(tmp_path: Path, iree_compile):
    text = torch_chain(12, bad_at=7, bad_op="onnx.NoSuchOp")
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
    (tmp_path / "model.mlirbc").write_bytes(buffer.getvalue())
    result = run_cli(str(tmp_path / "model.mlirbc"), "--oracle=compile-error", "-j", "2", "--no-culprit", "--", *CPU)
    assert result.returncode == 0, result.stderr[-1500:]
    reduced = (tmp_path / "model.reduced.mlir").read_text()  # text, beside the bytecode
    assert "onnx.NoSuchOp" in reduced and reduced.count('torch.operator "onnx.') <= 3
    result_bytes = (tmp_path / "model.reduced.mlirbc").read_bytes()
    assert result_bytes.startswith(b"ML\xefR")  # the result itself is bytecode, of the same module as the text
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        assert str(ir.Module.parse(result_bytes)) == str(ir.Module.parse(reduced))
    taken = run_cli(str(tmp_path / "model.mlirbc"), "-o", str(tmp_path / "out.mlir"), "--oracle=compile-error")
    assert taken.returncode == 1 and "name an .mlirbc output" in taken.stderr and "Traceback" not in taken.stderr
    (tmp_path / "junk.mlirbc").write_bytes(b"ML\xefR\x00\x01garbage")
    junk = run_cli(str(tmp_path / "junk.mlirbc"), "--oracle=compile-error")
    assert junk.returncode == 1 and "cannot read the MLIR bytecode of" in junk.stderr and "Traceback" not in junk.stderr


def _raises(*args, **kwargs):
    raise ValueError("failed to generate bytecode")


def test_an_exception_out_of_the_in_process_compiler_is_judged_by_the_tool(tmp_path: Path, monkeypatch, iree_compile):
    """The in-process API raises where the tool would print an error (an empty module makes no
    bytecode): the warm worker declines, the command-line tool runs, and its error is the verdict."""
    monkeypatch.setattr(warm, "compile_in_process", _raises)
    assert warm._compile_job(str(tmp_path / "x.mlir"), [], str(tmp_path / "x.vmfb"), str(tmp_path)) is None
    compiler = WarmCompiler(1, 4096)
    try:
        oracle = CompileError().with_compiler(compiler)
        verdict = oracle.judge(Candidate("module {}\n", tuple(CPU)))
    finally:
        compiler.shutdown()
    assert verdict.interesting and "vm.module" in verdict.detail  # the tool's own error for an empty module
