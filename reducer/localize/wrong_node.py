"""Wrong-answer localisation for an ONNX model judged against onnx.reference: the node that computes a wrong value.

torch-onnx IR judged by `reference-mismatch` is localised the same way: the program is traced as
it is, and the reference values come from the graph it lifts to (oracles/onnx/lift.py), whose
nodes are its ops in order; its culprit is then cut out as MLIR (reducer/localize/wrong_value.py).

The imported model is compiled with dispatch tracing and run once on the oracle's inputs (one
IREE run, the fusion the user has), and onnx.reference computes every tensor once on the same
inputs (one reference run). A dispatch's source ops name, through their lines in the imported
program, the ONNX nodes it computes (`iree-import-onnx` writes one `torch.operator "onnx.X"` per
node, in graph order): its root op's node and the located nodes downstream of it. Each dispatch output is compared with the reference values of its nodes
whose outputs have that many elements and that kind of element: it agrees when it is one of them
(a dispatch can end before its last node), else it differs from the nearest; beside an output
that agrees, one that is no node's value is a step inside a node spanning dispatches and is not
judged; an executable the compiler runs more than once (deduplicated, for identical nodes) is
compared with each of them. The culprit is the first
dispatch (in execution order) whose output differs while no node it depends on was seen to
differ: a Relu that hides part of the error later, or a side branch, does not move it.

The culprit's nodes, cut out of the model with every other tensor they read a graph input that
carries the reference's value there, are the first candidate, and the dispatch-level test
(oracles/numeric/dispatch_test.py) runs that cut model's program alone against onnx.reference's
outputs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from oracles.candidate import Candidate
from oracles.data.arrays import entry_function
from oracles.data.carried import INPUT, pack
from oracles.mlir import ir as irx
from oracles.mlir.locations import location_leaves
from oracles.numeric.compare import compare_outputs
from oracles.numeric.dispatch_test import DispatchTest, write_dispatch_test
from oracles.numeric.dispatch_trace import (
    TracedDispatch,
    WrongDispatch,
    trace_run,
    wrong_the_original_way,
)
from oracles.numeric.reference_mismatch import model_inputs, program_reference_inputs
from oracles.onnx.importer import import_model
from oracles.toolchain.tools import scratch_dir
from reducer.graphs import onnx_model
from reducer.proposal import Proposal

ORACLES = ("reference-mismatch",)


@dataclass
class WrongNode:
    """The culprit dispatch and the ONNX nodes it computes (graph order)."""

    dispatch: WrongDispatch
    nodes: list[int]
    matched: str  # the tensor whose reference value its output was compared with
    root: int | None = None  # the node on the dispatch's first (root) source line


def node_lines(text: str, model: onnx.ModelProto) -> dict[int, int]:
    """Line of each `torch.operator "onnx.X"` in the imported program -> its node's index: the
    k-th op of a type is the k-th node of that type (Constant nodes, which initializers also
    import as, are left out)."""
    queues: dict[str, list[int]] = {}
    for index, node in enumerate(model.graph.node):
        if node.op_type != "Constant":
            queues.setdefault(node.op_type, []).append(index)
    found: dict[int, int] = {}
    ctx = irx.new_context(lenient=True)
    with ctx:
        module = irx.parse(text, ctx)
        for op in irx.body_ops(module):
            op_type = irx.onnx_op_type(op)
            if op_type is None:
                continue
            leaves = location_leaves(str(op.location))
            if queues.get(op_type) and leaves:
                found[leaves[0].line] = queues[op_type].pop(0)
    return found


def trace_wrong_node(oracle, candidate: Candidate, kind: str | None = None) -> WrongNode | str:
    """One traced IREE run and one reference run of the model; the culprit (wrong the `kind`
    way, the original's headline, where two are), or why none. torch-onnx IR is traced as it is,
    against the graph it lifts to (its ops are that graph's nodes, in order)."""
    from oracles.onnx import reference  # imported late: onnx.reference is slow to load (every `reduce` start paid it)

    try:
        if candidate.binary is None:
            model, inputs, _ = program_reference_inputs(candidate, oracle.options.seed)
        else:
            model = onnx.load_from_string(candidate.binary)
            inputs = model_inputs(model, candidate.data, oracle.options.seed)
        values = {**inputs, **reference.intermediate_values(model, inputs)}
    except Exception as err:  # noqa: BLE001  (onnx.reference raises anything for a graph it cannot run)
        return f"onnx.reference cannot compute the model's tensors: {' '.join(str(err).split())[:200]}"
    with scratch_dir() as tmp:
        if candidate.binary is None:
            text = candidate.text
        else:
            text, _ = import_model(candidate.binary, Path(tmp) / "import", oracle.options.limits, oracle.options.opset_version)
            if text is None:
                return "the model does not import"
        try:
            function, _, results = entry_function(text, dynamic=True)
        except ValueError as err:
            return f"cannot run the imported model: {err}"
        run_dir = Path(tmp) / "run"
        run_dir.mkdir()
        program = Candidate(text, candidate.flags)
        traced = trace_run(program, oracle.compile_flags(candidate.flags), function, list(inputs.values()), run_dir,
                           oracle.options.limits, results, device=oracle.run_device(candidate.flags))
    if isinstance(traced, str):
        return traced
    return first_wrong_node(traced, model, node_lines(text, model), values, kind)


def first_wrong_node(traced: list[TracedDispatch], model: onnx.ModelProto, lines: dict[int, int],
                     values: dict[str, np.ndarray], kind: str | None = None) -> WrongNode | str:
    """The first dispatch that differs while no node it depends on does; of two such (two wrong
    ops apart), the first wrong in the original's way (`kind`: its headline)."""
    from oracles.onnx import reference  # imported late: onnx.reference is slow to load (every `reduce` start paid it)

    producers = {out: i for i, node in enumerate(model.graph.node) for out in node.output if out}
    quantized = reference.is_quantized(model)
    length = reference.reduction_length(model)
    twins = _twins(model)
    runs = Counter(dispatch.name for dispatch in traced)
    culprits: list[WrongNode] = []
    differing: set[int] = set()
    observed = 0
    for position, dispatch in enumerate(traced):
        nodes = _computed_by(dispatch, lines, model)
        if not nodes:
            continue
        candidates = list(reversed(nodes))
        if runs[dispatch.name] > 1:
            # The compiler runs one executable for identical dispatches (two 3x3 MaxPools of one
            # shape), whose source locations are one instance's: its twins' values are candidates too.
            candidates += sorted({t for n in nodes for t in twins.get(n, ())} - set(nodes))
        judged = []  # per observed output: None when it agrees with a node's value
        for output in dispatch.outputs:
            names = _matching_tensors(output, candidates, model, values)
            if names:
                judged.append((output, _compared(output, names, values, length, quantized)))
        agreeing = sum(found is None for _, found in judged)
        if agreeing:
            # Outputs beside one that is a node's value, matching no node's: a step inside a node
            # that spans dispatches (an LRN's squares, summed over channels by the next), which
            # onnx.reference has no value for. They are not judged.
            observed += agreeing
            continue
        observed += len(judged)
        for output, (name, expected, comparison) in judged:
            if producers[name] not in nodes:  # a twin's value: the dispatch ran for that node
                nodes = [producers[name]]
            if not _ancestors(nodes, model, producers) & differing:
                culprit = WrongDispatch(position, dispatch.name, dispatch.inputs, [expected], [output], comparison,
                                        len(traced), dispatch.fused)
                root = next((lines[loc.line] for loc in dispatch.fused if loc.line in lines and lines[loc.line] in nodes), nodes[0])
                culprits.append(WrongNode(culprit, nodes, name, root))
                break
        if judged:
            differing.update(nodes)
    if culprits:
        return wrong_the_original_way(culprits, kind, lambda c: c.dispatch.comparison)
    if not observed:
        return "no traced dispatch output matches a tensor of the model"
    return f"all {observed} observed dispatch outputs agree with onnx.reference" if not differing else \
        "every differing dispatch depends on one that already differs"


def _computed_by(dispatch: TracedDispatch, lines: dict[int, int], model: onnx.ModelProto) -> list[int]:
    """The nodes whose values the dispatch may output: its root op's node and the located nodes
    that consume it, transitively (graph order). Other located nodes are not: a constant CSE'd
    across the program, or a producer's op folded in, carries their locations into the dispatch."""
    located = [lines[loc.line] for loc in dispatch.fused if loc.line in lines]
    if not located:
        return []
    if not dispatch.fused or dispatch.fused[0].line not in lines:
        return sorted(set(located))
    root = lines[dispatch.fused[0].line]
    kept, frontier = {root}, [root]
    while frontier:
        outputs = set(model.graph.node[frontier.pop()].output)
        for index in set(located) - kept:
            if outputs & set(model.graph.node[index].input):
                kept.add(index)
                frontier.append(index)
    return sorted(kept)


def _twins(model: onnx.ModelProto) -> dict[int, list[int]]:
    """Nodes of one op type with the same attributes, by node: what one executable may run for."""
    groups: dict[tuple, list[int]] = {}
    for index, node in enumerate(model.graph.node):
        key = (node.op_type, node.domain, tuple(sorted(a.SerializeToString() for a in node.attribute)))
        groups.setdefault(key, []).append(index)
    return {index: group for group in groups.values() if len(group) > 1 for index in group}


def _matching_tensors(output: np.ndarray, nodes: Sequence[int], model: onnx.ModelProto, values: dict) -> list[str]:
    """Outputs of `nodes` (in that order) with the output's element count, kind (float or not)
    and width (an i32 accumulator is no node's uint8 result; IREE's integers are signless)."""
    found = []
    for index in nodes:
        for name in model.graph.node[index].output:
            value = values.get(name)
            if value is None:
                continue
            value = np.asarray(value)
            if value.size == output.size and (value.dtype.kind == "f") == (output.dtype.kind in "fV") \
                    and value.dtype.itemsize == output.dtype.itemsize:
                found.append(name)
    return found


def _compared(output: np.ndarray, names: list[str], values: dict, length: int, quantized: bool):
    """None when the output is one of the tensors `names` (it agrees with that one's reference
    value: a dispatch may end before the last of its nodes, a Conv and Relu fused with an LRN's
    first steps); else the name, reference value and comparison of the nearest (fewest elements
    differing; the latest of equals)."""
    nearest = None
    for name in names:
        expected = np.asarray(values[name]).reshape(output.shape)
        comparison = compare_outputs([expected], [output], reduction_length=length, quantized=quantized)
        if comparison.matches:
            return None
        if nearest is None or comparison.mismatch_fraction < nearest[2].mismatch_fraction:
            nearest = (name, expected, comparison)
    return nearest


def _ancestors(nodes: Sequence[int], model: onnx.ModelProto, producers: dict[str, int]) -> set[int]:
    """Every node the given ones depend on, outside them."""
    inside = set(nodes)
    seen: set[int] = set()
    stack = [i for n in nodes for i in (producers.get(t) for t in model.graph.node[n].input) if i is not None]
    while stack:
        index = stack.pop()
        if index in seen or index in inside:
            continue
        seen.add(index)
        stack += [i for i in (producers.get(t) for t in model.graph.node[index].input) if i is not None]
    return seen


def cut_to_nodes(candidate: Candidate, found: WrongNode, values: dict[str, np.ndarray] | None = None) -> Proposal | None:
    """The culprit's nodes as a model of their own: the tensors they read from outside become
    graph inputs carrying the reference's values (`values`, else recomputed), their matched
    output the graph output."""
    from oracles.onnx import reference  # imported late: onnx.reference is slow to load (every `reduce` start paid it)

    model = onnx.load_from_string(candidate.binary)
    indices, matched = _to_output_kind(model, list(found.nodes), found.matched)
    nodes = [model.graph.node[i] for i in indices]
    produced = {out for node in nodes for out in node.output}
    constant = {t.name for t in model.graph.initializer}
    constant |= {out for node in model.graph.node if node.op_type == "Constant" for out in node.output}
    outside = list(dict.fromkeys(t for node in nodes for t in node.input if t and t not in produced and t not in constant))
    if values is None:
        try:
            inputs = model_inputs(model, candidate.data, 0)
            values = {**inputs, **reference.intermediate_values(model, inputs)}
        except Exception:  # noqa: BLE001
            return None
    try:
        cut = onnx.utils.Extractor(onnx.shape_inference.infer_shapes(model)).extract_model(outside, [matched])
    except Exception:  # noqa: BLE001  (the extractor rejects a set it cannot close)
        return None
    cut.graph.name = model.graph.name  # not the extractor's "Extracted from {...}": it names the function
    data = pack({INPUT + name: np.asarray(values[name]) for name in outside if name in values})
    binary = onnx_model.serialise(cut)
    return Proposal(Candidate(onnx_model.describe(cut), candidate.flags, candidate.suffix, binary, data), onnx_model.node_count(cut))


def _to_output_kind(model: onnx.ModelProto, nodes: list[int], matched: str, steps: int = 3) -> tuple[list[int], str]:
    """The culprit's nodes, followed through single consumers (a DequantizeLinear after a
    QLinearMatMul) until the value has the element kind (float or integer) of the model's first
    output: a wrong answer is pinned in the original's terms (relative error of a float, LSBs of an
    integer), which a cut that ends in the other kind cannot be compared with."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in [*inferred.graph.value_info, *inferred.graph.output, *inferred.graph.input]}
    float_types = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16, onnx.TensorProto.DOUBLE}
    wanted = model.graph.output[0].type.tensor_type.elem_type in float_types
    for _ in range(steps):
        if (types.get(matched) in float_types) == wanted:
            break
        consumers = [i for i, node in enumerate(model.graph.node) if matched in node.input]
        if len(consumers) != 1 or not model.graph.node[consumers[0]].output:
            break
        nodes.append(consumers[0])
        matched = model.graph.node[consumers[0]].output[0]
    return nodes, matched


def write_node_test(oracle, start: Proposal, directory: Path) -> DispatchTest:
    """The cut model's program (or cut torch-onnx IR as it is) with its captured inputs, against
    onnx.reference's outputs."""
    from oracles.onnx import reference  # imported late: onnx.reference is slow to load (every `reduce` start paid it)

    candidate = start.candidate
    if candidate.binary is None:
        try:
            model, inputs, _ = program_reference_inputs(candidate, oracle.options.seed)
        except ValueError as err:
            return DispatchTest(directory, detail=f"the cut-out program has no reference: {err}")
        text = candidate.text
    else:
        model = onnx.load_from_string(candidate.binary)
        inputs = model_inputs(model, candidate.data, oracle.options.seed)
        with scratch_dir() as tmp:
            text, _ = import_model(candidate.binary, Path(tmp), oracle.options.limits, oracle.options.opset_version)
        if text is None:
            return DispatchTest(directory, detail="the cut-out model does not import")
    expected = reference.reference_outputs(model, inputs)
    return write_dispatch_test(Candidate(text, ()), list(inputs.values()), oracle.compile_flags(candidate.flags), directory,
                               oracle.options.limits, expected=expected, reduction_length=reference.reduction_length(model),
                               quantized=reference.is_quantized(model), wrong_device=oracle.run_device(candidate.flags))
