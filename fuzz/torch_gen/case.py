"""One PyTorch case: drawn until torch.export takes it, imported, compiled through the campaign's
pipelines and targets, run, and judged against PyTorch eager (`fuzz.torch_gen.reference`) and
across pipelines, as an ONNX case is (`fuzz.execute.run_pipelines`)."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from fuzz.execute import (
    IMPORT_FAILURE,
    CaseResult,
    Finding,
    Isolated,
    cpu_seconds,
    run_pipelines,
    timed,
)
from fuzz.pipelines import Pipeline
from fuzz.torch_gen.export import ATTEMPTS, Exported, description, export_case
from fuzz.torch_gen.reference import EagerExpected
from fuzz.torch_gen.spec import FRONTEND, TorchSpec
from oracles.signature import normalise

NO_PROGRAM = f"no program: torch.export rejected {ATTEMPTS} draws in a row"


def mismatch_signature(spec: TorchSpec) -> str:
    """A wrong answer's signature before reduction: the front end and the program's ops (its root
    cause comes from the reduced program, `fuzz.root_cause`)."""
    return f"mismatch: torch: {'+'.join(spec.ops)}" + (" [dynamic]" if spec.dynamic is not None else "")


def run_torch_case(seed: int, probabilities: dict[str, float] | None, pipelines: list[Pipeline], backend: Isolated,
                   gpu_drivers: tuple[str, ...] = ()) -> CaseResult:
    """Everything one PyTorch case does; never raises for what IREE does (that is a finding)."""
    start, cpu_start = time.monotonic(), cpu_seconds()
    made = export_case(seed, probabilities)
    if made is None:
        empty = json.dumps({"frontend": FRONTEND, "features": [], "used": [], "ops": []})
        return timed(CaseResult(seed, empty, NO_PROGRAM, backend=backend.name, redrawn=ATTEMPTS), start, cpu_start)
    return timed(judged_case(made, pipelines, backend, gpu_drivers), start, cpu_start)


def judged_case(made: Exported, pipelines: list[Pipeline], backend: Isolated, gpu_drivers: tuple[str, ...] = ()) -> CaseResult:
    """An exported program through the pipelines: its findings and each pipeline's outcome."""
    result = CaseResult(made.spec.seed, made.spec.to_json(), description(made), backend=backend.name, redrawn=len(made.rejected))
    if made.mlir is None:
        result.findings.append(Finding(IMPORT_FAILURE, "import", "import: " + normalise(made.import_error), made.import_error))
        return result
    with tempfile.TemporaryDirectory(prefix="fuzz-torch-case-") as tmp:
        run_pipelines(result, made.mlir, EagerExpected.of(made), pipelines, backend, gpu_drivers, Path(tmp), mismatch_signature(made.spec))
    return result
