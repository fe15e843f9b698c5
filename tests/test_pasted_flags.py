"""Command lines as users paste them: each against the flags a person expects from it.

`tests/data/pasted_commands.json` holds the command lines of the seeds and real ones from IREE
issues (the address of each is its `source`), with the flags written down by hand. Which flag
takes a value and which old name is rejected is the installed compiler's own answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracles.toolchain.compiler_options import compiler_options, parse_help
from oracles.toolchain.flags import PasteError, parse_pasted
from reducer.cli import main

CASES = json.loads((Path(__file__).parent / "data" / "pasted_commands.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["source"].split(" ")[0].rsplit("/", 1)[-1] + f"-{i}" for i, c in enumerate(CASES)])
def test_a_pasted_command_gives_the_flags_a_person_expects(case, iree_compile):
    command = parse_pasted([case["pasted"]])
    assert command.flags == case["flags"]
    assert command.unknown == case.get("unknown", [])


@pytest.mark.parametrize(
    "words, flags",
    [
        # argv as the shell split it after `--`, values separate
        (["iree-compile", "--iree-hal-target-device", "local", "--compile-to", "flow", "in.mlir", "-o", "out.mlir"],
         ["--iree-hal-target-device=local", "--compile-to=flow"]),
        # -ox and -o=x are the output; a boolean flag does not take the input path as its value
        (["iree-compile --iree-opt-outer-dim-concat in.mlir -oout.vmfb"], ["--iree-opt-outer-dim-concat"]),
        (["iree-compile in.mlir -o=out.vmfb --iree-opt-level O2"], ["--iree-opt-level=O2"]),
        # environment assignments before the command, stderr merged and piped
        (["IREE_SAVE_TEMPS=/tmp/t TF_CPP_MIN_LOG_LEVEL=0 iree-compile in.mlir --iree-hal-target-device=local 2>&1 | tee log.txt"],
         ["--iree-hal-target-device=local"]),
        # a quoted value with spaces stays one flag; a redirection in the middle takes its target only
        (["iree-compile in.mlir 2> err.txt --iree-preprocessing-pass-pipeline='builtin.module(iree-preprocessing-pad-to-intrinsics, canonicalize)'"],
         ["--iree-preprocessing-pass-pipeline=builtin.module(iree-preprocessing-pad-to-intrinsics, canonicalize)"]),
        # flags only, as the README's examples pass them
        (["--iree-hal-target-device=hip", "--iree-hip-target=gfx942"], ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]),
        # a dump flag's separate value goes with it
        (["iree-compile in.mlir --iree-hal-dump-executable-files-to dumps/ --iree-hal-target-device=local"],
         ["--iree-hal-target-device=local"]),
    ],
)
def test_pasted_forms(words, flags, iree_compile):
    assert parse_pasted(words).flags == flags


def test_only_rejected_flags_are_renamed(iree_compile):
    command = parse_pasted(["iree-compile --iree-hip-target=gfx942 --iree-rocm-target-features=+sramecc x.mlir"])
    assert command.flags == ["--iree-rocm-target=gfx942", "--iree-rocm-target-features=+sramecc"]
    assert command.renamed == [("--iree-hip-target=gfx942", "--iree-rocm-target=gfx942")]


def test_an_unknown_flag_is_listed_with_the_nearest_accepted_one(iree_compile):
    command = parse_pasted(["iree-compile x.mlir --iree-rocm-targt=gfx942 --no-such-flag"])
    assert command.unknown == ["--iree-rocm-targt=gfx942", "--no-such-flag"]
    assert command.suggestions == {"--iree-rocm-targt=gfx942": "--iree-rocm-target"}


def test_a_relative_path_in_a_flag_still_names_the_users_file(tmp_path, monkeypatch, iree_compile):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tuning.mlir").write_text("module {}\n")
    monkeypatch.chdir(tmp_path)  # compiles run in a scratch directory, not here
    command = parse_pasted(["iree-compile x.mlir --iree-codegen-tuning-spec-path specs/tuning.mlir --iree-opt-level=O2"])
    assert command.flags == [f"--iree-codegen-tuning-spec-path={tmp_path}/specs/tuning.mlir", "--iree-opt-level=O2"]


def test_an_unbalanced_quote_is_a_paste_error():
    with pytest.raises(PasteError, match="No closing quotation"):
        parse_pasted(["iree-compile x.mlir --iree-hal-target-device='hip"], options=None)


def test_the_compiler_lists_which_flags_take_values(iree_compile):
    options = compiler_options()
    assert options is not None and len(options.names) > 1000
    assert options.takes_value("iree-hal-target-device") and options.takes_value("compile-to") and options.takes_value("o")
    assert options.accepts("iree-opt-const-eval") and not options.takes_value("iree-opt-const-eval")
    assert not options.accepts("iree-hip-target")  # renamed in 3.13


def test_help_lines_with_odd_value_names_parse():
    text = "OPTIONS:\n  --dot-cfg-mssa=<file name for generated dot file>   - x\n    =none   -   a value\n  -o <filename>  - Output\n  --flag   - b\n"
    options = parse_help(text)
    assert options.names == {"dot-cfg-mssa", "o", "flag"} and options.valued == {"dot-cfg-mssa", "o"}


def test_reduce_refuses_a_flag_the_compiler_rejects(tmp_path, iree_compile, capsys):
    src = tmp_path / "x.mlir"
    src.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n")
    status = main([str(src), "--oracle=compile-error", "-q", "--", "iree-compile x.mlir --iree-rocm-targt=gfx942 -o x.vmfb"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and len(err) == 1
    assert "--iree-rocm-targt=gfx942" in err[0] and "did you mean --iree-rocm-target" in err[0]
    assert not (tmp_path / "x.reduced.mlir").exists()
