"""`reduce model.pt2`: a PyTorch program's FX graph is reduced; each candidate is imported with
IREE's FX importer and judged by the oracles, a wrong answer against PyTorch run eagerly.

Real torch.export, FX importer, `iree-compile` and `iree-run-module` throughout; the programs are
the models of tests/torch_models.py, with random weights. Skipped where torch is not installed
(`pip install -e '.[torch]'`).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from oracles import refusals
from oracles.numeric.wrong_answer import decode, primary
from reducer.cli import main
from reducer.formats.pt2_input import program_proposal
from reducer.graphs import torch_program
from reducer.passes.fx.cut_inputs import FxCutInputs
from tests import torch_models

VULKAN = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"]
ONLINE_ATTENTION = "'iree_linalg_ext.online_attention' op result #0 must be variadic of ranked tensor"
# The imports a repro script may have: the standard library, numpy, torch and the IREE wheels.
SCRIPT_MODULES = {"base64", "re", "sys", "warnings", "math", "numpy", "torch", "iree"}


def reduce_json(capsys, *argv: str) -> tuple[int, dict]:
    ours = list(argv[: argv.index("--")]) if "--" in argv else list(argv)
    pasted = list(argv[argv.index("--"):]) if "--" in argv else []
    code = main([*ours, "--json", "-q", *pasted])
    shown = capsys.readouterr()
    assert "{" in shown.out, shown.err
    return code, json.loads(shown.out[shown.out.index("{"):])


def run_script(path: Path) -> subprocess.CompletedProcess:
    """The repro script as a user runs it: its own process, isolated from this checkout."""
    return subprocess.run([sys.executable, "-I", path.name], check=False, cwd=path.parent, capture_output=True, text=True, timeout=300)


def imports_of(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.nightly  # 30 s; the same attention-node reduction by default: tests/test_zoo.py::test_a_gpt2_export_that_fails_for_vulkan_reduces_to_its_attention_node
def test_encoder_that_fails_for_vulkan_reduces_to_its_attention_node(tmp_path, iree_compile, capsys):
    model = torch_models.save_encoder(tmp_path / "encoder.pt2")
    code, summary = reduce_json(capsys, str(model), "--oracle=compile-error", "-j", "2", "--no-cache", "--no-culprit",
                                "--", *VULKAN)
    assert code == 0, summary
    assert summary["unit"] == "nodes" and summary["original"]["size"] == 75
    assert summary["reduced"]["size"] <= 2
    assert summary["oracle_calls"] <= 60  # the work it takes (25 measured); its seconds are bench/torch_cases.py's
    assert ONLINE_ATTENTION in summary["failure"]
    assert summary["localised"]["size"] <= 2  # the located error named the attention node
    files = summary["files"]
    assert Path(files["output"]).suffix == ".pt2" and Path(files["imported"]).read_text().count("torch.aten.scaled_dot_product_attention") == 1
    script = Path(files["script"])
    source = script.read_text()
    assert imports_of(source) <= SCRIPT_MODULES and "func.func" not in source  # no MLIR, nothing of this tool
    shown = run_script(script)
    assert shown.returncode == 1 and ONLINE_ATTENTION in shown.stderr and "the failure shows" in shown.stderr
    assert summary["reproduce"].splitlines()[0] == f"python {script}"


@pytest.mark.nightly  # 30 s; transformers' GPT-2 splits its qkv the same way, by default: tests/test_zoo.py::test_a_gpt2_export_that_fails_for_vulkan_reduces_to_its_attention_node
def test_a_gpt_whose_qkv_is_one_split_reduces_to_its_attention_node(tmp_path, iree_compile, capsys):
    """Issue 35's program (44 nodes): the localisation imports the saved program again, where the
    split of the fused q, k, v loads as a tuple (it ended in a traceback); cuts go at its getitems."""
    model = torch_models.save_gpt(tmp_path / "gpt.pt2")
    code, summary = reduce_json(capsys, str(model), "--oracle=compile-error", "-j", "2", "--no-cache", "--no-culprit",
                                "--", *VULKAN)
    assert code == 0, summary
    assert ONLINE_ATTENTION in summary["failure"]
    assert summary["localised"] is not None and summary["localised"]["size"] <= 2
    assert summary["original"]["size"] == 44 and summary["reduced"]["size"] <= 2 and summary["oracle_calls"] <= 60
    assert Path(summary["files"]["imported"]).read_text().count("torch.aten.scaled_dot_product_attention") == 1


def test_a_cut_at_a_split_stands_in_for_the_tensors_its_getitems_select(tmp_path):
    from reducer.passes.fx.remove_nodes import FxRemoveNodes

    built = torch_program.normalised(torch_models.save_gpt(tmp_path / "gpt.pt2", layers=1, width=8).read_bytes())
    original = program_proposal(built, (), ())
    ed = torch_program.editable_of(built.archive)
    names = [n.name for n in ed.ops()]
    split = next(n for n in ed.ops() if n.target is torch.ops.aten.split.Tensor)
    views = {user.name for item in split.users for user in item.users}
    selected = [tuple(item.meta["val"].shape) for item in split.users]
    assert len(views) == 3 and "torch.aten.split" in original.candidate.text

    torch_program.keep_only(ed, views, {})  # the views of q, k and v, each reading one getitem
    torch_program.prune(ed)
    assert [n.name for n in ed.ops()] == [n for n in names if n in views]
    assert [tuple(n.meta["val"].shape) for n in ed.inputs()] == selected  # one input per getitem
    assert torch_program.built(ed).nodes == 3  # exported and imported again
    cut = FxCutInputs().apply(original, [len(names) - names.index(split.name) - 2], None)  # the cut just after it
    assert cut.ops == len(names) - names.index(split.name) - 1 and "torch.aten.split" not in cut.candidate.text
    removed = FxRemoveNodes().apply(original, [names.index(split.name)], None)
    assert "torch.aten.split" not in removed.candidate.text and removed.ops < original.ops


class _FlattenThenScale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(x.shape[0] * 4, 8)  # its first dim is 4*s0 where x's batch is dynamic
        return torch.relu(flat) * 2.0


def test_a_cut_after_a_reshape_of_a_dynamic_dim_makes_an_input_of_its_own_dynamic_size(tmp_path):
    # Swin's dynamic batch: a cut made a value sized 4*s77 an input, and `reduce` ended in a traceback.
    program = torch.export.export(_FlattenThenScale(), (torch.zeros(2, 4, 8),), dynamic_shapes=({0: torch.export.Dim.DYNAMIC},))
    archive = tmp_path / "flatten.pt2"
    torch.export.save(program, archive)
    built = torch_program.normalised(archive.read_bytes())
    ed = torch_program.editable_of(built.archive)
    after = {n.name for n in ed.ops() if n.target in (torch.ops.aten.relu.default, torch.ops.aten.mul.Tensor)}
    torch_program.keep_only(ed, after, {})
    torch_program.prune(ed)
    (flat,) = ed.inputs()
    assert not isinstance(flat.meta["val"].shape[0], int) and not flat.meta["val"].shape[0].node.expr.is_Symbol  # 4*s0
    rebuilt = torch_program.built(ed)  # exported with that dim dynamic of its own, and imported
    assert rebuilt.nodes == len(after) == 2 and "!torch.vtensor<[?,8],f32>" in rebuilt.text.split("func.func @main(", 1)[1].split(")", 1)[0]


@pytest.mark.nightly  # a minute; eager-mismatch on .pt2 by default: test_eager_mismatch_keeps_at_least_half_the_original_wrong_share, dynamic sizes: test_inputs_from_a_torch_save_file_run_the_program_at_their_sizes
def test_wrong_scores_at_a_dynamic_token_count_reduce_to_the_chain_that_computes_them(tmp_path, iree_compile, capsys):
    model = torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4)
    code, summary = reduce_json(capsys, str(model), "--oracle=eager-mismatch", "--dim", "arg0.1=15", "-j", "2",
                                "--no-cache", "--", "--iree-opt-data-tiling=true")
    assert code == 0, summary
    assert summary["original"]["size"] == 8 and summary["reduced"]["size"] <= 5
    assert summary["sizes"] == {"arg0.1": 15}
    assert "IREE differs from PyTorch eager" in summary["failure"]
    shown = run_script(Path(summary["files"]["script"]))
    assert shown.returncode == 1 and "IREE differs from PyTorch eager" in shown.stderr


def test_eager_mismatch_keeps_at_least_half_the_original_wrong_share(tmp_path, iree_compile):
    from oracles import OracleOptions, make_oracle
    from oracles.inputs.attach import attach
    from oracles.inputs.dims import sized_inputs
    from oracles.torch.imported import torch_oracle

    built = torch_program.normalised(torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4).read_bytes())
    original = program_proposal(built, ["--iree-opt-data-tiling=true"], ())
    original = program_proposal(built, original.candidate.flags, attach(original.candidate, sized_inputs(original.candidate, {"arg0.1": 15}, 0)).data)
    oracle = torch_oracle(make_oracle("eager-mismatch", OracleOptions()))
    first = oracle.judge(original.candidate)
    assert first.interesting
    calibrated = oracle.calibrated(first)
    for cut in range(1, FxCutInputs().count(original, None)):
        proposal = FxCutInputs().apply(original, [cut], None)
        verdict = calibrated.judge(proposal.candidate)
        if verdict.interesting:  # what the reducer may keep is wrong the original's way, at least half as often
            kept, was = primary(decode(verdict.metrics["wrong"])), primary(decode(first.metrics["wrong"]))
            assert kept.kind == was.kind and kept.fraction >= 0.5 * was.fraction


@pytest.mark.nightly  # 30 s; the KV-cache corpus entries run by default (corpus/test_corpus.py)
def test_kv_cache_update_keeps_its_transient_copies_and_is_kept_in_the_corpus(tmp_path, iree_compile, capsys):
    from reducer.corpus_entries import check_entry, entry_problem, load_entries

    model = torch_models.save_kv_cache_step(tmp_path / "kv.pt2")
    code, summary = reduce_json(capsys, str(model), "--oracle=transient-copy", "-j", "2", "--no-cache",
                                "--save-to-corpus", "kv-cache-update-copies", "--corpus-dir", str(tmp_path / "corpus"))
    assert code == 0, summary
    assert summary["original"]["size"] == 21 and summary["reduced"]["size"] <= 2
    assert "slow_memcpy dispatch constant->transient" in summary["failure"]
    assert "index_put" in Path(summary["files"]["script"]).read_text()
    (entry,) = load_entries(tmp_path / "corpus")
    assert entry.input_file == "repro.pt2"
    assert entry_problem(entry, check_entry(entry)) is None  # the entry's check imports it again and sees the copies


def test_a_cut_input_carries_what_the_original_computes_there(tmp_path):
    from oracles.data.carried import INTERMEDIATE, unpack
    from oracles.inputs.attach import attach
    from oracles.inputs.dims import sized_inputs
    from oracles.torch.eager import node_values

    built = torch_program.normalised(torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4).read_bytes())
    bare = program_proposal(built, (), ())
    carried = attach(bare.candidate, sized_inputs(bare.candidate, {"arg0.1": 3}, 0)).data
    original = program_proposal(built, (), carried)
    ed = torch_program.editable_of(built.archive, carried)
    expected = node_values(ed.module, [unpack(carried)["in:arg0"]])
    cut = FxCutInputs().apply(original, [FxCutInputs().count(original, None) - 1], None)  # drops the first node only
    stored = unpack(cut.candidate.data)
    assert cut.ops == original.ops - 1
    assert np.array_equal(stored[f"{INTERMEDIATE}arg0"], expected["layer_norm"])


@pytest.mark.parametrize(("content", "entry"), [
    (None, refusals.PT2_PICKLED),
    (b"PK\x03\x04 not really a zip", refusals.PT2_UNREADABLE),
])
def test_bad_archives_are_one_line_refusals(tmp_path, capsys, content, entry):
    path = tmp_path / "model.pt2"
    if content is None:
        torch.save(torch.nn.Linear(2, 2), path)  # a pickled module, not an exported program
    else:
        path.write_bytes(content)
    assert main([str(path), "--oracle=compile-error"]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and refusals.matching(error.removeprefix("reduce: error: ")) is entry
    if entry is refusals.PT2_PICKLED:
        assert "torch.export.save(torch.export.export(" in error


def test_an_archive_with_a_custom_op_this_process_lacks_is_refused(tmp_path):
    code = """
import torch
@torch.library.custom_op("mylib::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2
@twice.register_fake
def _(x):
    return torch.empty_like(x)
class M(torch.nn.Module):
    def forward(self, x):
        return twice(x) + 1
torch.export.save(torch.export.export(M(), (torch.ones(2),)), "custom.pt2")
"""
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, capture_output=True)
    shown = subprocess.run([sys.executable, "-m", "reducer", "custom.pt2", "--oracle=compile-error"], check=False,
                           cwd=tmp_path, capture_output=True, text=True)
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    line = shown.stderr.strip().removeprefix("reduce: error: ")
    assert refusals.matching(line) is refusals.PT2_UNREADABLE and "mylib" in line


def test_without_torch_a_pt2_is_refused_with_the_install_command(tmp_path, capsys, monkeypatch):
    from reducer.formats import pt2_input

    monkeypatch.setattr(pt2_input, "torch_missing", lambda: "torch is not installed: pip install -e '.[torch]' (torch==2.13.0, the CPU build)")
    path = torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4)
    assert main([str(path), "--oracle=compile-error"]) == 1
    error = capsys.readouterr().err.strip()
    assert refusals.matching(error.removeprefix("reduce: error: ")) is refusals.TORCH_MISSING
    assert "pip install -e '.[torch]'" in error


def test_eager_mismatch_refuses_mlir_and_reference_mismatch_refuses_a_pt2(tmp_path, capsys):
    mlir = tmp_path / "x.mlir"
    mlir.write_text("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }\n")
    assert main([str(mlir), "--oracle=eager-mismatch"]) == 1
    assert "eager-mismatch judges PyTorch programs" in capsys.readouterr().err
    path = torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4)
    assert main([str(path), "--oracle=reference-mismatch", "--dim", "arg0.1=3"]) == 1
    assert "--oracle=eager-mismatch" in capsys.readouterr().err


def test_inputs_from_a_torch_save_file_run_the_program_at_their_sizes(tmp_path, iree_compile, capsys):
    path = torch_models.save_scorer(tmp_path / "scorer.pt2", width=4, hidden=4)
    torch.save({"x": torch.randint(-4, 5, (2, 7, 4)).half()}, tmp_path / "x.pt")
    code, summary = reduce_json(capsys, str(path), "--oracle=eager-mismatch", "--inputs", str(tmp_path / "x.pt"),
                                "--passes", "reduce-flags", "-j", "2", "--no-cache", "--", "--iree-opt-data-tiling=true")
    assert code == 0, summary
    assert summary["original_sizes"] == {"arg0.1": 7}


@pytest.mark.nightly  # a new virtual environment with torch and the IREE wheels: a few minutes
def test_the_repro_script_runs_with_torch_and_the_iree_wheels_alone(tmp_path, iree_compile, capsys):
    model = torch_models.save_encoder(tmp_path / "encoder.pt2")
    code, summary = reduce_json(capsys, str(model), "--oracle=compile-error", "-j", "2", "--no-culprit", "--", *VULKAN)
    assert code == 0, summary
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    wheels = [f"torch=={torch.__version__.split('+')[0]}", "iree-base-compiler==3.13.0", "iree-base-runtime==3.13.0"]
    installed = subprocess.run([python, "-m", "pip", "install", "-q", *wheels], check=False, capture_output=True, text=True)
    if installed.returncode != 0:
        pytest.skip(f"cannot install {' '.join(wheels)} into a new venv: {installed.stderr.strip().splitlines()[-1:]}")
    script = Path(summary["files"]["script"])
    shown = subprocess.run([python, script.name], check=False, cwd=script.parent, capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=600)
    assert shown.returncode == 1 and ONLINE_ATTENTION in shown.stderr
