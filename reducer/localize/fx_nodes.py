"""Failure localisation on a PyTorch program: cut it down to the FX nodes the failure points at.

The located compile of the original (`Oracle.locate`, on the MLIR the program imports to) names
the op at the root of a compile failure and, for a failing dispatch, the ops fused into it;
each op of the imported text came from one FX node (oracles/torch/importer.py, `node_of_line`).
The first candidate is the root node alone, its inputs carrying what the original computes
there (not where the failure is a whole dispatch's, `Oracle.dispatch_wide`); then the root with
the fused nodes; then rings of producers and consumers around them
(as `localize` widens MLIR ops). The first that keeps the failure is where the passes start.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from oracles.mlir.locations import PARSED_BUFFER, FailureSite
from reducer.localize.failure_site import counted, seeds
from reducer.localize.function_slice import Localization, location_key
from reducer.proposal import Proposal
from reducer.search.editor import EditSession
from reducer.search.problem import ReductionProblem

if TYPE_CHECKING:  # torch loads only where a .pt2 is edited
    from reducer.graphs.torch_program import Editable

OWN_FILES = {"input.mlir", PARSED_BUFFER}  # how the located compile names the imported text


def localize_fx(problem: ReductionProblem) -> Localization:
    """Locates the failure (one compile, none when calibration located it) and tries the cut-down programs."""
    original, log = problem.original, problem.log
    if not problem.oracle.locates:
        return Localization(None)
    located = problem.located or problem.locate(original.candidate)
    site = located.site
    result = Localization(site)
    if not located.interesting or site is None:
        log("localisation: the located compile did not show the failure; skipped")
        return result
    if site.phase not in ("", "end") and problem.oracle.stops_early and problem.stop_early(site.phase, checked=False):
        result.stop_phase = site.phase
        log(f"compiles stop at --compile-to={site.phase}, where the original already fails")
    kept = problem.edit(cut_down_seeds, original, site, problem.oracle.dispatch_wide, fallback=[])
    result.start = problem.first_interesting(counted(_cut_downs(problem, original, kept), result), ahead=1)
    if result.start is not None:
        problem.stop_confirmed()
        log(f"localisation: nodes {original.ops} -> {result.start.ops} in {result.tried} candidates")
    else:
        if result.stop_phase is not None and not problem.confirm_stop():
            result.stop_phase = None
        log(f"localisation: none of {result.tried} candidates kept the failure; full reduction" if result.tried
            else "localisation: the failure names no node of the program; full reduction")
    return result


def _cut_downs(problem: ReductionProblem, original: Proposal, seeds: list[frozenset[str]]) -> Iterator[Proposal]:
    """Each seed's cut-down program, smallest first, made only when the search asks for it; one
    that cannot be made or that the exporter or importer rejects (the problem counts it) is left out."""
    for keep in seeds:
        proposal = problem.edit(cut_down_edit, original, keep, fallback=None)
        if proposal is not None:
            yield proposal


def cut_down_seeds(session: EditSession, original: Proposal, site: FailureSite, dispatch_wide: bool = False) -> list[frozenset[str]]:
    """The node sets to keep, smallest first (`seeds`: the failing nodes, with the fused ones, then
    rings around them), run by the problem's editor, where a crash or a rejected import is a verdict."""
    from oracles.torch.importer import import_module, node_of_line
    from oracles.torch.program import loaded
    from reducer.graphs import torch_program

    candidate = original.candidate
    imported = import_module(loaded(candidate.binary))
    if imported.text != candidate.text:
        return []  # the lines would name other ops
    lines = node_of_line(imported)
    root = {lines[key[1]] for key in (location_key(loc, OWN_FILES) for loc in site.locations) if not key[0] and key[1] in lines}
    fused = {lines[key[1]] for key in (location_key(loc, OWN_FILES) for loc in site.fused) if not key[0] and key[1] in lines}
    if not root:
        return []
    ed = torch_program.editable_of(candidate.binary, candidate.data)
    names = {n.name for n in ed.cuttable_ops()}
    found: list[frozenset[str]] = []
    for seed, ring in seeds(root, root | fused, dispatch_wide):
        keep = frozenset(_widened(ed, seed, ring)) & names
        if keep and keep not in found and len(keep) < len(names):
            found.append(keep)
    return found


def cut_down_edit(session: EditSession, original: Proposal, keep: frozenset[str]) -> Proposal | None:
    """The original with only the nodes `keep` (None when it cannot be cut so, or is no smaller);
    the exporter's or importer's rejection goes to the problem, which counts it."""
    from reducer.graphs import torch_program
    from reducer.passes.support.fx_edit import fx_proposal, parent_values

    candidate = original.candidate
    copy = torch_program.editable_of(candidate.binary, candidate.data)
    try:
        torch_program.keep_only(copy, set(keep), parent_values(original))
        proposal = fx_proposal(original, copy)
    except torch_program.Invalid:  # no candidate (as in a pass's apply); a tool's rejection goes to the problem
        return None
    return proposal if proposal is not None and proposal.cost < original.cost else None


def _widened(ed: Editable, seed: set[str], rings: int) -> set[str]:
    """`seed` and the ops within `rings` steps of it (producers and consumers; a multi-output op's
    getitems are no step: they go with it)."""
    from reducer.graphs.torch_program import is_selection

    by_name = {n.name: n for n in ed.cuttable_ops()}
    kept = set(seed)
    for _ in range(rings):
        grown = set(kept)
        for name in kept:
            node = by_name.get(name)
            if node is None:
                continue
            producers = [p.args[0] if is_selection(p) else p for p in node.all_input_nodes]
            consumers = [c for u in node.users for c in (u.users if is_selection(u) else [u])]
            grown |= {n.name for n in [*producers, *consumers] if n.name in by_name}
        kept = grown
    return kept
