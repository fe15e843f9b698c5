"""Localisation for IR symptoms: the smallest slice of the program that still shows them.

An IR-phase oracle (transient-copy, readwrite-constant, dispatch-count) reads the IR at a phase.
One compile of the original to that phase with debug locations (`Oracle.locate`) names, for
each symptom, the source ops behind it: the op a copy or a `*_slow_memcpy` dispatch was made
from (the `tensor.insert_slice`, concat, strided slice, `index_put` or view of a cache), the ops
fused into an offending dispatch. A symptom is kept by keeping those ops; which symptoms must be
kept is a list of requirements, each met by any one of its alternatives:

- transient-copy, readwrite-constant: one symptom of each kind the original shows (a reduction
  keeps every kind, not every instance), or of the kind `--keep` names;
- dispatch-count `--threshold N`: N dispatches in a row of one function.

Each requirement takes the alternative whose backward slice is smallest (the first transformer
layer's, not the last's). The candidates then grow from those ops: rings of producers (every
other input a new function argument; only tensors cross a cut), alone, with a ring of
consumers, and with the state they work on kept whole (a cache global or argument written in
place: its read, views, updates and write back, with or without the ops that read it on the
way); then the backward slice of their operands (the stores of the globals they load and the
in-place writes of the arguments they read kept with it), that slice with rings of consumers,
and the whole functions. Each keeps only the functions that hold the chosen symptoms (with what
they call), returns the values its kept ops end in, and drops unused private symbols (globals
and parameters included). They are judged smallest first, sizes at least 15% apart, and the
first that still shows the symptoms is the start: widened only while a symptom is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from oracles import Verdict
from oracles.compiling.symptoms import METRIC, Symptom, decode, numbered, shows
from oracles.mlir import ir as irx
from oracles.mlir.locations import PARSED_BUFFER, SourceLoc
from reducer.localize.function_slice import (
    Localization,
    restrict_function,
)
from reducer.localize.program_slices import ProgramSlices, is_tensor
from reducer.proposal import Proposal
from reducer.search.editor import EditSession
from reducer.search.problem import ReductionProblem

# One symptom to keep: its alternatives, each a list of symptom indices kept together.
Requirement = list[list[int]]


@dataclass
class SliceLog:
    """What the slicing edit saw: for the log line and the summary."""

    chosen: list[int]  # the symptoms whose ops seed the slice (indices into the original's list)
    sizes: list[int]  # ops of each candidate, in the order they are judged


def slice_to_symptoms(problem: ReductionProblem, located, result: Localization, source_name: str = "") -> Localization | None:
    """The first candidate that keeps the original's symptoms, from the smallest slice up; None
    when the oracle names no symptoms (other localisation applies)."""
    symptoms = decode(located.metrics.get(METRIC))
    if not symptoms:
        return None
    log, original = problem.log, problem.original
    oracle = problem.oracle
    own = {f"input{original.candidate.suffix}", PARSED_BUFFER}
    result.symptoms = numbered([_named(s, own, source_name) for s in symptoms])
    if getattr(oracle, "has_symptoms", False):
        log(f"symptoms of the original ({len(symptoms)}, {len({s.kind for s in symptoms})} kinds; --keep N keeps one):")
        for line in result.symptoms:
            log(f"  {line}")
    requirements = _requirements(oracle, symptoms)
    if not requirements:
        log("localisation: no symptom names a source op; full reduction")
        return result
    if getattr(oracle, "has_symptoms", False):
        return _grow(problem, symptoms, requirements, own, result)
    sliced = problem.edit(_slices, original, symptoms, requirements, own, fallback=([], SliceLog([], [])))
    proposals, seen = sliced
    if not proposals:
        log("localisation: the symptoms' source ops were not found in the input; full reduction")
        return result
    chosen = "; ".join(f"{i + 1}. {symptoms[i].kind}" for i in seen.chosen)
    log(f"localisation: slicing from {chosen}: candidates of {', '.join(map(str, seen.sizes))} ops")

    def counted():
        for proposal in proposals:
            result.tried += 1
            yield proposal

    result.start = problem.first_interesting(counted())
    if result.start is not None:
        log(f"localisation: ops {original.ops} -> {result.start.ops} in {result.tried} candidates")
    else:
        log(f"localisation: none of {result.tried} candidates kept the symptoms; full reduction")
    return result


def _grow(problem: ReductionProblem, symptoms: list[Symptom], requirements: list[Requirement], own: set[str],
          result: Localization) -> Localization:
    """Each requirement (a kind to keep) grows its own slice, only while the union loses its kind.

    One compile says which kinds a candidate shows, so a kind that needs the whole cache chain
    does not drag every other kind's slice up to that size: the prefill's external -> external
    write back stays a handful of ops while the decode's copies need their reader and write back.
    With -j 2 and more, the next candidate (the kinds lost last time grown again, as they
    usually are) is judged beside the current one.
    """
    log, original = problem.log, problem.original
    ladders, chosen = problem.edit(_ladders, original, symptoms, requirements, own, fallback=([], []))
    if not ladders:
        log("localisation: the symptoms' source ops were not found in the input; full reduction")
        return result
    log(f"localisation: slicing from {'; '.join(f'{i + 1}. {symptoms[i].kind}' for i in chosen)}: "
        f"one slice each ({', '.join(str(len(ladder)) for ladder in ladders)} sizes, smallest first)")
    kept = [symptoms[i] for i in chosen]
    judged: dict[tuple, tuple[Proposal | None, Verdict | None]] = {}

    def union(level: list[int]) -> tuple[tuple, dict[int, frozenset[int]]] | None:
        if any(step >= len(ladder) for step, ladder in zip(level, ladders)):
            return None
        keeps = _union(ladder[step] for step, ladder in zip(level, ladders))
        return tuple(sorted((f, tuple(sorted(k))) for f, k in keeps.items())), keeps

    def grown(level: list[int], lost: list[int]) -> list[int]:
        return [step + (r in lost) for r, step in enumerate(level)]

    level, last_lost = [0] * len(ladders), []
    while (current := union(level)) is not None:
        if current[0] not in judged:
            batch = [current]
            ahead = union(grown(level, last_lost)) if last_lost and problem.jobs > 1 else None
            if ahead is not None and ahead[0] not in judged and ahead[0] != current[0]:
                batch.append(ahead)
            proposals = [problem.edit(_restricted_edit, original, keeps, fallback=None) for _, keeps in batch]
            valid = [p for p in proposals if p is not None]
            verdicts = iter(problem.verdicts(valid))
            result.tried += len(valid)
            for (key, _), proposal in zip(batch, proposals):
                judged[key] = (proposal, next(verdicts) if proposal is not None else None)
        proposal, verdict = judged[current[0]]
        if proposal is None:
            break  # as large as the original, or it does not verify: nothing smaller to try
        if verdict.interesting:
            result.start = proposal
            log(f"localisation: ops {original.ops} -> {proposal.ops} in {result.tried} candidates")
            return result
        shown = decode(verdict.metrics.get(METRIC))
        # What no compile names (a transient allocation alone, a failed compile) grows everything.
        lost = [r for r, symptom in enumerate(kept) if not _shows_kind(shown, symptom, problem.oracle)] or list(range(len(kept)))
        log(f"localisation: {proposal.ops} ops lose {'; '.join(kept[r].kind for r in lost)}")
        level, last_lost = grown(level, lost), lost
    log(f"localisation: none of {result.tried} candidates kept the symptoms; full reduction")
    return result


def _shows_kind(shown: list[Symptom], symptom: Symptom, oracle) -> bool:
    """Whether a candidate's symptoms still hold the kind `symptom` stands for (--keep's, in its function)."""
    kept = getattr(oracle, "kept", None)
    return shows(shown, kept) if kept is not None else any(s.kind == symptom.kind for s in shown)


def _union(keeps) -> dict[int, frozenset[int]]:
    union: dict[int, set[int]] = {}
    for keep in keeps:
        for function, ops in keep.items():
            union.setdefault(function, set()).update(ops)
    return {function: frozenset(ops) for function, ops in union.items()}


def _ladders(session: EditSession, original: Proposal, symptoms: list[Symptom], requirements: list[Requirement],
             own: set[str]) -> tuple[list[list[dict[int, frozenset[int]]]], list[int]]:
    """Per requirement, its cheapest alternative's keep-sets, smallest first, sizes SIZE_STEP apart
    (an edit: it runs where a crash is only a verdict)."""
    ctx = session.ctx
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(original.candidate.text, ctx)  # alive as long as the graphs' ops are used
        program = ProgramSlices(module, own)
        ladders, chosen = [], []
        for alternatives in requirements:
            best = program.cheapest(alternatives, symptoms)
            if best is None:
                return [], []
            seeds: dict[int, set[int]] = {}
            for i in best:
                for function, ops in program.ops_of(symptoms[i]).items():
                    seeds.setdefault(function, set()).update(ops)
            chosen.append(best[0])
            ladders.append(_thinned(program.shapes(seeds)))
    return ladders, chosen


def _thinned(shapes: list[dict[int, frozenset[int]]]) -> list[dict[int, frozenset[int]]]:
    """The keep-sets without repeats, by size, at least SIZE_STEP apart; the largest stays."""
    unique = {tuple(sorted((f, tuple(sorted(k))) for f, k in keep.items())): keep for keep in shapes}
    ordered = sorted(unique.values(), key=lambda keep: sum(map(len, keep.values())))
    kept: list[dict[int, frozenset[int]]] = []
    for keep in ordered:
        size = sum(map(len, keep.values()))
        if not kept or size >= SIZE_STEP * sum(map(len, kept[-1].values())) or keep is ordered[-1]:
            kept.append(keep)
    return kept


def _restricted_edit(session: EditSession, original: Proposal, keeps: dict[int, frozenset[int]]) -> Proposal | None:
    with session.ctx, ir.Location.unknown(session.ctx):
        return _restricted(original.candidate.text, keeps, original, session.ctx)


def _named(symptom: Symptom, own: set[str], source_name: str) -> Symptom:
    """`symptom` with its locations in the input spelled `SOURCE:line:col` (not the scratch copy's path)."""
    spelled = []
    for text in symptom.locations:
        loc = SourceLoc.parse(text)
        mine = loc is not None and Path(loc.file).name in own
        spelled.append(f"{source_name or Path(loc.file).name}:{loc.line}:{loc.col}" if mine else text)
    return replace(symptom, locations=tuple(spelled))


def _requirements(oracle, symptoms: list[Symptom]) -> list[Requirement]:
    """What must stay, as alternatives of symptom indices (only symptoms that name source ops)."""
    seedable = [i for i, s in enumerate(symptoms) if s.seeds and s.locations]
    kept = getattr(oracle, "kept", None)
    if kept is not None:
        alternatives = [[i] for i in seedable if shows([symptoms[i]], kept)]
        return [alternatives] if alternatives else []
    if getattr(oracle, "has_symptoms", False):
        kinds = dict.fromkeys(symptoms[i].kind for i in seedable)
        return [[[i] for i in seedable if symptoms[i].kind == kind] for kind in kinds]
    # A count (dispatch-count): `threshold` dispatches in a row of one function.
    need = max(1, oracle.threshold())
    by_function: dict[str, list[int]] = {}
    for i in seedable:
        by_function.setdefault(symptoms[i].function, []).append(i)
    runs = [run[k : k + need] for run in by_function.values() for k in range(len(run) - need + 1)]
    return [runs] if runs else []


def _slices(session: EditSession, original: Proposal, symptoms: list[Symptom], requirements: list[Requirement],
            own: set[str]) -> tuple[list[Proposal], SliceLog]:
    """The candidates, smallest first (an edit: it runs where a crash is only a verdict)."""
    ctx = session.ctx
    text = original.candidate.text
    with ctx, ir.Location.unknown(ctx):
        module = irx.parse(text, ctx)  # alive as long as the graphs' ops are used
        program = ProgramSlices(module, own)
        seeds: dict[int, set[int]] = {}
        chosen: list[int] = []
        for alternatives in requirements:
            best = program.cheapest(alternatives, symptoms)
            if best is None:
                return [], SliceLog([], [])
            for i in best:
                chosen.append(i)
                for function, ops in program.ops_of(symptoms[i]).items():
                    seeds.setdefault(function, set()).update(ops)
        shapes = program.shapes(seeds)
        proposals, sizes = [], []
        seen: set[tuple] = set()
        for keeps in shapes:
            key = tuple(sorted((f, tuple(sorted(k))) for f, k in keeps.items()))
            if key in seen:
                continue
            seen.add(key)
            proposal = _restricted(text, keeps, original, ctx)
            if proposal is not None:
                proposals.append(proposal)
        proposals.sort(key=lambda p: p.cost)
        proposals = _spread(proposals)
        sizes = [p.ops for p in proposals]
    return proposals, SliceLog(chosen, sizes)


SIZE_STEP = 1.15


def _spread(proposals: list[Proposal]) -> list[Proposal]:
    """The candidates (smallest first) thinned to sizes at least SIZE_STEP apart; the largest stays."""
    kept: list[Proposal] = []
    for proposal in proposals:
        if not kept or proposal.ops >= SIZE_STEP * kept[-1].ops or proposal is proposals[-1]:
            kept.append(proposal)
    return kept


def _restricted(text: str, keeps: dict[int, frozenset[int]], original: Proposal, ctx: ir.Context) -> Proposal | None:
    """The module with only the kept ops of the kept functions; other public functions go, and so
    does every private symbol nothing uses any more. The kept ops' last values (tensors) become
    the results."""
    module = irx.parse(text, ctx)
    functions = irx.functions(module)
    called = irx.called_symbols(module)
    for number, func in enumerate(functions):
        if number in keeps:
            if len(keeps[number]) < len(list(irx.entry_block(func).operations)) - 1:
                restrict_function(func, keeps[number], ctx, returns=is_tensor, ends_only=True)
        elif func.parent.name == "builtin.module" and irx.symbol_name(func) not in called:
            func.erase()
    try:
        PassManager.parse("builtin.module(symbol-dce)", ctx).run(module.operation)
    except ir.MLIRError:
        return None
    if not irx.verifies(module):
        return None
    proposal = Proposal(original.candidate.with_text(irx.to_text(module)), irx.count_ops(module))
    return proposal if proposal.cost < original.cost else None
