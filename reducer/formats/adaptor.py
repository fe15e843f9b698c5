"""What an input format is to a reduction: one object that the session asks instead of branching.

As llvm-reduce's ReducerWorkItem and Shrink Ray's formats, the search knows nothing of a format
and a format knows everything about itself: how a file of it loads and is refused, its unit, its
rows of the one pass table, how its failure is localised, the files written beside its result,
the MLIR the failing-pass step reads, and how its paths are named in messages. Which importer
and oracle judge its candidates is the oracles' side of the same key (`judged_as`,
oracles/registry.py `oracle_for_input`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from oracles import Candidate, Oracle, OracleOptions, Verdict
from oracles.base import renamed
from oracles.formats import Format
from oracles.registry import oracle_for_input
from oracles.toolchain.tools import ToolNotFound, find_tool
from reducer.passes.kinds import InputKind
from reducer.passes.registry import PASSES, PassRow
from reducer.proposal import Proposal
from reducer.user_error import UserError

if TYPE_CHECKING:
    from iree.compiler import ir

    from oracles.numeric.dispatch_test import DispatchTest
    from reducer.localize.function_slice import Localization
    from reducer.passes.onnx.pin_dims import DynamicNeed
    from reducer.search.problem import ReductionProblem


@dataclass(frozen=True)
class Loaded:
    """The original as a proposal, and its kind (which rows of the pass table it runs)."""

    proposal: Proposal
    kind: InputKind


@dataclass(frozen=True)
class Beside:
    """The files written beside a result, and the result as the report shows it."""

    mlir_path: str | None = None  # the MLIR the result imports to (ONNX, .pt2) or its text (bytecode)
    mlir_text: str | None = None
    script_path: str | None = None  # a .pt2's standalone repro script
    input_text: str | None = None  # the result in the report: an ONNX graph as text, a .pt2's script


class InputFormat(ABC):
    """One input format: everything the reduction needs to know about it."""

    name: ClassVar[str]  # as messages say it
    judged_as: ClassVar[Format]  # the format of its candidates, as oracles/ keys it
    suffixes: ClassVar[tuple[str, ...]]  # the file suffixes that select it (reducer/formats/registry.py)
    unit: ClassVar[str] = "ops"  # what its size counts
    kinds: ClassVar[frozenset[InputKind]]  # the pass-table kinds it can be
    tools: ClassVar[tuple[str, ...]] = ("iree-compile",)  # what judging a candidate runs
    editor_preload: ClassVar[tuple[str, ...]] = ()  # modules the edit worker loads while the original compiles
    seeds_every_input: ClassVar[bool] = False  # its inputs carry values even where the oracle runs nothing
    resume_keeps_data: ClassVar[bool] = False  # its best's data goes into the --resume state

    def unavailable(self) -> str | None:
        """Why this Python cannot handle the format (one line with the install command), or None."""
        return None

    def check_tools(self) -> None:
        try:
            for tool in self.tools:
                find_tool(tool)
        except ToolNotFound as err:
            raise UserError(str(err)) from None

    def default_output(self, input_path: Path) -> Path:
        """`bug.reduced.mlir` beside `bug.mlir`."""
        return input_path.with_name(input_path.stem + ".reduced" + input_path.suffix)

    def check_output(self, input_path: Path, output_path: Path) -> None:
        """Refuses an output whose files beside it would overwrite the input or each other."""

    @abstractmethod
    def load(self, path: Path, raw: bytes, flags: tuple[str, ...], ctx: ir.Context, options: OracleOptions) -> Loaded:
        """The user's file as the original (raw is non-empty), read as `options` ask (`torch_import`);
        UserError (one line) when it cannot be."""

    def read_case(self, path: Path, flags: tuple[str, ...]) -> Candidate:
        """A saved repro as a candidate, as it is on disk (a corpus entry)."""
        return Candidate(path.read_text(), flags)

    def pass_rows(self, rows: tuple[PassRow, ...] = PASSES) -> list[PassRow]:
        """Its rows of the pass table, in table order."""
        return [row for row in rows if row.inputs & self.kinds]

    def judging_oracle(self, oracle: Oracle) -> Oracle:
        return oracle_for_input(oracle, self.judged_as)

    def cannot_judge(self, oracle: Oracle, candidate: Candidate) -> str | None:
        """Why the user's oracle cannot judge the original (its own word on a model it does not take), or None."""
        return oracle.cannot_judge(candidate)

    def result_bytes(self, candidate: Candidate) -> bytes | str:
        """What the output file holds for a candidate."""
        return candidate.binary if candidate.binary is not None else candidate.text

    @abstractmethod
    def localise(self, problem: ReductionProblem, source_name: str) -> Localization:
        """The original cut down to what its failure points at (reducer/localize/)."""

    def dynamic_need(self, problem: ReductionProblem, original: Proposal) -> DynamicNeed | None:
        """Which dynamic dims the failure needs dynamic (a format that can pin them), or None."""
        return None

    def named_in_messages(self, verdict: Verdict, candidate: Candidate, output_path: Path) -> Verdict:
        """The verdict with the judge's scratch names replaced by the result's file names."""
        return renamed(verdict, f"input{candidate.suffix}", output_path.name)

    def write_beside(self, best: Proposal, oracle: Oracle, verdict: Verdict, output_path: Path,
                     log: Callable[[str], None]) -> Beside:
        """Writes the files that go beside the result (none for MLIR text)."""
        return Beside()

    def failing_pass_case(self, best: Proposal, oracle: Oracle) -> Candidate | None:
        """The MLIR the failing-pass step reads: the result itself, or the MLIR it imports to (made
        from the result alone: the step runs beside the final check, before the files are written)."""
        return best.candidate

    def mlir_of(self, case: Candidate, oracle: Oracle) -> Candidate | None:
        """The MLIR a saved case compiles (`--culprit-only`); None when it does not import."""
        return case

    def wants_case_test(self, oracle: Oracle, beside: Beside) -> bool:
        """Whether the result gets a test of the whole reduced case (`case_test`)."""
        return False

    def case_test(self, oracle: Oracle, best: Proposal, beside: Beside, output_path: Path,
                  log: Callable[[str], None]) -> DispatchTest | None:
        """A test of the whole reduced case that runs alone, where localisation wrote none."""
        return None
