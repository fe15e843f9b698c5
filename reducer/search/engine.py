"""The reduction loop: every registered pass, in order, until a whole round changes nothing."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from iree.compiler import ir

from oracles.mlir import ir as irx
from reducer.passes.base import Proposal, ShrinkPass
from reducer.passes.registry import PassRow, Search
from reducer.search import ddmin
from reducer.search.problem import ReductionProblem

Log = Callable[[str], None]
LINEAR_SCAN_LIMIT = 16


@dataclass
class PassRecord:
    """What one pass achieved over the whole run (for the summary)."""

    successes: int = 0
    ops_removed: int = 0
    bytes_removed: int = 0
    seconds: float = 0.0


@dataclass
class Reduction:
    original: Proposal
    best: Proposal
    rounds: int = 0
    passes: dict[str, PassRecord] = field(default_factory=dict)


class Reducer:
    """Runs passes over a problem's best candidate; every verdict and improvement goes through it."""

    def __init__(
        self,
        problem: ReductionProblem,
        passes: Sequence[PassRow],
        context: ir.Context | None = None,
        on_pass: Callable[[str], None] | None = None,
    ) -> None:
        self.problem = problem
        self.on_pass = on_pass or (lambda _: None)  # told each pass as it starts (the live status line)
        self.passes = list(passes)
        self.ctx = context or irx.new_context()
        # (pass, dimension) -> the size a shrink search last left it at: probed cheaply next time.
        self._settled: dict[tuple[str, str], int] = {}

    def run(self) -> Reduction:
        """Every pass in order until a whole round changes nothing; the problem's best is the result."""
        original = self.problem.best
        result = Reduction(original, original, passes={p.name: PassRecord() for p in self.passes})
        changed = True
        while changed:
            result.rounds += 1
            changed = False
            for reduction in self.passes:
                self.on_pass(f"{reduction.name} (round {result.rounds})")
                start = time.monotonic()
                before = self.problem.best
                self._run_pass(reduction, result.passes[reduction.name])
                result.best = self.problem.best
                record = result.passes[reduction.name]
                record.seconds += time.monotonic() - start
                if result.best is not before:
                    changed = True
                    record.ops_removed += before.ops - result.best.ops
                    record.bytes_removed += before.candidate.size - result.best.candidate.size
        return result

    def _run_pass(self, row: PassRow, record: PassRecord) -> None:
        problem, reduction = self.problem, row.impl

        def count() -> int:
            return reduction.count(problem.best, self.ctx)

        def propose(indices: Sequence[int]) -> Proposal | None:
            proposal = reduction.apply(problem.best, indices, self.ctx)
            # Only strictly smaller candidates: the order is well-founded, so the loop ends.
            return proposal if proposal is not None and proposal.cost < problem.best.cost else None

        def commit(proposal: Proposal) -> None:
            record.successes += 1
            problem.incorporate(proposal, by=row.name)

        if row.search is Search.SHRINK:
            self._shrink(row.name, reduction, commit)
            return
        if row.search is Search.BISECT:
            found = ddmin.bisect(count, propose, problem.judge_all, commit)
            if not found and count() <= LINEAR_SCAN_LIMIT:
                # Few targets left: try each one, so the result is 1-minimal for this pass too.
                ddmin.ddmin(count, propose, problem.judge_all, commit, start_size=1)
        else:
            ddmin.ddmin(count, propose, problem.judge_all, commit)

    def _shrink(self, name: str, reduction: ShrinkPass, commit: Callable[[Proposal], None]) -> None:
        """One dimension at a time, sweeping until a sweep shrinks nothing.

        Dimensions interact (a smaller one can let another shrink further); resolving that here,
        where a size the search settled on before is only re-probed one smaller, is far cheaper
        than another round of every pass. A resize never adds ops and sizes only go down: it ends.
        """
        judge_all = self.problem.judge_all
        if reduction.keeps is not None:
            judge_all = functools.partial(self.problem.judge_all_keeping, keeps=reduction.keeps)
        shrunk = True
        while shrunk:
            shrunk = False
            for key, _ in reduction.dimensions(self.problem.best, self.ctx):
                current = dict(reduction.dimensions(self.problem.best, self.ctx)).get(key)
                if current is None or current <= 1:
                    continue
                base = self.problem.best

                def propose(size: int, key: str = key, base: Proposal = base) -> Proposal | None:
                    proposal = reduction.resize(base, key, size, self.ctx, self.problem.import_onnx)
                    return proposal if proposal is not None and proposal.ops <= base.ops else None

                settled = (name, key)
                recheck = self._settled.get(settled) == current
                if ddmin.shrink_value(current, propose, judge_all, commit, recheck):
                    shrunk = True
                    self._settled[settled] = dict(reduction.dimensions(self.problem.best, self.ctx)).get(key, 0)
                else:
                    self._settled[settled] = current
