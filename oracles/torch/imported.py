"""`.pt2` input: any MLIR oracle judges the torch-dialect MLIR a PyTorch program imports to.

A `.pt2` candidate is the archive's bytes (`Candidate.binary`) and carries the MLIR the FX
importer makes of it (`Candidate.text`): the import is a pure function of the archive, made
once where the candidate is made (in the reducer's edit worker, where PyTorch is loaded once and
a crash is a verdict on one edit; reducer/graphs/torch_program.py), not once per oracle call.
`ImportedTorch` hands that MLIR, with the candidate's data keyed by argument position, to the
oracle it wraps; the messages name it `input.mlir`. Nothing here imports torch.
"""

from __future__ import annotations

from pathlib import Path

from oracles import refusals
from oracles.base import ImportingOracle, Oracle, mlir_path_for
from oracles.candidate import Candidate
from oracles.verdict import Verdict


def imported_program(candidate: Candidate) -> Candidate:
    """The MLIR a .pt2 candidate imports to, as an MLIR candidate with its flags and data."""
    return Candidate(candidate.text, candidate.flags, data=candidate.data)


def script_path_for(path: str) -> str:
    """`bug.reduced.pt2` -> `bug.reduced.py`: the standalone repro script beside the result."""
    return str(Path(path).with_suffix(".py"))


class ImportedTorch(ImportingOracle):
    """Judges a `.pt2` candidate by asking `inner` about the MLIR it imports to."""

    def __init__(self, inner: Oracle) -> None:
        super().__init__(inner)
        # What the inner oracle can do with a compile, it does with the imported program's.
        self.warm_ok, self.runs_modules = inner.warm_ok, inner.runs_modules
        self.locates, self.stops_early, self.judges_located = inner.locates, inner.stops_early, inner.judges_located
        self.dispatch_wide = inner.dispatch_wide

    def cannot_judge(self, candidate: Candidate) -> str | None:
        if self.inner.judges_onnx:
            return refusals.ONNX_ORACLE_ON_PT2.say(oracle=self.inner.name)
        return self.inner.cannot_judge(imported_program(candidate))

    def observe(self, candidate: Candidate, workdir: Path) -> Verdict:
        return self.inner.observe(imported_program(candidate), workdir)

    def locate(self, candidate: Candidate, debuginfo: bool = True) -> Verdict:
        return self.inner.locate(imported_program(candidate), debuginfo)

    def values_at(self, candidate: Candidate):
        return self.inner.values_at(imported_program(candidate))

    def calibrated(self, original: Verdict) -> Oracle:
        return self._evolved(reference=original, inner=self.inner.calibrated(original))

    def reproduce_command(self, candidate: Candidate, path: str) -> str:
        """The script that shows the failure from PyTorch, then the inner oracle's command on the
        imported MLIR written beside the result (an MLIR candidate, a dispatch of it: the command alone)."""
        if candidate.binary is None:
            return self.inner.reproduce_command(candidate, path)
        mlir = mlir_path_for(path)
        return f"python {script_path_for(path)}\n{self.inner.reproduce_command(imported_program(candidate), mlir)}"


def torch_oracle(oracle: Oracle) -> Oracle:
    """The oracle that judges `.pt2` candidates: `oracle` on the imported MLIR, or `oracle` itself
    when it judges PyTorch programs directly (it runs them eagerly)."""
    return oracle if oracle.judges_torch else ImportedTorch(oracle)
