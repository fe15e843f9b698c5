"""Which ops of a program an IR symptom needs: the dataflow under symptom slicing.

The ops behind each symptom (by their source locations), the backward slice of a set of ops,
rings of producers and consumers, and the state a function works on in place (a global or an
argument it reads, views, updates and writes back), kept whole or not at all. Pure analysis of a
parsed module: the search over the slices it offers is reducer/localize/symptom_slice.py.
"""

from __future__ import annotations

from collections.abc import Callable

from iree.compiler import ir

from oracles.compiling.symptoms import Symptom
from oracles.mlir import ir as irx
from oracles.mlir.locations import SourceLoc, location_leaves
from reducer.localize.function_slice import FunctionGraph, location_key

# Rings of producers around the symptoms' ops (inputs beyond them become arguments), tried first.
PRODUCER_RINGS = (0, 1, 2, 4, 8, 16, 32)
# Rings of consumers added to the backward slice when it alone loses a symptom.
CONSUMER_RINGS = (1, 2, 4)

class ProgramSlices:
    """Every function's graph, and where each symptom's source ops are."""

    def __init__(self, module: ir.Module, own: set[str]) -> None:
        self.own = own
        self.graphs: dict[int, FunctionGraph] = {}
        self.names: dict[int, str] = {}
        for number, func in enumerate(irx.functions(module)):
            ops = irx.straight_line_ops(func) if func.parent.name == "builtin.module" else None
            if ops is None:
                continue
            self.graphs[number] = FunctionGraph(number, irx.entry_block(func), ops)
            self.names[number] = irx.symbol_name(func)
        self._writes = {number: _state_writes(graph) for number, graph in self.graphs.items()}
        self._reach = {number: _state_reach(graph, self._writes[number]) for number, graph in self.graphs.items()}
        # Source location -> (function, top-level op) holding an op there: read once, looked up per symptom.
        self._where: dict[tuple[str, int, int], set[tuple[int, int]]] = {}
        for number, graph in self.graphs.items():
            for i, op in enumerate(graph.ops):
                for nested in [op, *irx.walk_ops(op)]:
                    for loc in location_leaves(str(nested.location)):
                        self._where.setdefault(location_key(loc, own), set()).add((number, i))

    def ops_of(self, symptom: Symptom) -> dict[int, set[int]]:
        """The top-level ops behind `symptom`, by function (its own function first, else any)."""
        found: dict[int, set[int]] = {}
        for loc in map(SourceLoc.parse, symptom.locations):
            for number, i in self._where.get(location_key(loc, self.own), ()) if loc is not None else ():
                found.setdefault(number, set()).add(i)
        own_function = {n: ops for n, ops in found.items() if self.names[n] == symptom.function}
        return own_function or found

    def cheapest(self, alternatives: list[list[int]], symptoms: list[Symptom]) -> list[int] | None:
        """The alternative whose symptoms' ops have the smallest backward slice."""
        best, best_size = None, None
        for alternative in alternatives:
            size = 0
            for i in alternative:
                located = self.ops_of(symptoms[i])
                if not located:
                    size = None
                    break
                size += sum(len(self.backward(n, ops)) for n, ops in located.items())
            if size is not None and (best_size is None or size < best_size):
                best, best_size = alternative, size
        return best

    def closure(self, function: int, keep: set[int]) -> set[int]:
        """`keep` with the constants it reads and the producers of every value it reads that is not
        a tensor (a torch list, int or bool, an index): only tensors can become arguments."""
        graph = self.graphs[function]
        result, stack = set(keep), list(keep)
        while stack:
            i = stack.pop()
            for j in graph.producers[i]:
                if j not in result and (graph.constant[j] or not all(map(is_tensor, graph.ops[j].results))):
                    result.add(j)
                    stack.append(j)
        return result

    def with_writes(self, function: int, keep: set[int], readers: bool = False) -> set[int]:
        """`keep` with the state it works on whole: for each mutable global or argument written in
        place whose value reaches a kept op, every op on the way from its read to the kept ops,
        its writes (stores, `torch.overwrite.tensor.contents`) and the way to them, and with
        `readers` the ops that read it on the way. A cache update cut off from its read, its write
        back or its readers is another program."""
        graph, writes, reach = self.graphs[function], self._writes[function], self._reach[function]
        keep = set(keep)
        while True:
            states = set().union(*(reach[i] for i in keep)) if keep else set()
            added = {w for state in states for w in writes[state]} - keep
            stack = list(keep | added)
            while stack:  # back along the state's own values, to its read
                for j in graph.producers[stack.pop()]:
                    if j not in keep and j not in added and reach[j] & states:
                        added.add(j)
                        stack.append(j)
            # and whatever reads the state on the way (a gather of the updated cache): a value
            # read after its write back is what makes the copy
            if readers:
                added |= {u for j in keep | added if reach[j] & states for u in graph.users[j]} - keep
            if not added:
                return keep
            keep |= added

    def backward(self, function: int, seeds: set[int]) -> set[int]:
        """`seeds` and everything they read, transitively, with the writes of the state they read
        (the stores of a global they load, the in-place writes of an argument they read)."""
        graph, writes = self.graphs[function], self._writes[function]
        keep: set[int] = set()
        stack = list(seeds)
        while stack:
            i = stack.pop()
            if i in keep:
                continue
            keep.add(i)
            stack.extend(graph.producers[i] - keep)
            for state in _state_read(graph, i):
                stack.extend(writes.get(state, set()) - keep)
        return keep

    def shapes(self, seeds: dict[int, set[int]]) -> list[dict[int, frozenset[int]]]:
        """Keep-sets per function, roughly smallest first: producer rings, the backward slice,
        the slice with consumer rings, the whole functions."""
        shapes: list[dict[int, frozenset[int]]] = []

        def each(grow: Callable[[FunctionGraph, int, set[int]], set[int]]) -> dict[int, frozenset[int]]:
            return {n: frozenset(self.closure(n, grow(self.graphs[n], n, ops))) for n, ops in seeds.items()}

        for rings in PRODUCER_RINGS:
            shapes.append(each(lambda g, n, ops, r=rings: producers(g, ops, r)))
            shapes.append(each(lambda g, n, ops, r=rings: consumers(g, producers(g, ops, r), 1)))
            for readers in (False, True):
                shapes.append(each(lambda g, n, ops, r=rings, rd=readers: self.with_writes(n, producers(g, ops, r), rd)))
                shapes.append(each(lambda g, n, ops, r=rings, rd=readers:
                                   self.with_writes(n, consumers(g, producers(g, ops, r), 1), rd)))
        shapes.append(each(lambda g, n, ops: self.backward(n, ops)))
        for rings in CONSUMER_RINGS:
            shapes.append(each(lambda g, n, ops, r=rings: self.backward(n, consumers(g, ops, r))))
        shapes.append({n: frozenset(range(self.graphs[n].size)) for n in seeds})
        return shapes


# Candidates closer in size than this factor to the one before are not worth a compile of their own.
def is_tensor(value: ir.Value) -> bool:
    """A builtin or torch value tensor: what may cross a cut as an argument or a result."""
    spelled = str(value.type)
    return spelled.startswith(("tensor<", "!torch.vtensor<"))


def producers(graph: FunctionGraph, seeds: set[int], rings: int) -> set[int]:
    keep = set(seeds)
    for _ in range(rings):
        keep |= {j for i in keep for j in graph.producers[i]}
    return keep


def consumers(graph: FunctionGraph, seeds: set[int], rings: int) -> set[int]:
    keep = set(seeds)
    for _ in range(rings):
        keep |= {j for i in keep for j in graph.users[i]}
    return keep


def _state_read(graph: FunctionGraph, i: int) -> list[str]:
    """The state op `i` reads: globals it loads (`global:NAME`), arguments it reads (`arg:N`)."""
    op = graph.ops[i]
    state = []
    if "global" in op.attributes and not op.name.endswith(".store"):
        state.append(f"global:{op.attributes['global']}")
    for value in op.operands:
        if isinstance(value.owner, ir.Block) and value.owner == graph.entry:
            state.append(f"arg:{ir.BlockArgument(value).arg_number}")
    return state


def _state_reach(graph: FunctionGraph, writes: dict[str, set[int]]) -> list[frozenset[str]]:
    """Per op, the state written in place (keys of `writes`) whose own value it yields: a view,
    slice, `index_put` or insert of it, followed through the operand an op updates or views (the
    first; an insert's destination; every part of a concat), not through what is computed from it."""
    reach: list[frozenset[str]] = []
    for i, op in enumerate(graph.ops):  # producers come first in a single block
        mine = {state for state in _state_read(graph, i) if state in writes}
        for value in _carried(op):
            owner = value.owner
            j = graph.index.get(owner.operation) if not isinstance(owner, ir.Block) else None
            if j is not None and j < i:
                mine |= reach[j]
        reach.append(frozenset(mine))
    return reach


def _carried(op: ir.Operation) -> list[ir.Value]:
    """The operands whose storage `op`'s result is (or updates): its first; an insert's destination;
    every part of a concat."""
    operands = list(op.operands)
    if not operands:
        return []
    if op.name.endswith("insert_slice") and len(operands) > 1:
        return operands[:2]
    if op.name.endswith("concat"):
        return operands
    return operands[:1]


def _state_writes(graph: FunctionGraph) -> dict[str, set[int]]:
    """Ops that write state in place: global stores, and result-less ops that take an argument
    (`torch.overwrite.tensor.contents` of a cache argument)."""
    writes: dict[str, set[int]] = {}
    for i, op in enumerate(graph.ops):
        if "global" in op.attributes and op.name.endswith(".store"):
            writes.setdefault(f"global:{op.attributes['global']}", set()).add(i)
        elif not len(op.results):
            for value in op.operands:
                if isinstance(value.owner, ir.Block) and value.owner == graph.entry:
                    writes.setdefault(f"arg:{ir.BlockArgument(value).arg_number}", set()).add(i)
    return writes
