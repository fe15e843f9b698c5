"""`reduce --json` and `fuzz show --json` carry every figure of the text output as typed fields,
and the live status line shows on a terminal only. Real compiler throughout."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import onnx
import pytest

import reducer.cli
from fuzz.cli import main as fuzz_main
from reducer.cli import main as reduce_main
from reducer.report import summary
from tests.models import torch_chain
from tests.test_reduce_onnx import conv_det_network

CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
REPO = Path(__file__).resolve().parent.parent
LABEL = re.compile(r"^  (\S+(?: \S+)?)\s{2,}(.*)$")  # "  oracle calls  84 (cache hits 3)"


def text_fields(text: str) -> dict[str, str]:
    """The summary's `label  value` lines; a continuation line ("   -> ...") joins the one before."""
    fields: dict[str, str] = {}
    last = None
    for line in text.splitlines()[1:]:
        match = LABEL.match(line)
        if match:
            last = match.group(1)
            fields[last] = match.group(2)
        elif last and line.strip().startswith("->"):
            fields[last] += " " + line.strip()
    return fields


def shapes_text(shapes: list[dict]) -> str:
    return ", ".join((f"{s['name']}: " if s["name"] else "") + "x".join(map(str, s["dims"])) for s in shapes)


def test_reduce_json_carries_every_figure_of_the_text_summary(tmp_path, iree_compile, capsys, monkeypatch):
    src = tmp_path / "model.onnx"
    onnx.save(conv_det_network(blocks=2, tail=2), src)
    report, corpus = tmp_path / "bug.md", tmp_path / "corpus"
    outcomes, reduce_file = [], reducer.cli.reduce_file

    def recording(request):  # the same run's Outcome, to render its text summary beside the JSON
        outcomes.append(reduce_file(request))
        return outcomes[-1]

    monkeypatch.setattr(reducer.cli, "reduce_file", recording)
    pasted = ["iree-compile", *CPU, str(src), "-o", "x.vmfb", "--mlir-print-ir-after-all"]
    args = [str(src), "--oracle=compile-error", "-j", "2", "-q", "--json", "--report", str(report),
            "--save-to-corpus", "det-json", "--corpus-dir", str(corpus), "--", *pasted]
    assert reduce_main(args) == 0

    printed = capsys.readouterr().out
    record = json.loads(printed)  # stdout is the JSON object alone
    text = summary(outcomes[0]) + f"\n  corpus        {corpus / 'det-json'}\n  report        {report}"
    fields = text_fields(text)
    assert record["status"] == "reduced" and text.splitlines()[0].endswith(": reduced")
    assert f"reduce: {record['oracle']} on {record['input']}" in text.splitlines()[0]
    handled = set()

    def check(label: str, ok: bool) -> None:
        handled.add(label)
        assert ok, (label, fields[label], record)

    before, after = record["original"], record["reduced"]
    unit = record["unit"]
    check(unit, fields[unit] == f"{before['size']} -> {after['size']}")
    check("bytes", fields["bytes"] == f"{before['bytes']} -> {after['bytes']}")
    check("flags", fields["flags"] == f"{before['flag_count']} -> {after['flag_count']}"
          and len(before["flags"]) == before["flag_count"] and len(after["flags"]) == after["flag_count"])
    check("not flags", fields["not flags"] == f"{' '.join(record['dropped_flags'])} (dropped from the pasted command)")
    check("shapes", fields["shapes"] == f"{shapes_text(before['shapes'])} -> {shapes_text(after['shapes'])}")
    calls = re.match(r"(\d+) \(cache hits (\d+)(?:, \d+ from earlier runs)?(?:; (\d+) more ruled out)?", fields["oracle calls"])
    check("oracle calls", calls and (int(calls[1]), int(calls[2]), int(calls[3] or 0))
          == (record["oracle_calls"], record["cache_hits"], record["ruled_out"]))
    parts = ", ".join(f"{name} {seconds:.1f}" for name, seconds in record["parts"].items())
    check("wall time", fields["wall time"] == f"{record['seconds']:.1f} s with -j {record['jobs']} ({parts})")
    assert abs(sum(record["parts"].values()) - record["seconds"]) < 0.05  # the parts add up to the whole
    check("failure", fields["failure"] == record["failure"])
    check("IREE", fields["IREE"] == record["iree_version"])
    check("wrote", fields["wrote"] == record["files"]["output"])
    check("imported", fields["imported"] == record["files"]["imported"])
    check("reproduce", fields["reproduce"] == record["reproduce"])
    check("corpus", fields["corpus"] == record["files"]["corpus"])
    check("report", fields["report"] == record["files"]["report"])
    found, files = record["culprit"], record["files"]
    check("culprit", fields["culprit"].startswith(f"{found['pass']} (phase {found['phase']}): {found['compiles']} compiles, "
                                                  f"{found['seconds']:.1f} s ({found['find_seconds']:.1f} s to find it, "
                                                  f"{found['reduction_calls']} iree-opt calls"))
    check("pass repro", fields["pass repro"] == f"{files['pass_repro']}: {found['pass_repro_ops']} ops "
                                                f"(the compiler's reproducer: {found['reproducer_ops']})")
    check("pass command", fields["pass command"] == found["command"])
    check("lit test", fields["lit test"] == f"{files['lit_test']} ({found['lit_test_check']})")
    if "localised" in fields:  # localisation kept a candidate (MLIR input)
        check("localised", fields["localised"] == f"{before['size']} -> {record['localised']['size']} {unit} in "
                                                  f"{record['localised']['candidates']} candidates")
    if "symptoms" in fields:  # an IR-phase oracle
        check("symptoms", fields["symptoms"].startswith(f"{len(record['symptoms'])} of "))
    if "shapes near" in fields:  # a shape search stopped within --shrink-threshold of a dim's smallest
        stops = ", ".join(f"{s['dimension']} at {s['size']} ({s['loses_at']} loses it)" for s in record["shape_stops"])
        check("shapes near", fields["shapes near"] == f"{len(record['shape_stops'])} dims stopped short of their smallest, "
                                                      f"no step under {record['shrink_threshold']:.0%} taken "
                                                      f"(--shrink-threshold {record['shrink_threshold']:g}): {stops}")
    assert handled == set(fields), f"text figures with no JSON check: {set(fields) - handled}"

    assert unit == "nodes" and before["size"] > after["size"] >= 1
    assert all(isinstance(d, int) for s in before["shapes"] + after["shapes"] for d in s["dims"])
    assert record["dropped_flags"][0] == "iree-compile" and "--mlir-print-ir-after-all" in record["dropped_flags"]
    assert isinstance(record["seconds"], float)
    for path in record["files"].values():
        assert Path(path).exists(), path


def test_reduce_json_reports_an_error_as_json_too(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    assert reduce_main([str(bad), "--oracle=compile-error", "--json"]) == 1
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["status"] == "error" and record["exit_code"] == 1 and "bad.mlir" in record["error"]
    assert captured.err.startswith("reduce: error: cannot parse")


SHOW_COLUMNS = {
    "index": (0, 3), "class": (5, 19), "seen": (20, 24), "pipelines": (26, 54), "reduced": (55, 77), "known as": (78, 106), "signature": (107, None),
}  # fmt: skip


def test_fuzz_show_json_carries_every_figure_of_the_table(campaign_dir, capsys):
    assert fuzz_main(["show", str(campaign_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert fuzz_main(["show", str(campaign_dir), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)

    rows = [{k: line[a:b].strip() for k, (a, b) in SHOW_COLUMNS.items()} for line in lines[1:-1]]
    assert lines[-1] == f"{record['distinct_findings']} distinct findings, {record['root_causes']} root causes"
    assert record["distinct_findings"] == len(rows) > 0 and 0 < record["root_causes"] <= len(rows)
    assert any(f["reduced"] and f["reduced"]["reduced"] for f in record["findings"]), "the fixture reduces a finding"
    for row, finding in zip(rows, record["findings"], strict=True):
        assert int(row["index"]) == finding["index"]
        assert row["class"] == finding["class"]
        assert int(row["seen"]) == finding["seen"] and isinstance(finding["seen"], int)
        assert ",".join(finding["pipelines"]).startswith(row["pipelines"]) and isinstance(finding["pipelines"], list)
        assert finding["signature"].startswith(row["signature"])
        assert (finding["known_as"] or "-").startswith(row["known as"])
        reduced = finding["reduced"]
        if reduced is None:
            assert row["reduced"] == "-"
            continue
        assert reduced["summary"].startswith(row["reduced"])
        if reduced["reduced"]:  # "1 node, 150 bytes": both numbers typed
            numbers = [int(n) for n in re.findall(r"\d+", reduced["summary"])]
            assert numbers == [reduced["size"], reduced["bytes"]]
            assert reduced["original_size"] >= reduced["size"] and isinstance(reduced["seconds"], float)


def _run_on_a_terminal(args: list[str], seconds: float = 300.0) -> str:
    """Runs a command with its stderr on a pseudo-terminal and returns what the terminal got."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=terminal, stdin=subprocess.DEVNULL, env=env)
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the process closed its end
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    process.wait(timeout=30)
    os.close(controller)
    return seen.decode(errors="replace")


@pytest.fixture
def chain(tmp_path) -> Path:
    src = tmp_path / "model.mlir"
    src.write_text(torch_chain(20, bad_at=11, bad_op="onnx.NoSuchOp"))
    return src


@pytest.mark.nightly  # 20 s; the summary's figures by default: test_reduce_json_carries_every_figure_of_the_text_summary
def test_reduce_shows_a_live_status_line_on_a_terminal_only(chain, iree_compile):
    command = [sys.executable, "-m", "reducer", str(chain), "--oracle=compile-error", "-j", "2", "--no-cache", "--", *CPU]
    on_terminal = _run_on_a_terminal(command)
    # The status line: the step running, calls done / in flight / cache hits, the rate, the best so far.
    status = re.search(r"(\S+) \| calls (\d+) done, (\d+) in flight, (\d+) cache hits \| [\d.]+ calls/min \| best (\d+) ops?, (\d+) bytes", on_terminal)
    assert status, on_terminal[-2000:]
    assert re.search(r"\[\s*[\d.]+s\] original: \d+ ops", on_terminal)  # the lines above it stay

    piped = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    assert "in flight" not in piped.stderr and "\x1b[" not in piped.stderr  # a log: lines only, no escapes
    assert re.search(r"\[\s*[\d.]+s\] original: \d+ ops", piped.stderr)
    quiet = subprocess.run([*command[:4], "-q", *command[4:]], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    assert quiet.stderr == "" and "reduce: compile-error on" in quiet.stdout


def test_fuzz_run_shows_cases_findings_and_coverage_live(tmp_path, iree_compile):
    command = [sys.executable, "-m", "fuzz", "run", "--time", "2m", "--max-cases", "2", "--seed", "7",
               "--out", str(tmp_path / "out"), "-j", "2", "--no-reduce", "--targets", "none"]
    on_terminal = _run_on_a_terminal(command)
    assert re.search(r"cases \d+ \([\d.]+/min\) \| findings: .* \| new root causes \d+ \| coverage: \d/3 pipelines compiled a case", on_terminal), on_terminal[-2000:]


def test_the_printed_wall_time_is_the_commands_and_its_parts_add_up(tmp_path):
    """From the process's start to its exit: the failing-pass step and the files included."""
    import subprocess
    import sys
    import time

    from tests.models import torch_chain
    from tests.test_reduce import CPU

    src = tmp_path / "chain.mlir"
    src.write_text(torch_chain(8, bad_at=5, bad_op="onnx.NoSuchOp"))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "reducer", str(src), "--oracle=compile-error", "--json", "-j", "2", "--", *CPU],
                          capture_output=True, text=True, check=False)
    measured = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-1500:]
    record = json.loads(done.stdout)
    assert abs(measured - record["seconds"]) < 1.0, (measured, record["seconds"], record["parts"])
    assert {"start-up", "original", "passes", "final check", "failing pass"} <= set(record["parts"])
    assert abs(sum(record["parts"].values()) - record["seconds"]) < 0.05


def test_the_clock_of_a_command_a_shell_execs_starts_with_python():
    """`bash -c '... && reduce ...'` execs the command in the shell's process: the seconds the
    shell spent before it (an install, say) are not the command's start-up."""
    probe = "import time; from reducer.clock import process_start; print(time.monotonic() - process_start())"
    shell = f"sleep 4 && exec {sys.executable} -c '{probe}'"
    seconds = float(subprocess.run(["bash", "-c", shell], capture_output=True, text=True, check=True, cwd=REPO).stdout)
    assert seconds < 3


def test_lines_logged_from_two_threads_at_once_stay_whole(tmp_path):
    """`-v` logs each verdict from the thread its compile ran on while the main thread logs the
    pass's line; a log line broken in two ('...failed to distribute[ 6.9s] localisation: ...')
    cannot be read or grepped."""
    import io
    import threading

    from reducer.progress import Display

    log = tmp_path / "log"
    stream = io.TextIOWrapper(open(log, "wb", buffering=0), write_through=True)  # as sys.stderr: a write, a syscall
    display = Display(stream=stream)
    texts = [f"oracle: interesting: {'x' * 40}", "localisation: ops 684 -> 4 in 1 candidates"]

    def write(text: str) -> None:
        for _ in range(3000):
            display.line(text)

    threads = [threading.Thread(target=write, args=(text,)) for text in texts]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, as they do while compiles return
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    stream.close()
    lines = log.read_text().splitlines()
    assert len(lines) == 6000
    assert all(re.fullmatch(r"\[\s*[\d.]+s\] (?:" + "|".join(map(re.escape, texts)) + ")", line) for line in lines)
