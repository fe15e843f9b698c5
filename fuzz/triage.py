"""Each new finding, reduced with `reduce` and the oracle that matches its kind, saved with a report.

A finding directory holds the original model (`model.onnx`, or a PyTorch case's `model.pt2`), its
spec (`spec.json`), the reduced repro (`reduced.onnx` or `reduced.pt2`, its imported
`reduced.mlir`, and for a `.pt2` the standalone script `reduced.py`), the command that
reproduces it (`command.txt`) and an issue-ready `report.md`. A PyTorch case's wrong answer is
reduced with `eager-mismatch` (PyTorch eager is its reference) on the inputs that showed it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import onnx

from fuzz.build import build_model, make_inputs
from fuzz.execute import (
    COMPILE_ERROR,
    CRASH,
    DEADLOCK,
    IMPORT_FAILURE,
    LDS_OVERRUN,
    MISMATCH,
    RUN_ERROR,
    RUNTIME,
    TIMEOUT,
    CaseResult,
    Finding,
)
from fuzz.findings import (
    NOT_REDUCED_NAME,
    RECORD_NAME,
    REDUCED_NAME,
    StoredReduction,
    write_record,
)
from fuzz.frontends import TORCH, frontend_of
from fuzz.pipelines import PIPELINES
from fuzz.spec import GraphSpec
from oracles import OracleOptions, OracleSetupError, make_oracle
from oracles.data.binding import UserData
from oracles.data.case_data import write_onnx_test_data
from oracles.inputs.readers import read_sources
from oracles.toolchain.tools import Limits
from reducer.corpus_entries import save_entry
from reducer.formats.registry import format_for
from reducer.progress import ReductionObserver
from reducer.report import Outcome, markdown
from reducer.session import Request, reduce_file
from reducer.user_error import INTERRUPTED, UserError

# The oracle that reproduces each kind of finding.
ORACLE_FOR_KIND = {
    IMPORT_FAILURE: "compile-error",
    COMPILE_ERROR: "compile-error",
    CRASH: "crash",
    TIMEOUT: "timeout",
    DEADLOCK: "timeout",  # the timeout oracle tells a deadlock from a slow compile
    LDS_OVERRUN: "lds-limit",
    MISMATCH: "reference-mismatch",  # the first mismatching pipeline's flags against onnx.reference
    RUN_ERROR: "run-error",  # run at the size it showed at (a dynamic model as it is), on the inputs that showed it
}
# A mismatch where another pipeline got the reference's answer is first reduced as a
# miscompile of the two (no reference needed per candidate), on the inputs that showed it; when
# the two agree on them, or every pipeline was wrong, as a reference mismatch.
MISCOMPILE = "miscompile"
# A wrong answer's inputs, as the ONNX test-data layout, beside the finding's model.
TEST_DATA_NAME = "test_data_set_0"
EAGER_MISMATCH = "eager-mismatch"  # a PyTorch case's wrong answer: against PyTorch eager


@dataclass
class Triage:
    directory: Path
    reduced_size: str  # e.g. "3 nodes, 412 bytes", or why it was not reduced
    result: StoredReduction | None = None  # sizes before and after, seconds: None when not reduced
    outcome: Outcome | None = None  # the whole reduction (calls, devices, its test), when it ran
    request: Request | None = None  # what it was reduced with (oracle, options, flags)


def finding_directory(out: Path, signature: str) -> Path:
    return out / "findings" / hashlib.sha1(signature.encode()).hexdigest()[:12]


def _agreeing_pipeline(case: CaseResult) -> str | None:
    """A pipeline of the case whose outputs matched the reference: a CPU one first (a GPU's wrong
    answer is then judged against the CPU, which every machine runs)."""
    agreeing = [run.pipeline for run in case.runs if run.status == "ok" and run.pipeline in PIPELINES]
    return next((name for name in agreeing if not PIPELINES[name].gpu), next(iter(agreeing), None))


def oracles_for(finding: Finding, case: CaseResult) -> list[tuple[str, str | None]]:
    """(oracle, the pipeline that got it right for a miscompile) to reduce the finding with; the
    first that the original shows is used."""
    if finding.kind == MISMATCH and frontend_of(case.spec_json) == TORCH:
        return [(EAGER_MISMATCH, None)]
    agreeing = _agreeing_pipeline(case) if finding.kind == MISMATCH else None
    if agreeing is not None:
        return [(MISCOMPILE, agreeing), (ORACLE_FOR_KIND[MISMATCH], None)]
    if _fails_when_run(finding):
        return [(ORACLE_FOR_KIND[RUN_ERROR], None)]
    return [(ORACLE_FOR_KIND[finding.kind], None)]


def _fails_when_run(finding: Finding) -> bool:
    return finding.kind == RUN_ERROR or (finding.kind == CRASH and finding.signature.startswith(RUNTIME))  # the module died, not the compiler


def _request_for(
    finding: Finding,
    oracle_name: str,
    agreeing: str | None,
    model_path: Path,
    jobs: int,
    compile_timeout_s: float,
    passes: list | None,
    time_budget_s: float | None,
    observer: ReductionObserver | None = None,
    device: str | None = None,
) -> Request:
    # The first pipeline that showed it; an import failure happens before any: use the CPU one.
    pipeline = PIPELINES.get(finding.pipeline.split(",")[0], PIPELINES["cpu"])
    options = OracleOptions(limits=Limits(timeout_s=compile_timeout_s))
    flags = list(pipeline.flags)
    if finding.kind in (TIMEOUT, DEADLOCK):
        options.hang_seconds = compile_timeout_s
    if finding.match and oracle_name == "compile-error":  # one of several errors of its compile: pin this one
        options.match = finding.match
    if oracle_name == MISCOMPILE:  # the pipelines carry the flags; the user flags stay empty
        options.pipeline_a = list(PIPELINES[agreeing].flags)
        options.pipeline_b, flags = flags, []
        options.device_a, options.device_b = PIPELINES[agreeing].driver, device or pipeline.driver  # a GPU's answer on its GPU
    elif oracle_name in (ORACLE_FOR_KIND[MISMATCH], ORACLE_FOR_KIND[RUN_ERROR], EAGER_MISMATCH):
        options.device = device or pipeline.driver
    oracle = make_oracle(oracle_name, options)
    return Request(
        input_path=model_path,
        oracle=oracle,
        flags=flags,
        output_path=model_path.with_name(Path(REDUCED_NAME).stem + model_path.suffix),
        passes=passes if passes is not None else format_for(model_path.name).pass_rows(),
        time_budget_s=time_budget_s,
        jobs=jobs,
        observer=observer or ReductionObserver(),
        resume=True,  # a reduction a killed campaign left half done goes on from its state
    )


def reduce_finding(
    finding: Finding,
    case: CaseResult,
    out: Path,
    jobs: int = 1,
    compile_timeout_s: float = 120.0,
    passes: list | None = None,
    time_budget_s: float | None = None,
    observer: ReductionObserver | None = None,
    device: str | None = None,
) -> Triage:
    """Saves the finding's model and reduces it; never raises for a finding that does not reduce.
    `device` runs the finding's pipeline elsewhere than on its own driver (bench/gpu_check.py's dry run)."""
    directory = finding_directory(out, finding.signature)
    model_path, data = _save_finding(directory, finding, case)

    def request_for(oracle_name: str, agreeing: str | None) -> Request:
        request = _request_for(finding, oracle_name, agreeing, model_path, jobs, compile_timeout_s, passes, time_budget_s,
                               observer, device)
        # the inputs that showed it, not the oracle's seeded ones
        return request if data is None else dataclasses.replace(request, user_data=data)

    outcome, request, failures = _first_reduction(oracles_for(finding, case), request_for)
    if outcome is None or request is None:
        (directory / NOT_REDUCED_NAME).write_text("\n".join(failures) + "\n")
        return Triage(directory, f"not reduced: {failures[-1]}")
    (directory / NOT_REDUCED_NAME).unlink(missing_ok=True)  # an earlier attempt's
    (directory / "command.txt").write_text(outcome.command + "\n")
    (directory / "report.md").write_text(markdown(outcome))
    if not outcome.complete:  # Ctrl-C: the partial result is written; the campaign stops too
        raise KeyboardInterrupt
    try:
        _save_corpus_entry(directory, finding, case, outcome, request, out)
    except ValueError:  # an entry from an earlier run of this database: keep it
        pass
    size = f"{outcome.best.ops} node{'' if outcome.best.ops == 1 else 's'}, {outcome.best.candidate.size} bytes"
    return Triage(directory, size, _stored_reduction(finding, outcome), outcome, request)


def _save_finding(directory: Path, finding: Finding, case: CaseResult) -> tuple[Path, UserData | None]:
    """(the model's path, the inputs it ran on where the finding needs them) in the finding's
    directory, with its record."""
    directory.mkdir(parents=True, exist_ok=True)
    if frontend_of(case.spec_json) == TORCH:
        return _save_torch_finding(directory, finding, case)
    spec = GraphSpec.from_json(case.spec_json)
    model_path = directory / "model.onnx"
    # A finding at a dynamic size reduces on the dynamic model, run at that size (the data below):
    # made static there, the model may compute right (the bug needs the dim dynamic).
    onnx.save(build_model(spec), model_path)
    ran_on_data = finding.kind == MISMATCH or _fails_when_run(finding)
    data = _write_case_inputs(directory, spec, case.seed, finding) if ran_on_data else None
    _write_record(directory, finding, case)
    return model_path, data


def _write_record(directory: Path, finding: Finding, case: CaseResult) -> None:
    write_record(directory, finding, case)
    extra = (f"size: {finding.size}\n" if finding.size else "") + (f"host CPU: {finding.host_cpu}\n" if finding.host_cpu else "")
    if extra:
        with (directory / RECORD_NAME).open("a") as record:
            record.write(extra)


def _save_torch_finding(directory: Path, finding: Finding, case: CaseResult) -> tuple[Path, UserData | None]:
    """A PyTorch case's program (`model.pt2`) and, where the finding needs them, its inputs."""
    from fuzz.torch_gen.finding import (  # imported late: they load torch
        save_inputs,
        save_program,
    )

    model_path = save_program(directory, case.spec_json)
    data = None
    if finding.kind == MISMATCH or _fails_when_run(finding):
        size = int(finding.size.split("=", 1)[1]) if finding.size else None
        data = read_sources([str(save_inputs(directory, case.spec_json, size))])
    _write_record(directory, finding, case)
    return model_path, data


def _first_reduction(
    choices: list[tuple[str, str | None]], request_for: Callable[[str, str | None], Request]
) -> tuple[Outcome | None, Request | None, list[str]]:
    """(outcome, request) of the first oracle the original shows (None, None when none does), and
    why each one before it could not reduce."""
    failures: list[str] = []
    for oracle_name, agreeing in choices:
        try:
            request = request_for(oracle_name, agreeing)
            return reduce_file(request), request, failures
        except (UserError, OracleSetupError) as err:
            if getattr(err, "exit_code", 1) == INTERRUPTED:
                raise KeyboardInterrupt from None
            failures.append(f"{oracle_name}: {err}")  # e.g. a mismatch the oracle's own seeded inputs do not show
        except Exception as err:  # noqa: BLE001  (a reducer bug costs this finding its reduction, not the campaign)
            failures.append(f"{oracle_name}: the reduction failed: {type(err).__name__}: {' '.join(str(err).split())[:300]}")
    return None, None, failures


def _stored_reduction(finding: Finding, outcome: Outcome) -> StoredReduction:
    return StoredReduction(
        finding.signature,
        outcome.unit,
        outcome.original.ops,
        outcome.original.candidate.size,
        outcome.best.ops,
        outcome.best.candidate.size,
        round(outcome.seconds, 2),
        outcome.oracle,
    )


def _write_case_inputs(directory: Path, spec: GraphSpec, seed: int, finding: Finding) -> UserData:
    """The inputs the case ran on (at the size it showed at) as ONNX test data in the finding's
    directory (`test_data_set_0/input_I.pb`), read back as the reduction's data."""
    size = int(finding.size.split("=", 1)[1]) if finding.size else None
    written = write_onnx_test_data(make_inputs(spec, seed, size), [], directory / "model.onnx")
    target = directory / TEST_DATA_NAME
    if target.exists():
        shutil.rmtree(target)
    written.rename(target)
    shutil.rmtree(written.parent)
    return read_sources([str(target)])


def _save_corpus_entry(directory: Path, finding: Finding, case: CaseResult, outcome, request: Request, out: Path) -> None:
    save_entry(
        out / "corpus",
        f"{finding.kind.replace(' ', '-').lower()}-{directory.name}",
        outcome.best.candidate,
        request.oracle.name,
        request.oracle.options,
        outcome.verdict,
        f"{finding.kind} ({finding.pipeline}{f' at {finding.size}' if finding.size else ''}): {outcome.verdict.detail}"
        + (f" [compiled for the host CPU {finding.host_cpu}]" if finding.host_cpu else ""),
        f"fuzz seed {case.seed}: {case.description}",
        culprit=outcome.culprit,
        dispatch_config=outcome.dispatch_config,
    )

