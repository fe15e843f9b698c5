"""An edit whose candidate the exporter, the importer, the verifier or the checker rejects is a
failed edit: not interesting, counted (`rejected_edits`), and the step that made it goes on; the
reduction reaches its result, for MLIR, ONNX and `.pt2` input alike.

The faults are injected around the real tools in this process: the session's edit worker is
replaced by edits made here, so that the patched functions are the ones the edits call. Every
compile is the real compiler's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import onnx
import pytest

from oracles.mlir import ir as irx
from oracles.toolchain.tools import Limits
from reducer import session
from reducer.cli import main
from reducer.graphs import onnx_model
from reducer.search.editor import LocalEditor
from tests.models import torch_chain
from tests.test_reduce_onnx import conv_det_network

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
VULKAN = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"]


class EditsHere(LocalEditor):
    """The edit worker's stand-in: edits run in this process, where the faults are patched in."""

    def __init__(self, limits: Limits, opset_version: int | None = None, preload: tuple[str, ...] = ()) -> None:
        super().__init__(limits, opset_version)

    def start(self) -> None:
        pass


@pytest.fixture
def edits_here(monkeypatch) -> None:
    monkeypatch.setattr(session, "IsolatedEditor", EditsHere)


def rejecting(real: Callable, error: Callable[[str], Exception], spare: int) -> Callable:
    """`real`, except that every second call after the first `spare` (the original's own) raises
    `error` after the real tool ran: a rejection of that candidate."""
    calls = [0]

    def wrapper(*args, **kwargs):
        result = real(*args, **kwargs)
        calls[0] += 1
        if calls[0] > spare and calls[0] % 2 == 0:
            raise error(f"injected rejection #{calls[0]}")
        return result

    wrapper.calls = calls
    return wrapper


def reduce_json(capsys, *argv: str, log: list[str] | None = None) -> tuple[int, dict]:
    """`reduce ... --json`; with `log`, verbose, its log lines appended to it."""
    ours = list(argv[: argv.index("--")]) if "--" in argv else list(argv)
    pasted = list(argv[argv.index("--"):]) if "--" in argv else []
    code = main([*ours, "--json", "-v" if log is not None else "-q", *pasted])
    shown = capsys.readouterr()
    assert "Traceback" not in shown.err
    if log is not None:
        log.extend(shown.err.splitlines())
    return code, json.loads(shown.out[shown.out.index("{"):])


def test_mlir_edits_the_verifier_rejects_are_failed_edits(tmp_path, iree_compile, capsys, edits_here, monkeypatch):
    verify = rejecting(irx.verify, irx.NotVerified, spare=0)
    monkeypatch.setattr(irx, "verify", verify)
    src = tmp_path / "chain.mlir"
    src.write_text(torch_chain(12, bad_at=7, bad_op="onnx.NoSuchOp", channels=4, size=4))
    log: list[str] = []
    code, summary = reduce_json(capsys, str(src), "--oracle=compile-error", "-j", "2", "--no-cache", "--no-localize",
                                "--no-culprit", "--", *CPU, log=log)
    assert code == 0, summary
    assert summary["reduced"]["size"] <= 3 and "onnx.NoSuchOp" in (tmp_path / "chain.reduced.mlir").read_text()
    rejected = [line for line in log if "edit rejected (NotVerified: injected rejection" in line]
    assert summary["rejected_edits"] == len(rejected) >= 1 and verify.calls[0] >= 2


def test_onnx_edits_the_checker_rejects_are_failed_edits(tmp_path, iree_compile, capsys, edits_here, monkeypatch):
    src = tmp_path / "model.onnx"
    onnx.save(conv_det_network(blocks=3, tail=4), src)
    check = rejecting(onnx_model.check, onnx_model.OnnxLoadError, spare=2)
    monkeypatch.setattr(onnx_model, "check", check)
    code, summary = reduce_json(capsys, str(src), "--oracle=compile-error", "-j", "2", "--no-cache", "--no-culprit")
    assert code == 0, summary
    assert summary["reduced"]["size"] <= 3
    assert "Det" in [node.op_type for node in onnx.load(tmp_path / "model.reduced.onnx").graph.node]
    assert summary["rejected_edits"] >= 1


@pytest.mark.nightly  # 35 s; rejected edits by default: test_onnx_edits_the_checker_rejects_are_failed_edits
def test_pt2_edits_the_exporter_or_importer_rejects_are_failed_edits(tmp_path, iree_compile, capsys, edits_here, monkeypatch):
    """The reported crash: the localisation imported the saved program again, the importer rejected
    it (a split's value loaded as a tuple) and the traceback ended `reduce`. Here the importer
    rejects that import for real (the tuple is left as it loads), and every second export and
    import of a candidate after the original's is rejected too: the reduction goes on without them."""
    torch = pytest.importorskip("torch")
    from oracles.torch import importer
    from tests import torch_models

    model = torch_models.save_gpt(tmp_path / "gpt.pt2", layers=1, width=8)
    monkeypatch.setattr(importer, "_returns_a_list", lambda node: False)
    monkeypatch.setattr(importer, "import_module", rejecting(importer.import_module, importer.NotImportable, spare=2))
    monkeypatch.setattr(torch.export, "export", rejecting(torch.export.export, RuntimeError, spare=1))
    code, summary = reduce_json(capsys, str(model), "--oracle=compile-error", "-j", "2", "--no-cache", "--no-culprit",
                                "--passes", "fx-cut-outputs,fx-cut-inputs", "--", *VULKAN)
    assert code == 0, summary
    assert summary["localised"] is None  # its import was rejected: the passes started from the whole program
    assert summary["reduced"]["size"] <= 2 and summary["rejected_edits"] >= 3
    assert Path(summary["files"]["imported"]).read_text().count("torch.aten.scaled_dot_product_attention") == 1
