"""Since when a case fails: versions, the bisection, the cached environments, and real older releases.

The tests at the end install one real older release, IREE 3.0.0 (about 400 MB, a few seconds with
uv), once per test session, and judge three cases with it against the installed 3.13.0: one both
fail (the same error, worded as 3.0.0 words it), one only 3.13.0 fails (a regression checked by hand
with both compilers: 3.0.0 compiles it), and one 3.0.0 cannot parse (`linalg.pack` came later); and
two PyTorch programs, each imported by 3.0.0's own FX importer: one it judges, one it rejects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from oracles import Candidate, Verdict, make_oracle, refusals
from oracles.releases.bisect import bisect
from oracles.releases.environments import READY, ReleaseEnvironments
from oracles.releases.history import (
    CANNOT,
    EVERY_RELEASE,
    FAILS,
    NEWEST_PASSES,
    NO_OLDER_JUDGES,
    PASSES,
    REGRESSION,
    ReleaseHistory,
    ReleaseVerdict,
)
from oracles.releases.index import IndexOptions, ReleasesUnavailable
from oracles.releases.judge import same_crash_site, worded_otherwise
from oracles.releases.remote import judge_with, write_case
from oracles.releases.since import ReleaseSettings, since_when
from oracles.releases.versions import parse_range, version_key
from oracles.toolchain.compiler_options import CompilerOptions
from oracles.toolchain.flags import respelled

DATA = Path(__file__).parent / "data" / "releases"
OLD = "3.0.0"  # the release the `old_release` fixture installs (tests/conftest.py)
RDNA3 = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=rdna3"]
ADRENO = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=adreno"]
RELEASES = ["2.9.0", "3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0", "3.6.0", "3.7.0", "3.8.0"]


# --- versions and ranges --------------------------------------------------------------------------

def test_versions_order_with_nightlies_between_releases():
    versions = ["3.10.0", "3.9.0", "3.10.0rc20250101", "2.9.0", "3.7.1"]
    assert sorted(versions, key=version_key) == ["2.9.0", "3.7.1", "3.9.0", "3.10.0rc20250101", "3.10.0"]


def test_ranges_select_releases():
    available = ["2.9.0", "3.8.0", "3.9.0", "3.12.0", "3.13.0"]
    assert parse_range("3.8.0:3.12.0").select(available) == ["3.8.0", "3.9.0", "3.12.0"]
    assert parse_range(":3.8.0").select(available) == ["2.9.0", "3.8.0"]
    assert parse_range("3.12.0").select(available) == ["3.12.0", "3.13.0"]
    assert parse_range("3.13.0,2.9.0").select(available) == ["2.9.0", "3.13.0"]
    assert parse_range(None).select(available) == available


@pytest.mark.parametrize("text", ["3.13.0:3.8.0", "latest", "3.8:3.13.0", "3.0.0,three"])
def test_a_bad_range_is_one_line_from_the_catalogue(text):
    with pytest.raises(ValueError) as caught:
        parse_range(text)
    assert refusals.matching(str(caught.value)) in (refusals.RELEASE_RANGE, refusals.RELEASE_NOT_A_VERSION)


# --- the bisection, on made-up verdicts -----------------------------------------------------------

def fake_judge(answers: dict[str, str]):
    asked = []

    def judge(release: str) -> ReleaseVerdict:
        asked.append(release)
        return ReleaseVerdict(release, answers[release], "compiles fine" if answers[release] == PASSES else "")

    return judge, asked


def answers_from(first_failing: str, cannot: tuple[str, ...] = ()) -> dict[str, str]:
    return {r: CANNOT if r in cannot else FAILS if version_key(r) >= version_key(first_failing) else PASSES for r in RELEASES}


def test_bisection_finds_the_release_a_regression_came_in_with_few_judgements():
    judge, asked = fake_judge(answers_from("3.5.0"))
    newest = {"3.8.0": ReleaseVerdict("3.8.0", FAILS)}
    history = bisect(RELEASES, judge, newest)
    assert (history.kind, history.first_failing, history.last_passing) == (REGRESSION, "3.5.0", "3.4.0")
    assert len(asked) <= 4 and "3.8.0" not in asked  # the known verdict is not judged again
    assert history.headline() == "fails since 3.5.0; 3.4.0 compiles it"


def test_bisection_steps_over_releases_that_cannot_judge():
    judge, _ = fake_judge(answers_from("3.5.0", cannot=("3.4.0", "3.3.0")))
    history = bisect(RELEASES, judge)
    assert (history.kind, history.first_failing, history.last_passing) == (REGRESSION, "3.5.0", "3.2.0")
    assert history.verdicts["3.4.0"].verdict == CANNOT


def test_every_release_failing_and_no_older_release_judging_are_results_of_their_own():
    judge, _ = fake_judge(answers_from("2.9.0"))
    assert bisect(RELEASES, judge).kind == EVERY_RELEASE
    judge, asked = fake_judge(answers_from("2.9.0", cannot=tuple(RELEASES[:6])))
    history = bisect(RELEASES, judge, give_up_after=3)
    assert (history.kind, history.first_failing) == (NO_OLDER_JUDGES, "3.5.0")
    assert sum(a in RELEASES[:6] for a in asked) == 3  # gave up after three that could not judge
    judge, _ = fake_judge({r: PASSES for r in RELEASES})
    assert bisect(RELEASES, judge).kind == NEWEST_PASSES


def test_an_error_an_older_release_words_shorter_is_the_same_failure():
    newer = "error: failed to legalize operation 'x.y' that was explicitly marked illegal: \"x.y\""
    assert worded_otherwise("error: failed to legalize operation 'x.y' that was explicitly marked illegal", newer)
    assert not worded_otherwise("error: failed to legalize operation 'x.z' that was explicitly marked illegal", newer)
    assert not worded_otherwise("error: failed to legalize", newer)  # cut anywhere but at ': '


def test_a_crash_in_the_same_function_is_the_same_crash():
    newer = "crash: died: a::Pad::create <- a::Pattern::matchAndRewrite <- b::dispatch"
    assert same_crash_site("crash: died: a::Pad::create <- a::populate <- a::Pattern::matchAndRewrite", newer)
    assert not same_crash_site("crash: died: a::Conv::create <- a::Pattern::matchAndRewrite", newer)


def test_a_release_that_fails_another_way_is_not_said_to_work():
    history = ReleaseHistory(REGRESSION, ["3.1.0", "3.2.0"], {
        "3.1.0": ReleaseVerdict("3.1.0", PASSES, "fails differently: error: other"),
        "3.2.0": ReleaseVerdict("3.2.0", FAILS, "error: this")}, "3.2.0", "3.1.0")
    assert history.headline() == "fails this way since 3.2.0; 3.1.0 fails another way (error: other)"


def test_flags_are_renamed_for_an_older_compiler_too():
    older = CompilerOptions(frozenset({"iree-hip-target", "iree-hal-target-device"}), frozenset({"iree-hip-target"}))
    spelled = respelled(["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942", "--iree-no-such-flag"], older)
    assert spelled.flags[:2] == ["--iree-hal-target-device=hip", "--iree-hip-target=gfx942"]
    assert spelled.renamed == [("--iree-rocm-target=gfx942", "--iree-hip-target=gfx942")]
    assert spelled.unknown == ["--iree-no-such-flag"]


# --- the cache of environments --------------------------------------------------------------------

def fake_environment(environments: ReleaseEnvironments, release: str, megabytes: int, age: int) -> None:
    directory = environments.path(release)
    (directory / "lib").mkdir(parents=True)
    (directory / "lib" / "blob").write_bytes(os.urandom(megabytes * 1024 * 1024))
    (directory / READY).write_text("{}")
    os.utime(directory / READY, (1_000_000 + age, 1_000_000 + age))


def test_the_cache_is_trimmed_least_recently_used_first_sparing_one_in_use(tmp_path):
    environments = ReleaseEnvironments(tmp_path, limit_gb=0.0035)
    for age, release in enumerate(["3.1.0", "3.2.0", "3.3.0"]):
        fake_environment(environments, release, 2, age)
    with environments._lock("3.1.0", exclusive=False):  # another run judges with the oldest one
        removed = environments.trim(keep={"3.3.0"})
    assert removed == ["3.2.0"]
    assert environments.releases() == ["3.1.0", "3.3.0"]
    count, freed = environments.clean()
    assert count == 2 and freed > 3_000_000 and environments.releases() == []


def test_offline_is_one_line_and_the_cli_says_it(tmp_path):
    settings = ReleaseSettings(tmp_path, index=IndexOptions(index_url="http://127.0.0.1:9/simple"))
    with pytest.raises(ReleasesUnavailable) as caught:
        since_when(Candidate("module {}"), make_oracle("compile-error"), Verdict(True, "error: x"), settings)
    assert refusals.matching(str(caught.value)) is refusals.RELEASES_UNREACHABLE
    run = subprocess.run([sys.executable, "-m", "reducer", str(DATA / "conv_i8_adreno.mlir"), "--oracle=compile-error", "--releases-only",
                          "--index-url", "http://127.0.0.1:9/simple", "--releases-cache", str(tmp_path), "--", *ADRENO],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stderr
    error = [line for line in run.stderr.splitlines() if line.startswith("reduce: error: ")]
    assert len(error) == 1 and "Traceback" not in run.stderr
    assert refusals.matching(error[0].removeprefix("reduce: error: ")) is refusals.RELEASES_UNREACHABLE


# --- one real older release -----------------------------------------------------------------------

def judged_by_old(old_release, tmp_path: Path, name: str, flags: list[str]) -> ReleaseVerdict:
    """The case judged with the installed compiler first (the reference), then with 3.0.0."""
    oracle = make_oracle("compile-error")
    candidate = Candidate((DATA / name).read_text(), tuple(flags))
    reference = oracle.judge(candidate)
    python, project = old_release
    return judge_with(python, project, write_case(tmp_path / "case", candidate, oracle, reference), oracle.options.limits, OLD)


def test_a_case_both_releases_fail(old_release, tmp_path, iree_compile):
    verdict = judged_by_old(old_release, tmp_path, "conv_i8_adreno.mlir", ADRENO)
    assert verdict.verdict == FAILS, verdict.detail
    assert "unrealized_conversion_cast" in verdict.detail and "3.0.0" in verdict.compiler


def test_a_case_only_the_new_release_fails(old_release, tmp_path, iree_compile):
    verdict = judged_by_old(old_release, tmp_path, "conv_f16_rdna3.mlir", RDNA3)
    assert (verdict.verdict, verdict.detail) == (PASSES, "compiles fine")
    assert verdict.commit.startswith("29c451b00ecc")  # 3.0.0's commit, from its own --version


def test_a_case_the_old_release_cannot_parse(old_release, tmp_path, iree_compile):
    oracle = make_oracle("compile-error")
    case = write_case(tmp_path / "case", Candidate((DATA / "linalg_pack.mlir").read_text(), ("--iree-hal-target-device=vulkan",)),
                      oracle, Verdict(True, "error: made up"))
    python, project = old_release
    verdict = judge_with(python, project, case, oracle.options.limits, OLD)
    assert verdict.verdict == CANNOT and "cannot parse the IR" in verdict.detail and "linalg.pack" in verdict.detail


def test_releases_only_end_to_end(old_release, release_cache, tmp_path, iree_compile):
    """`reduce --releases-only` with the installed release and 3.0.0: a regression, in --json and the report."""
    report = tmp_path / "bug.md"
    run = subprocess.run([sys.executable, "-m", "reducer", str(DATA / "conv_f16_rdna3.mlir"), "--oracle=compile-error",
                          "--releases-only", "--releases", f"{OLD},3.13.0", "--releases-cache", str(release_cache), "--json",
                          "--report", str(report), "--", *RDNA3], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)["releases"]
    assert (found["kind"], found["fails_since"], found["last_passing"]) == (REGRESSION, "3.13.0", OLD)
    assert found["releases_installed"] == 0 and found["releases_judged"] == 2  # 3.13.0 is the installed one
    assert found["commits"].endswith("29c451b00ecc9f9e5466e9d1079e0d69147da700...89ece87b89852100c0a4ac3d515e14842d090967")
    assert "**fails since 3.13.0; 3.0.0 compiles it**" in report.read_text()


VALHALL = ["--iree-hal-target-device=vulkan", "--iree-vulkan-target=valhall"]


def releases_only_json(path: Path, release_cache: Path) -> dict:
    run = subprocess.run([sys.executable, "-m", "reducer", str(path), "--oracle=compile-error", "--releases-only",
                          "--releases", f"{OLD},3.13.0", "--releases-cache", str(release_cache), "--json", "--", *VALHALL],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["releases"]


@pytest.mark.nightly  # 35 s; a .pt2 beside a release by default: test_where_torch_does_not_load_beside_a_release_it_judges_the_installed_import
def test_each_release_imports_a_pt2_program_with_its_own_fx_importer(old_release, release_cache, tmp_path, iree_compile):
    """An attention program fails for Vulkan on 3.13.0; 3.0.0 imports it itself and fails another way.
    Scaled by an int it was exported with (a constant input, which 3.0.0's FX importer rejects and
    3.13.0's imports), 3.0.0 cannot judge it: the program went to 3.0.0's importer, not 3.13.0's MLIR."""
    pytest.importorskip("torch")
    from tests import torch_models

    judged = releases_only_json(torch_models.save_attention(tmp_path / "attention.pt2"), release_cache)
    old = next(v for v in judged["verdicts"] if v["release"] == OLD)
    assert old["verdict"] != CANNOT and old["compiler"].startswith("IREE compiler version 3.0.0"), old
    scaled = releases_only_json(torch_models.save_attention(tmp_path / "scaled.pt2", scale=3), release_cache)
    assert scaled["kind"] == NO_OLDER_JUDGES, scaled
    old = next(v for v in scaled["verdicts"] if v["release"] == OLD)
    assert old["verdict"] == CANNOT and "its FX importer rejects the program" in old["detail"] and "ConstantArgument" in old["detail"]


def test_where_torch_does_not_load_beside_a_release_it_judges_the_installed_import(old_release, release_cache, tmp_path,
                                                                                   iree_compile, monkeypatch, capsys):
    """The fallback, said in the verdict: 3.0.0 judges the MLIR 3.13.0's importer made of the program."""
    pytest.importorskip("torch")
    from oracles.releases import remote
    from reducer.cli import main
    from tests import torch_models

    monkeypatch.setattr(remote, "torch_site", lambda: None)
    path = torch_models.save_attention(tmp_path / "scaled.pt2", scale=3)
    code = main([str(path), "--oracle=compile-error", "--releases-only", "--releases", f"{OLD},3.13.0",
                 "--releases-cache", str(release_cache), "--json", "-q", "--", *VALHALL])
    shown = capsys.readouterr().out
    assert code == 0
    old = next(v for v in json.loads(shown[shown.index("{"):])["releases"]["verdicts"] if v["release"] == OLD)
    assert old["verdict"] != CANNOT and "torch does not load here" in old["detail"], old


@pytest.mark.nightly
def test_every_release_bisected_names_the_release_of_a_real_regression(tmp_path, iree_compile):
    """Every release the index has, from an empty cache: the f16 conv on rdna3 fails since 3.1.0 (checked by
    hand with both compilers: 3.0.0 compiles it, 3.1.0 says 'no GPU subgroup mma compute ops generated')."""
    oracle = make_oracle("compile-error")
    candidate = Candidate((DATA / "conv_f16_rdna3.mlir").read_text(), tuple(RDNA3))
    history = since_when(candidate, oracle, oracle.judge(candidate), ReleaseSettings(tmp_path))
    assert (history.kind, history.first_failing, history.last_passing) == (REGRESSION, "3.1.0", "3.0.0")
    assert len(history.verdicts) <= 6 and history.installed <= 5


def test_fuzz_root_causes_get_their_release(campaign_dir, old_release, release_cache, tmp_path, iree_compile):
    """`fuzz run --releases`: each root cause's reduced case judged; the result kept in its saved entry."""
    import shutil

    from fuzz.campaign import DB_NAME
    from fuzz.findings import FindingsDB
    from fuzz.releases import since_when_of_causes
    from fuzz.root_cause import assign_root_causes, reduction_entries

    out = tmp_path / "campaign"
    shutil.copytree(campaign_dir, out)
    db = FindingsDB(out / DB_NAME)
    causes = assign_root_causes(db, {f.signature: 1 for f in db.all()}, [], out)
    db.close()
    since = since_when_of_causes(out, causes, ReleaseSettings(release_cache, parse_range(f"{OLD},3.13.0")), only_new=False)
    assert since, "the campaign fixture reduces a finding: its root cause is judged"
    saved = [e for e in reduction_entries(out).values() if e.fails_since]
    assert saved and all(e.fails_since["range"] == f"{OLD},3.13.0" or e.fails_since["range"].startswith(OLD) for e in saved)
    assert {record["summary"] for record in since.values()} <= {e.fails_since["summary"] for e in saved}
    shown = subprocess.run([sys.executable, "-m", "fuzz", "show", str(out)], capture_output=True, text=True, check=False).stdout
    assert f"since when: {saved[0].name}: {saved[0].fails_since['summary']}" in shown


@pytest.mark.nightly  # 40 s; --releases end to end by default: test_releases_only_end_to_end
def test_reduce_with_releases_puts_the_result_in_the_summary_json_report_and_corpus(old_release, release_cache, tmp_path, iree_compile):
    """`reduce --releases` after a reduction: the same bisection, in every output of the run."""
    from reducer.corpus_entries import load_entries

    source = tmp_path / "bug.mlir"
    source.write_text((DATA / "conv_f16_rdna3.mlir").read_text())
    common = [str(source), "--oracle=compile-error", "-j", "2", "-q", "--no-culprit", "--releases", f"{OLD},3.13.0",
              "--releases-cache", str(release_cache)]
    run = subprocess.run([sys.executable, "-m", "reducer", *common, "--json", "--report", str(tmp_path / "bug.md"),
                          "--save-to-corpus", "rdna3", "--corpus-dir", str(tmp_path / "corpus"), "--", *RDNA3],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)["releases"]
    assert record["summary"] == "fails since 3.13.0; 3.0.0 compiles it"
    assert f"**{record['summary']}**" in (tmp_path / "bug.md").read_text()
    (entry,) = load_entries(tmp_path / "corpus")
    assert entry.fails_since["fails_since"] == "3.13.0" and entry.fails_since["last_passing"] == OLD
    text = subprocess.run([sys.executable, "-m", "reducer", *common, "-o", str(tmp_path / "again.mlir"), "--", *RDNA3],
                          capture_output=True, text=True, check=False).stdout
    assert f"  releases      {record['summary']} (2 releases judged, 0 installed" in text
