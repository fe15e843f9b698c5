"""The standalone repro script of a reduced PyTorch program (`bug.reduced.py`).

What a PyTorch user files with a bug: the reduced program as an `nn.Module` in plain PyTorch code
(its forward is the FX graph's own code, ATen ops called by name), its weights and inputs
written into the file, then `torch.export`, IREE's FX importer and a compile with the flags the
reduction kept, and a check that shows the failure the oracle judged: the compiler's error, the
IR lines of a phase symptom, or the elements IREE computes differently from PyTorch. It embeds
no MLIR and imports nothing of this tool: torch and the IREE compiler and runtime wheels run it.
It exits 1 when the failure shows, 0 when it does not.
"""

from __future__ import annotations

import base64
import inspect
import textwrap

import numpy as np
import torch

from oracles import Candidate, Oracle
from oracles.data.arrays import reduction_length_hint
from oracles.numeric.compare import tolerance_for
from oracles.torch.importer import FUNCTION, GlobalState
from oracles.torch.program import loaded
from reducer.graphs.torch_program import (
    CARRIED,
    Editable,
    attribute,
    editable,
    trace_inputs,
)

# What a phase oracle's symptom looks like in the IR at its phase (the script prints those lines).
PHASE_SYMPTOMS = {
    "transient-copy": r"stream\.(cmd|async)\.(copy|clone)|_slow_memcpy|stream\.resource\.alloca",
    "readwrite-constant": r"flow\.dispatch",
    "dispatch-count": r"(flow|stream\.cmd|hal\.command_buffer)\.dispatch\b",
}
NUMERIC = ("eager-mismatch", "miscompile", "run-error")
_LINE = 96  # characters of base64 per line
_SPELLED = 64  # elements up to which a tensor of whole numbers is written as a list


def _literal(value: np.ndarray | torch.Tensor) -> str:
    """`tensor(dtype, shape[, data])`: zeros, or the tensor's bytes in base64."""
    t = value if isinstance(value, torch.Tensor) else _from_numpy(value)
    t = t.detach().contiguous()
    head = f"tensor({t.dtype}, {list(t.shape)}"
    if t.numel() == 0 or not bool(torch.any(t != 0)):
        return head + ")"
    if t.numel() <= _SPELLED and t.dtype != torch.bool and bool(torch.all(t.double() == t.double().round())):
        spelled = t.to(torch.int64).tolist()  # small integers: spelled out, readable at a glance
        return f"torch.tensor({spelled}, dtype={t.dtype})"
    raw = t.view(torch.uint8).numpy().tobytes() if t.element_size() == 1 else t.view(_same_width(t)).numpy().tobytes()
    text = base64.b64encode(raw).decode()
    if len(text) <= _LINE:
        return f'{head}, "{text}")'
    chunks = "\n".join(f'        "{text[i:i + _LINE]}"' for i in range(0, len(text), _LINE))
    return f"{head}, (\n{chunks}\n    ))"


def _same_width(t: torch.Tensor) -> torch.dtype:
    return {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]


def _from_numpy(value: np.ndarray) -> torch.Tensor:
    from oracles.torch.eager import to_torch

    return to_torch(value)


def _module_source(ed: Editable) -> tuple[str, list[str]]:
    """The class `Repro`: its tensors registered as buffers under flat names, its forward the
    graph's code; and the names of the buffers it updates."""
    attributes: dict[str, torch.Tensor] = {}
    renamed: dict[str, str] = {}
    for node in ed.graph.nodes:
        if node.op == "get_attr":
            if node.target not in renamed:
                flat = node.target.replace(".", "_")
                while flat in attributes:
                    flat += "_"
                renamed[node.target] = flat
                attributes[flat] = attribute(ed.module, node.target)
            node.target = renamed[node.target]
    module = torch.fx.GraphModule(dict(attributes), ed.graph)
    forward = textwrap.indent(module.code.strip(), "    ")
    lines = ["class Repro(torch.nn.Module):", "    def __init__(self):", "        super().__init__()"]
    lines += [f'        self.register_buffer("{name}", {_literal(value)})'.replace("\n", "\n    ") for name, value in attributes.items()]
    if not attributes:
        lines.append("        pass")
    updated = [str(n.args[0].target) for n in ed.updates()]
    return "\n".join(lines) + "\n\n" + forward + "\n", updated


def _inputs_source(ed: Editable, data: tuple) -> tuple[str, str, str]:
    """EXAMPLES (what export traces), DYNAMIC (its dynamic dims) and INPUTS (what the check runs on)."""
    examples, dynamic = trace_inputs(ed)
    spelled_examples = ", ".join(_literal(e) for e in examples)
    spelled_dynamic = "None" if all(d is None for d in dynamic) else "(" + ", ".join(
        "None" if d is None else "{" + ", ".join(f"{axis}: torch.export.Dim.DYNAMIC" for axis in d) + "}" for d in dynamic) + ",)"
    carried = [node.meta.get(CARRIED) for node in ed.inputs()]
    if data and all(c is not None for c in carried):
        spelled_inputs = "(" + ", ".join(_literal(c[1]) for c in carried) + ",)"
    else:
        spelled_inputs = "EXAMPLES"
    return f"({spelled_examples},)" if examples else "()", spelled_dynamic, spelled_inputs


def _hooks_source() -> str:
    return inspect.getsource(GlobalState)


def script(candidate: Candidate, oracle: Oracle, detail: str) -> str:
    """The repro script of the reduced `.pt2` candidate for `oracle` (the user's, unwrapped)."""
    ed = editable(loaded(candidate.binary), candidate.data)
    module, updated = _module_source(ed)
    examples, dynamic, inputs = _inputs_source(editable(loaded(candidate.binary), candidate.data), candidate.data)
    flags = oracle.compile_flags(candidate.flags)
    hooks = _hooks_source() if updated else ""
    importer = "FxImporter(hooks=GlobalState())" if updated else "FxImporter()"
    check = _check(candidate, oracle)
    header = f'''#!/usr/bin/env python3
"""{oracle.name}: {_one_line(detail)}

Written by `reduce`: the reduced program as a PyTorch module, exported with torch.export, imported
with IREE's FX importer and compiled with the flags below, as the reduction judged it. It needs
torch and the IREE wheels only:
    pip install torch=={torch.__version__.split("+")[0]} iree-base-compiler==3.13.0 iree-base-runtime==3.13.0
It exits 1 when the failure shows.
"""

import base64
import re
import sys
import warnings
from math import inf, nan  # noqa: F401  (the forward's code may name them)

import numpy as np
import torch
from iree.compiler import ir  # noqa: F401  (the hooks build IR)
from iree.compiler.extras.fx_importer import FxImporter, FxImporterHooks  # noqa: F401
from iree.compiler.tools import CompilerToolError, compile_str
from torch import device  # noqa: F401  (the forward's code may name it)

FLAGS = {flags!r}
warnings.filterwarnings("ignore", category=FutureWarning)  # torch's own, on export


def tensor(dtype, shape, data=None):
    """A tensor of `shape`: zeros, or the little-endian bytes in base64 `data`."""
    if data is None:
        return torch.zeros(shape, dtype=dtype)
    return torch.frombuffer(bytearray(base64.b64decode(data)), dtype=dtype).reshape(shape).clone()


{module}

EXAMPLES = {examples}
DYNAMIC = {dynamic}
INPUTS = {inputs}


{hooks}
def imported():
    """The module as torch-dialect MLIR, as `reduce` imported it (its ops are decomposed already)."""
    program = torch.export.export(Repro(), EXAMPLES, dynamic_shapes=DYNAMIC).run_decompositions({{}})
    importer = {importer}
    importer.import_program(program, func_name="{FUNCTION}")
    return str(importer.module)

'''
    return header + check + '\n\nif __name__ == "__main__":\n    sys.exit(main())\n'


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace('"""', "'''")[:300]


def _check(candidate: Candidate, oracle: Oracle) -> str:
    """The script's `main`: what shows the failure for this oracle."""
    if oracle.name in NUMERIC:
        return _numeric_check(candidate, oracle)
    pattern = PHASE_SYMPTOMS.get(oracle.name) or (oracle.options.pattern if oracle.name == "ir-match" else None)
    if pattern is not None:
        threshold = oracle.options.threshold or 1
        return f'''def main():
    ir_text = compile_str(imported(), extra_args=FLAGS).decode()
    shown = [line.strip() for line in ir_text.splitlines() if re.search({pattern!r}, line)]
    print("\\n".join(shown))
    if len(shown) >= {threshold}:
        print(f"the failure shows: {{len(shown)}} lines of {oracle.name}'s symptom in the IR", file=sys.stderr)
        return 1
    print("the failure does not show", file=sys.stderr)
    return 0
'''
    return '''def main():
    try:
        compile_str(imported(), extra_args=FLAGS)
    except CompilerToolError as error:
        print(error, file=sys.stderr)
        print("the failure shows: iree-compile fails", file=sys.stderr)
        return 1
    print("compiles: the failure does not show", file=sys.stderr)
    return 0
'''


def _run_source() -> str:
    """The script's `run`: the compiled module's outputs on its inputs, as the IREE runtime computes them."""
    return f'''def as_numpy(x):
    """A tensor as numpy holds it (bf16 as ml_dtypes' type, which the IREE runtime reads)."""
    if x.dtype == torch.bfloat16:
        import ml_dtypes

        return x.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return x.numpy()


def run(flags, device):
    """The compiled module's outputs on INPUTS, as IREE computes them on `device`."""
    import iree.runtime as runtime

    module = runtime.load_vm_flatbuffer(compile_str(imported(), extra_args=flags), driver=device)
    result = getattr(module, "{FUNCTION}")(*[as_numpy(x) for x in INPUTS])
    results = result if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]

'''


def _numeric_check(candidate: Candidate, oracle: Oracle) -> str:
    device = oracle.run_device(candidate.flags)
    run = _run_source()
    if oracle.name == "run-error":
        return run + f'''def main():
    try:
        run(FLAGS, "{device}")
    except Exception as error:  # noqa: BLE001
        print(error, file=sys.stderr)
        print("the failure shows: the module fails when it runs", file=sys.stderr)
        return 1
    print("runs: the failure does not show", file=sys.stderr)
    return 0
'''
    length = reduction_length_hint(candidate.text)
    tolerances = {str(dtype): tolerance_for(dtype, length) for dtype in _output_dtypes(candidate)}
    if oracle.name == "miscompile":
        (_, flags_a, device_a), (_, flags_b, device_b) = oracle.run_pipelines(candidate.flags)
        expected = f'run({flags_b!r}, "{device_b}")'
        actual = f'run({flags_a!r}, "{device_a}")'
        against, label = "pipeline B", "pipeline A"
    else:
        expected = "[as_numpy(t) for t in torch.utils._pytree.tree_leaves(Repro()(*INPUTS))]"
        actual = f'run(FLAGS, "{device}")'
        against, label = "PyTorch eager", "IREE"
    return run + f'''TOLERANCE = {tolerances!r}  # (atol, rtol) by element type, as the reduction compared


def main():
    with torch.no_grad():
        expected = {expected}
    actual = {actual}
    wrong = 0
    for j, (e, a) in enumerate(zip(expected, actual)):
        atol, rtol = TOLERANCE.get(str(e.dtype), (0.0, 0.0))
        bad = ~np.isclose(a.astype(np.float64), e.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True)
        wrong += int(bad.sum())
        for index in np.argwhere(bad)[:5]:
            where = tuple(int(i) for i in index)
            print(f"output {{j}}{{list(where)}}: {against} {{e[where]}}, {label} {{a[where]}}")
        print(f"output {{j}}: {{int(bad.sum())}} of {{bad.size}} elements differ")
    if wrong:
        print("the failure shows: {label} differs from {against}", file=sys.stderr)
        return 1
    print("{label} matches {against}: the failure does not show", file=sys.stderr)
    return 0
'''


def _output_dtypes(candidate: Candidate) -> set[np.dtype]:
    from oracles.data.arrays import entry_function, parse_type

    try:
        _, _, results = entry_function(candidate.text, dynamic=True)
        return {np.dtype(parse_type(text, dynamic=True)[1]) for text in results}
    except ValueError:
        return set()

