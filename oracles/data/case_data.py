"""A reduced case's own data, written beside it so that the printed commands reproduce the wrong
answer as they are: `argI.npy` (bf16 / f8 as raw `.bin`) for `iree-run-module --input=`, and for
an ONNX model also the ONNX test-data layout (`test_data_set_0/input_I.pb`, `output_J.pb` with
onnx.reference's outputs), in `OUTPUT.data/`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oracles.data.arrays import input_flag, write_array


def data_dir(path: str | Path) -> Path:
    """Where the data of the case at `path` goes: `path` + `.data`."""
    return Path(f"{path}.data")


def input_flags(values: Sequence[np.ndarray | np.generic], path: str | Path) -> list[str]:
    """`--input=` flags reading `values` from the case's data directory (scalars as literals)."""
    flags = []
    for i, value in enumerate(values):
        flag, file = input_flag(value, f"arg{i}")
        flags.append(flag if file is None else flag.replace(f"@{file.name}", f"@{data_dir(path) / file.name}"))
    return flags


def write_inputs(values: Sequence[np.ndarray | np.generic], path: str | Path) -> list[Path]:
    """Writes the arrays `input_flags` reads; the files written."""
    directory = data_dir(path)
    directory.mkdir(parents=True, exist_ok=True)
    for stale in [*directory.glob("arg*.npy"), *directory.glob("arg*.bin")]:  # an earlier result's
        stale.unlink()
    written = []
    for i, value in enumerate(values):
        _, file = input_flag(value, f"arg{i}")
        if file is not None:
            write_array(value, directory / file.name)
            written.append(directory / file.name)
    return written


def write_onnx_test_data(inputs: dict[str, np.ndarray], outputs: Sequence[tuple[str, np.ndarray]], path: str | Path) -> Path:
    """`test_data_set_0/input_I.pb` / `output_J.pb` (named tensors) in the case's data directory."""
    from onnx import numpy_helper

    directory = data_dir(path) / "test_data_set_0"
    directory.mkdir(parents=True, exist_ok=True)
    for stem, named in (("input", list(inputs.items())), ("output", list(outputs))):
        for i, (name, value) in enumerate(named):
            (directory / f"{stem}_{i}.pb").write_bytes(numpy_helper.from_array(np.asarray(value), name).SerializeToString())
    return directory


def save_data(data: tuple[tuple[str, bytes], ...], path: Path) -> None:
    """A candidate's data (a corpus entry's `data.npz`, a case judged under another release), each
    entry's .npy bytes under its name."""
    np.savez(path, **{name: np.frombuffer(raw, np.uint8) for name, raw in data})


def load_data(path: Path) -> tuple[tuple[str, bytes], ...]:
    with np.load(path, allow_pickle=False) as archive:
        return tuple((name, archive[name].tobytes()) for name in archive.files)
