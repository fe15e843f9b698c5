"""The reduction loop: every registered pass, in order, until a whole round changes nothing."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from iree.compiler import ir

from reducer import ddmin
from reducer import ir as irx
from reducer.evaluate import Evaluator
from reducer.passes.base import Proposal, ReductionPass

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
    def __init__(
        self,
        evaluator: Evaluator,
        passes: Sequence[ReductionPass],
        on_improvement: Callable[[Proposal], None] | None = None,
        log: Log | None = None,
        context: ir.Context | None = None,
        on_pass: Callable[[str], None] | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.on_pass = on_pass or (lambda _: None)  # told each pass as it starts (progress display)
        self.passes = list(passes)
        self.on_improvement = on_improvement or (lambda _: None)
        self.log = log or (lambda _: None)
        self.ctx = context or irx.new_context()
        # (pass, dimension) -> the size a shrink search last left it at: probed cheaply next time.
        self._settled: dict[tuple[str, str], int] = {}

    def run(self, original: Proposal) -> Reduction:
        result = Reduction(original, original, passes={p.name: PassRecord() for p in self.passes})
        changed = True
        while changed:
            result.rounds += 1
            changed = False
            for reduction in self.passes:
                self.on_pass(f"{reduction.name} (round {result.rounds})")
                start = time.monotonic()
                before = result.best
                result.best = self._run_pass(reduction, result.best, result.passes[reduction.name])
                record = result.passes[reduction.name]
                record.seconds += time.monotonic() - start
                if result.best is not before:
                    changed = True
                    record.ops_removed += before.ops - result.best.ops
                    record.bytes_removed += before.candidate.size - result.best.candidate.size
        return result

    def _run_pass(self, reduction: ReductionPass, current: Proposal, record: PassRecord) -> Proposal:
        state = {"best": current}

        def count() -> int:
            return reduction.count(state["best"], self.ctx)

        def propose(indices: Sequence[int]) -> Proposal | None:
            proposal = reduction.apply(state["best"], indices, self.ctx)
            # Only strictly smaller candidates: the order is well-founded, so the loop ends.
            return proposal if proposal is not None and proposal.cost < state["best"].cost else None

        def commit(proposal: Proposal) -> None:
            old = state["best"]
            state["best"] = proposal
            record.successes += 1
            self.on_improvement(proposal)  # written before it is announced
            self.log(
                f"{reduction.name}: ops {old.ops} -> {proposal.ops}, bytes {old.candidate.size} -> "
                f"{proposal.candidate.size}, flags {len(proposal.candidate.flags)}"
            )

        if reduction.search == "shrink":
            self._shrink(reduction, state, commit)
        elif reduction.search == "bisect":
            found = ddmin.bisect(count, propose, self.evaluator.judge_all, commit)
            if not found and count() <= LINEAR_SCAN_LIMIT:
                # Few targets left: try each one, so the result is 1-minimal for this pass too.
                ddmin.ddmin(count, propose, self.evaluator.judge_all, commit, start_size=1)
        else:
            ddmin.ddmin(count, propose, self.evaluator.judge_all, commit)
        return state["best"]

    def _shrink(self, reduction: ReductionPass, state: dict, commit: Callable[[Proposal], None]) -> None:
        """One dimension at a time, sweeping until a sweep shrinks nothing.

        Dimensions interact (a smaller one can let another shrink further); resolving that here,
        where a size the search settled on before is only re-probed one smaller, is far cheaper
        than another round of every pass. A resize never adds ops and sizes only go down: it ends.
        """
        shrunk = True
        while shrunk:
            shrunk = False
            for key, _ in reduction.dimensions(state["best"], self.ctx):
                current = dict(reduction.dimensions(state["best"], self.ctx)).get(key)
                if current is None or current <= 1:
                    continue
                base = state["best"]

                def propose(size: int, key: str = key, base: Proposal = base) -> Proposal | None:
                    proposal = reduction.resize(base, key, size, self.ctx)
                    return proposal if proposal is not None and proposal.ops <= base.ops else None

                settled = (reduction.name, key)
                recheck = self._settled.get(settled) == current
                if ddmin.shrink_value(current, propose, self.evaluator.judge_all, commit, recheck):
                    shrunk = True
                    self._settled[settled] = dict(reduction.dimensions(state["best"], self.ctx)).get(key, 0)
                else:
                    self._settled[settled] = current
