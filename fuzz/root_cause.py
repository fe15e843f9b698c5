"""One finding per root cause: dedupe on what failed where, not on the graph the fuzzer drew.

A finding's signature says how a compile failed (or, for a wrong answer, which ops the whole
graph had), so one wrong QLinearConv in five graphs is five signatures, and one VMVX lowering
that cannot legalize `arith.fptoui` is a new finding in every graph that reaches it with another
op in front. The root cause of a compile error or crash is its target (the CPU backend or the GPU
architecture), the failing pass the culprit step names on the reduced case, and the normalised
error (which names the op or ONNX operator); an error on a whole function ("failed to distribute")
also keeps the kind of the reduced graph's root op (a matmul and a convolution that fail to
distribute are two bugs until shown otherwise). Only where the failing pass is unknown does the
reduced graph's canonical form (each node's op type, dtype and rank class of its inputs, the
attributes that tell bugs apart) separate two findings. A wrong answer's root cause is the op that
computes it (the reduced graph's contraction, else its ops), the pipeline and device that compute
it wrongly (target, device, the flags that change codegen) and its dtype. A corpus entry has a key
made the same way: a finding with an entry's key is a known bug.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from onnx import helper, shape_inference

from fuzz.execute import LDS_OVERRUN, MISMATCH, TIMEOUT
from fuzz.pipelines import PIPELINES
from fuzz.torch_gen.forms import ReducedForm, torch_form
from oracles.formats import Format, format_of
from oracles.signature import is_follow_on
from oracles.toolchain.devices import runtime_device
from reducer.corpus_entries import CorpusEntry, load_entries

WRONG_ANSWER = "wrong answer"
# Ops whose operands' rank decides how they lower (a 4-D matmul is a different bug from a 3-D one);
# for the others a tensor is a tensor.
CONTRACTIONS = frozenset({"MatMul", "MatMulInteger", "QLinearMatMul", "Gemm", "Conv", "ConvInteger", "QLinearConv", "ConvTranspose"})
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


def canonical_form(model: onnx.ModelProto | ReducedForm) -> str:
    """The reduced model, canonical: its nodes (sorted), each as op(inputs)[attributes]->outputs
    (a reduced PyTorch program's form is made so from its FX graph, `fuzz/torch_gen/forms.py`)."""
    if isinstance(model, ReducedForm):
        return model.canonical
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


# Flags that pick a target, not how it is compiled: the target says them.
_TARGET_FLAGS = ("--iree-hal-target-device=", "--iree-hal-target-backends=", "--iree-hal-local-target-device-backends=",
                 "--iree-rocm-target=", "--iree-cuda-target=", "--iree-vulkan-target=", "--iree-llvmcpu-target-cpu=")
# An error reported on a whole function rather than an op: the root op's kind tells bugs apart.
_WHOLE_FUNCTION = "'func.func' op"


def target_of(flags: Iterable[str]) -> str:
    """The GPU architecture or CPU backend `flags` compile for ('gfx942', 'sm_80', 'vulkan valhall', 'vmvx', 'llvm-cpu')."""
    flags = list(flags)
    for prefix, shown in (("--iree-rocm-target=", "{}"), ("--iree-cuda-target=", "{}"), ("--iree-vulkan-target=", "vulkan {}")):
        value = next((f[len(prefix):] for f in reversed(flags) if f.startswith(prefix)), None)
        if value:
            return shown.format(value)
    backends = next((f.split("=", 1)[1] for f in reversed(flags) if f.startswith("--iree-hal-local-target-device-backends=")), "")
    if "vmvx" in backends:
        return "vmvx"
    device = runtime_device(flags)
    return "llvm-cpu" if device == "local-task" else device


def _codegen_flags(flags: Iterable[str]) -> str:
    """The flags that change how a target is compiled (data tiling, microkernels, opt level), sorted."""
    return " ".join(sorted(f for f in flags if not f.startswith(_TARGET_FLAGS)))


def _computing_op(reduced: onnx.ModelProto | ReducedForm) -> str:
    """The op that computes a wrong answer (or fails on a whole function): the reduced graph's
    contractions, else its ops other than casts and constants, else all of them."""
    if isinstance(reduced, ReducedForm):
        return reduced.computing_op
    ops = [node.op_type for node in reduced.graph.node]
    chosen = [op for op in ops if op in CONTRACTIONS] or [op for op in ops if op not in ("Cast", "Constant")] or ops
    return "+".join(sorted(set(chosen)))


def _computing_dtype(reduced: onnx.ModelProto | ReducedForm) -> str:
    """The element type the computing op works in (its first operand's), else the outputs'."""
    if isinstance(reduced, ReducedForm):
        return reduced.computing_dtype
    types, op = _types(reduced), _computing_op(reduced).split("+")
    operands = [node.input[0] for node in reduced.graph.node if node.op_type in op and node.input]
    names = operands or [o.name for o in reduced.graph.output]
    return ",".join(sorted({_dtype_class(types.get(name, ("?", -1))[0]) for name in names}))


@dataclass(frozen=True)
class FailureFacts:
    """What a finding or corpus entry says about its failure: how, for which target and flags, in
    which pass (the culprit step's, where it concluded), and its reduced ONNX graph."""

    kind: str
    signature: str
    flags: tuple[str, ...] = ()  # the compile flags that fail (a wrong answer: the wrong pipeline's)
    failing_pass: str = ""
    reduced: onnx.ModelProto | ReducedForm | None = None  # a reduced .pt2: its form


def root_cause_key(facts: FailureFacts) -> str:
    """The dedup key of a failure (module docstring); an unreduced one without a pass is its own."""
    target = target_of(facts.flags)
    if facts.kind == MISMATCH:
        if facts.reduced is None:
            return f"{UNREDUCED} | {facts.signature}"
        device = runtime_device(facts.flags)
        how = " ".join(filter(None, (target, f"on {device}", _codegen_flags(facts.flags))))
        return f"{WRONG_ANSWER} | {how} | {_computing_op(facts.reduced)} in {_computing_dtype(facts.reduced)}"
    part = failure_part(facts.kind, facts.signature)
    if facts.failing_pass:
        key = f"{part} | {target} | pass {facts.failing_pass}"
        if _WHOLE_FUNCTION in facts.signature and facts.reduced is not None:
            key += f" | root {_computing_op(facts.reduced)}"
        return key
    if facts.reduced is None:
        return f"{UNREDUCED} | {facts.signature}"
    return f"{part} | {target} | {canonical_form(facts.reduced)}"


def entry_facts(entry: CorpusEntry) -> FailureFacts:
    """A corpus entry's failure: its oracle, the flags that fail (miscompile: pipeline B's), its
    failing pass and, for an ONNX or `.pt2` repro, the graph."""
    kind = {"reference-mismatch": MISMATCH, "miscompile": MISMATCH, "eager-mismatch": MISMATCH, "timeout": TIMEOUT}.get(entry.oracle, "compile error")
    if entry.oracle == "lds-limit" and "lds_bytes" not in entry.options:
        kind = LDS_OVERRUN
    flags = tuple(entry.options.get("pipeline_b") or ()) + tuple(entry.flags) if entry.oracle == "miscompile" else tuple(entry.flags)
    return FailureFacts(kind, entry.signature, flags, (entry.culprit or {}).get("pass", ""), _reduced_at(entry.input_path))


def _reduced_at(path: Path) -> onnx.ModelProto | ReducedForm | None:
    """A reduced repro's graph: an ONNX model, or a `.pt2`'s form (None without torch, or for MLIR)."""
    if not path.is_file():
        return None
    if format_of(path.name) is Format.ONNX:
        return onnx.load(path)
    if format_of(path.name) is Format.PT2:
        return torch_form(path)
    return None


def corpus_groups(entries: Iterable[CorpusEntry]) -> dict[str, list[str]]:
    """key -> the names of the entries with that key (one bug; several where entries repeat one),
    for the entries that have a key (an MLIR repro with no failing pass has none)."""
    groups: dict[str, list[str]] = {}
    for entry in entries:
        facts = entry_facts(entry)
        if facts.reduced is not None or facts.failing_pass:
            groups.setdefault(root_cause_key(facts), []).append(entry.name)
    return groups


def corpus_keys(entries: Iterable[CorpusEntry]) -> dict[str, str]:
    """key -> the entry that names it (the first, where several share it)."""
    return {key: names[0] for key, names in corpus_groups(entries).items()}


def reduced_model(directory: Path | str | None) -> onnx.ModelProto | ReducedForm | None:
    """A finding directory's reduced model (a PyTorch case's: its form), when its reduction wrote one."""
    if directory is None or (Path(directory) / "not-reduced.txt").is_file():
        return None
    for name in ("reduced.onnx", "reduced.pt2"):
        if (Path(directory) / name).is_file():
            return _reduced_at(Path(directory) / name)
    return None


@dataclass
class RootCauses:
    """The root causes behind a run's findings: each signature's key, and what a corpus entry names."""

    key: dict[str, str] = field(default_factory=dict)  # signature -> root-cause key
    kind: dict[str, str] = field(default_factory=dict)  # signature -> finding class
    known_as: dict[str, str] = field(default_factory=dict)  # signature -> corpus entry
    seen: dict[str, int] = field(default_factory=dict)  # signature -> findings this run
    since: dict[str, dict] = field(default_factory=dict)  # key -> since which release it fails (--releases; fuzz/releases.py)

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
            (f"root causes: {len(self.distinct)} distinct from {len(self.key)} signatures (by target, failing pass and error; a wrong answer by its op, pipeline and dtype); "
             f"{len(self.new)} new, {len(self.known)} known ({', '.join(named) or 'none'})"),
            f"wrong answers: {graphs} graphs collapse into {causes} root cause{'' if causes == 1 else 's'}",
        ]


def finding_facts(finding, directory_entries: dict[str, CorpusEntry]) -> FailureFacts:
    """A stored finding's failure: the first pipeline that showed it, and what its reduction found
    (the reduced graph, and the failing pass in the corpus entry the reduction saved)."""
    pipeline = PIPELINES.get(finding.pipeline.split(",")[0])
    flags = tuple(pipeline.flags) if pipeline is not None else ()
    entry = directory_entries.get(Path(finding.directory).name) if finding.directory else None
    failing_pass = (entry.culprit or {}).get("pass", "") if entry is not None else ""
    return FailureFacts(finding.kind, finding.signature, flags, failing_pass, reduced_model(finding.directory))


def reduction_entries(out: Path) -> dict[str, CorpusEntry]:
    """The corpus entries a campaign's reductions saved in `out/corpus/`, by their finding directory's name."""
    saved = load_entries(out / "corpus") if (out / "corpus").is_dir() else []
    return {entry.name.rsplit("-", 1)[-1]: entry for entry in saved}


def assign_root_causes(db, seen: dict[str, int], entries: Iterable[CorpusEntry], out: Path | None = None) -> RootCauses:
    """Keys for every signature seen this run (reduced now or in an earlier run), stored in the
    database with the corpus entry each one matches: by key, or, for a finding left unreduced
    with no pass known, by its signature and target (the corpus entry was reduced from the same
    failure there).
    `out`: the campaign directory, whose `corpus/` holds each reduction's entry (its failing pass)."""
    entries = list(entries)
    by_key = corpus_keys(entries)
    by_signature = {(e.signature, target_of(entry_facts(e).flags)): e.name for e in entries}
    directory_entries = reduction_entries(out) if out is not None else {}
    causes = RootCauses(seen=dict(seen))
    findings = [f for f in db.all() if f.signature in seen]
    facts = {f.signature: finding_facts(f, directory_entries) for f in findings}
    keyed = {f.signature: root_cause_key(facts[f.signature]) for f in findings}
    forms = {canonical_form(fact.reduced): keyed[s] for s, fact in facts.items() if fact.reduced is not None and not is_follow_on(s)}
    for finding in findings:
        fact, key = facts[finding.signature], keyed[finding.signature]
        if fact.reduced is not None and is_follow_on(finding.signature):  # names no bug of its own: the error it follows does
            key = forms.get(canonical_form(fact.reduced), key)
        known = by_key.get(key) if not key.startswith(UNREDUCED) else by_signature.get((finding.signature, target_of(fact.flags)))
        causes.key[finding.signature], causes.kind[finding.signature] = key, finding.kind
        if known:
            causes.known_as[finding.signature] = known
        db.set_root_cause(finding.signature, key, known)
    return causes
