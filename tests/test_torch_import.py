"""How a `.pt2` program is brought to IREE's FX importer (`--torch-import`), and which torch takes it.

The default imports as IREE's PyTorch users do (iree-turbine's decompositions): an inference batch
norm, a three-result op IREE's torch lowering lacks, is decomposed and compiles; `functional`
keeps it, and its failure, as today. The decomposition happens once on load, so the archive a
reduction writes imports again, as it is, to what judged the original. A torch outside the range
the extra accepts is refused in one line. Real torch.export, FX importer and `iree-compile`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from oracles import OracleOptions, refusals  # noqa: E402
from oracles.torch import ACCEPTED, FUNCTIONAL, SPEC, TESTED, TURBINE, torch_unsupported  # noqa: E402
from oracles.torch.decompositions import TURBINE_OPS, resolved, table  # noqa: E402
from reducer.cli import main  # noqa: E402
from reducer.graphs import torch_program  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
BATCH_NORM = "torch.aten._native_batch_norm_legit_no_training"


class ConvBatchNorm(torch.nn.Module):
    """The stem of a ResNet or MobileNetV2: a conv, an `nn.BatchNorm2d` in eval mode, a ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.norm = torch.nn.BatchNorm2d(4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(self.conv(x)))


def save_conv_batch_norm(path: Path) -> Path:
    torch.manual_seed(0)
    torch.export.save(torch.export.export(ConvBatchNorm().eval(), (torch.randn(1, 3, 8, 8),)), path)
    return path


def compiles(text: str) -> bool:
    from iree.compiler.tools import CompilerToolError, compile_str

    try:
        compile_str(text, extra_args=CPU)
    except CompilerToolError:
        return False
    return True


def test_the_turbine_table_resolves_on_this_torch_and_functional_decomposes_nothing():
    assert len(resolved(TURBINE_OPS)) == len(TURBINE_OPS)  # a misspelt name would be left out silently
    decomposed = {str(op) for op in table(TURBINE)}
    assert "aten._native_batch_norm_legit_no_training.default" in decomposed and "aten.addmm.default" in decomposed
    assert table(FUNCTIONAL) == {} and OracleOptions().torch_import == TURBINE


def test_batch_norm_compiles_as_users_import_it_and_fails_functional(tmp_path):
    raw = save_conv_batch_norm(tmp_path / "stem.pt2").read_bytes()
    functional, turbine = torch_program.normalised(raw, FUNCTIONAL), torch_program.normalised(raw, TURBINE)
    assert (functional.nodes, BATCH_NORM in functional.text) == (3, True)  # conv, batch norm, relu
    assert turbine.nodes > functional.nodes and BATCH_NORM not in turbine.text
    assert not compiles(functional.text) and compiles(turbine.text)
    again = torch_program.imported_text(turbine.archive)  # the archive carries the decomposition: no second one
    assert again == turbine.text


def test_a_reduction_judges_every_candidate_with_the_originals_import(tmp_path, iree_compile, capsys):
    model = save_conv_batch_norm(tmp_path / "stem.pt2")
    assert main([str(model), "--oracle=compile-error", "-q", "--", *CPU]) == 2  # as users import it, it compiles
    assert "the original is not interesting for compile-error: " in capsys.readouterr().err
    out = tmp_path / "stem.reduced.pt2"
    code = main([str(model), "--oracle=compile-error", "--torch-import=functional", "-j", "2", "--no-cache",
                 "--no-culprit", "--json", "-q", "-o", str(out), "--", *CPU])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0, summary
    assert summary["reduced"]["size"] == 1 and "_native_batch_norm_legit_no_training" in summary["failure"]
    assert BATCH_NORM in torch_program.imported_text(out.read_bytes())  # the result imports again as judged


@pytest.mark.parametrize(("version", "taken"), [
    ("2.13.0+cpu", True), ("2.13.1", True), ("2.14.1", True), ("2.12.1", False), ("2.15.0", False), ("3.0.0", False),
])
def test_the_accepted_torch_versions(version, taken):
    assert (torch_unsupported(version) is None) is taken


def test_an_unsupported_torch_is_a_one_line_refusal(tmp_path, capsys, monkeypatch):
    from reducer.formats import pt2_input

    monkeypatch.setattr(pt2_input, "torch_unsupported", lambda: torch_unsupported("2.9.1"))
    model = save_conv_batch_norm(tmp_path / "stem.pt2")
    assert main([str(model), "--oracle=compile-error"]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "Traceback" not in error
    assert refusals.matching(error.removeprefix("reduce: error: ")) is refusals.TORCH_UNSUPPORTED
    assert "torch 2.9.1" in error and SPEC in error


def test_the_extra_ci_and_the_refusal_agree_on_the_range():
    extra = re.search(r"^torch = (.*)$", (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert extra is not None and extra[1] == f'["torch{SPEC}"]'
    assert re.search(rf"'torch=={re.escape(TESTED)}'", (ROOT / ".ci" / "run").read_text())
    assert ACCEPTED[0] <= tuple(int(p) for p in TESTED.split(".")[:2]) < ACCEPTED[1]
    installed = torch.__version__.split("+")[0]
    assert torch_unsupported(installed) is None, f"the tests run a torch the extra refuses: {installed}"

