"""One finding per root cause: dedupe on the reduced case, not on the graph the fuzzer drew.

A finding's signature says how a compile failed (or, for a wrong answer, which ops the whole
graph had), so one wrong QLinearConv in five different graphs is five signatures. Once each is
reduced, its root cause is the reduced model in a canonical form (each node's op type, the
dtype class (width and kind: int8 and uint8 alike) and rank class of each input, its attributes reduced to what distinguishes bugs: pads
symmetric or not, strides and dilations one or more, a 1x1 kernel, a group or none) plus the
failure (the error's normalised signature; "wrong answer" for any mismatch, "LDS overrun" for
any overrun the compiler reports, whose message names the dispatch and its shapes). Findings with one
key are one root cause; a key a corpus entry's repro also has names that entry: a known bug.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from onnx import helper, shape_inference

from fuzz.execute import LDS_OVERRUN, MISMATCH, TIMEOUT
from oracles.compiling.signature import is_follow_on
from reducer.storage.corpus import CorpusEntry

WRONG_ANSWER = "wrong answer"
# Ops whose operands' rank decides how they lower (a 4-D matmul is a different bug from a 3-D one);
# for the others a tensor is a tensor.
CONTRACTIONS = frozenset({"MatMul", "MatMulInteger", "QLinearMatMul", "Gemm", "Conv", "ConvInteger", "QLinearConv", "ConvTranspose"})
_ORACLE_KIND = {"reference-mismatch": WRONG_ANSWER, "miscompile": WRONG_ANSWER, "timeout": "timeout"}
UNREDUCED = "unreduced"


def failure_part(kind: str, signature: str) -> str:
    """What of a failure identifies its root cause: any wrong answer is one kind of failure."""
    if kind == MISMATCH:
        return WRONG_ANSWER
    if kind == TIMEOUT:
        return "timeout"
    if kind == LDS_OVERRUN:  # the message names the dispatch, shapes and bytes: the overrun is the bug
        return "LDS overrun"
    return signature


# Element types by what tells lowerings apart: the width and kind, not the signedness of an
# integer (a signed and an unsigned ConvInteger zero point fail alike) or the f8 variant.
_DTYPE_CLASS = {
    "int8": "i8", "uint8": "i8", "int4": "i4", "uint4": "i4", "int16": "i16", "uint16": "i16", "int32": "i32", "uint32": "i32",
    "int64": "i64", "uint64": "i64", "float": "f32", "double": "f64", "float16": "f16", "bfloat16": "bf16",
    "float8e4m3fn": "f8", "float8e5m2": "f8", "float8e4m3fnuz": "f8", "float8e5m2fnuz": "f8",
}  # fmt: skip


def _dtype_class(name: str) -> str:
    return _DTYPE_CLASS.get(name, name)


def _types(model: onnx.ModelProto) -> dict[str, tuple[str, int]]:
    """name -> (dtype name, rank) for every value the graph declares or inference finds."""
    with contextlib.suppress(Exception):  # a reduced model may not infer; declared types still help
        model = shape_inference.infer_shapes(model)
    graph = model.graph
    found = {t.name: (helper.tensor_dtype_to_string(t.data_type).replace("TensorProto.", "").lower(), len(t.dims)) for t in graph.initializer}
    for value in (*graph.input, *graph.value_info, *graph.output):
        tensor = value.type.tensor_type
        rank = len(tensor.shape.dim) if tensor.HasField("shape") else -1
        found.setdefault(value.name, (helper.tensor_dtype_to_string(tensor.elem_type).replace("TensorProto.", "").lower(), rank))
    return found


def _attribute(name: str, value) -> str:
    """An attribute's value reduced to what tells bugs apart, not what tells graphs apart."""
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        if name == "pads":
            half = len(value) // 2
            return "none" if not any(value) else "symmetric" if list(value[:half]) == list(value[half:]) else "asymmetric"
        if name == "kernel_shape":
            return f"{len(value)}d" + (" 1x1" if all(v == 1 for v in value) else "")
        return "1" if all(v == 1 for v in value) else ">1"
    if isinstance(value, float):
        return "1" if value == 1.0 else "other"
    if name == "group":
        return "1" if value == 1 else ">1"
    if isinstance(value, onnx.TensorProto):
        return helper.tensor_dtype_to_string(value.data_type)
    if name == "to":  # a Cast's target type
        return _dtype_class(helper.tensor_dtype_to_string(value).replace("TensorProto.", "").lower())
    return str(value)


def canonical_form(model: onnx.ModelProto) -> str:
    """The reduced model, canonical: its nodes (sorted), each as op(inputs)[attributes]->outputs."""
    types = _types(model)

    def operand(name: str, contraction: bool, position: int) -> str:
        """dtype and rank class; the rank only where it decides the lowering (a contraction's
        operands, a parameter that is per-tensor or per-axis), not for elementwise data."""
        if not name:
            return "-"
        dtype, rank = types.get(name, ("?", -1))
        dtype = _dtype_class(dtype)
        if contraction:
            shape = "scalar" if rank == 0 else "vector" if rank == 1 else f"r{rank}"
        else:
            shape = "tensor" if position == 0 or rank > 1 else "scalar" if rank == 0 else "vector"
        return f"{dtype}:{shape}"

    nodes = []
    for node in model.graph.node:
        attrs = ",".join(f"{a.name}={_attribute(a.name, helper.get_attribute_value(a))}" for a in sorted(node.attribute, key=lambda a: a.name))
        ins = ",".join(operand(n, node.op_type in CONTRACTIONS, i) for i, n in enumerate(node.input))
        outs = ",".join(_dtype_class(types.get(n, ("?", -1))[0]) for n in node.output)
        nodes.append(f"{node.op_type}({ins})[{attrs}]->{outs}")
    return "; ".join(sorted(nodes))


def root_cause_key(kind: str, signature: str, reduced: onnx.ModelProto | None) -> str:
    """The dedup key of a finding: its reduced form and failure; an unreduced one is its own."""
    if reduced is None:
        return f"{UNREDUCED} | {signature}"
    return f"{failure_part(kind, signature)} | {canonical_form(reduced)}"


def entry_key(entry: CorpusEntry) -> str | None:
    """The same key for a corpus entry whose repro is an ONNX model (None for an MLIR one)."""
    if not entry.input_file.endswith(".onnx") or not entry.input_path.is_file():
        return None
    part = _ORACLE_KIND.get(entry.oracle, entry.signature)
    if entry.oracle == "lds-limit" and "lds_bytes" not in entry.options:
        part = "LDS overrun"
    return f"{part} | {canonical_form(onnx.load(entry.input_path))}"


def corpus_keys(entries: Iterable[CorpusEntry]) -> dict[str, str]:
    """key -> entry name, for the entries that have one."""
    keys: dict[str, str] = {}
    for entry in entries:
        key = entry_key(entry)
        if key is not None:
            keys.setdefault(key, entry.name)
    return keys


def reduced_model(directory: Path | str | None) -> onnx.ModelProto | None:
    """A finding directory's reduced model, when its reduction wrote one."""
    if directory is None:
        return None
    path = Path(directory) / "reduced.onnx"
    if not path.is_file() or (Path(directory) / "not-reduced.txt").is_file():
        return None
    return onnx.load(path)


@dataclass
class RootCauses:
    """The root causes behind a run's findings: each signature's key, and what a corpus entry names."""

    key: dict[str, str] = field(default_factory=dict)  # signature -> root-cause key
    kind: dict[str, str] = field(default_factory=dict)  # signature -> finding class
    known_as: dict[str, str] = field(default_factory=dict)  # signature -> corpus entry
    seen: dict[str, int] = field(default_factory=dict)  # signature -> findings this run

    @property
    def distinct(self) -> set[str]:
        return set(self.key.values())

    @property
    def known(self) -> set[str]:
        return {self.key[s] for s in self.known_as}

    @property
    def new(self) -> set[str]:
        return self.distinct - self.known

    def mismatches(self) -> tuple[int, int]:
        """(graphs with a wrong answer, root causes they reduce to)."""
        signatures = [s for s, kind in self.kind.items() if kind == MISMATCH]
        return sum(self.seen.get(s, 0) for s in signatures), len({self.key[s] for s in signatures})

    def lines(self) -> list[str]:
        graphs, causes = self.mismatches()
        named = sorted(set(self.known_as.values()))
        return [
            (f"root causes: {len(self.distinct)} distinct from {len(self.key)} signatures (deduped on the reduced case); "
             f"{len(self.new)} new, {len(self.known)} known ({', '.join(named) or 'none'})"),
            f"wrong answers: {graphs} graphs collapse into {causes} root cause{'' if causes == 1 else 's'}",
        ]


def assign_root_causes(db, seen: dict[str, int], entries: Iterable[CorpusEntry]) -> RootCauses:
    """Keys for every signature seen this run (reduced now or in an earlier run), stored in the
    database with the corpus entry each one matches: by reduced form, or, for a finding left
    unreduced, by its signature (the corpus entry was reduced from the same failure)."""
    entries = list(entries)
    by_key, by_signature = corpus_keys(entries), {e.signature: e.name for e in entries}
    causes = RootCauses(seen=dict(seen))
    findings = [f for f in db.all() if f.signature in seen]
    reduced = {f.signature: reduced_model(f.directory) for f in findings}
    forms = {canonical_form(m): root_cause_key(f.kind, f.signature, m) for f in findings if (m := reduced[f.signature]) and not is_follow_on(f.signature)}
    for finding in findings:
        model = reduced[finding.signature]
        key = root_cause_key(finding.kind, finding.signature, model)
        if model is not None and is_follow_on(finding.signature):  # names no bug of its own: the error it follows does
            key = forms.get(canonical_form(model), key)
        known = by_key.get(key) if model is not None else by_signature.get(finding.signature)
        causes.key[finding.signature], causes.kind[finding.signature] = key, finding.kind
        if known:
            causes.known_as[finding.signature] = known
        db.set_root_cause(finding.signature, key, known)
    return causes
