"""Exports a real Llama model (prefill + decode, paged KV cache) the way IREE's own LLM flows do.

    python bench/export_toy_llama.py [--out bench/data/toy_llama_paged.mlir.gz] [--seed 12345]

Run it in its own virtual environment, not the project's: the exporter pins its own compiler.

    python3 -m venv ENV && . ENV/bin/activate
    pip install torch==2.13.0            # the CPU wheel (a CUDA build is not needed)
    pip install sharktank==3.8.0 iree-turbine==3.9.0
    pip install iree-base-compiler==3.9.0 iree-base-runtime==3.9.0   # iree-turbine 3.9's bindings
    pip install --no-deps wave-lang==3.9.1                            # sharktank imports it

What it runs is sharktank's own code, nothing written for this project: its toy Llama
(`sharktank.models.llama.toy_llama.generate`: 3 transformer blocks, 256 wide, 8 query and 4 KV
heads of 32, a 256-token vocabulary, interleaved rotary embedding, random weights) saved as an
IRPA parameter archive, then `sharktank.examples.export_paged_llm_v1` (torch.export through
iree-turbine's FxProgramsBuilder) with one prefill and one decode batch size and the decomposed
attention kernel. The output is torch-dialect MLIR: `prefill_bs1` and `decode_bs1`, weights as
`util.global`s bound to `#flow.parameter.named<"model"::...>`, the paged KV cache as a mutable
`!torch.tensor` argument written in place (`torch.overwrite.tensor.contents`). The pinned IREE
3.13 parses and compiles it; `bench/ir_symptoms_at_scale.py` reduces it.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "bench" / "data" / "toy_llama_paged.mlir.gz"


def export(out: Path, seed: int) -> None:
    from sharktank.models.llama.toy_llama import generate
    from sharktank.types import Dataset

    with tempfile.TemporaryDirectory() as tmp:
        irpa, mlir, config = Path(tmp) / "toy_llama.irpa", Path(tmp) / "toy_llama.mlir", Path(tmp) / "config.json"
        theta, llama_config = generate(seed)
        Dataset(llama_config.hp.to_gguf_props(), theta).save(str(irpa))
        subprocess.run(
            [sys.executable, "-m", "sharktank.examples.export_paged_llm_v1", f"--irpa-file={irpa}",
             f"--output-mlir={mlir}", f"--output-config={config}", "--bs-prefill=1", "--bs-decode=1",
             "--attention-kernel=decomposed"],
            check=True,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as packed:
            packed.write(mlir.read_bytes())  # mtime 0: the same export gives the same bytes
    print(f"wrote {out} ({out.stat().st_size} bytes)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=12345, help="toy_llama's own default seed")
    args = parser.parse_args()
    export(args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
