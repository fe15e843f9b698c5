"""A `.pt2` archive as the tools hold it: its bytes, the ExportedProgram they load to, bytes back.

A candidate is the archive's bytes (`Candidate.binary`, suffix `.pt2`). What the user gave is
read once and checked here, so that bad input is one line: a pickled module or state dict
(`torch.save`), an archive this torch cannot load (another torch's, a custom op it does not
know). Loading is cached by content: the same bytes are read once per process.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import operator
import threading
import warnings
import zipfile
from collections.abc import Iterator

import torch
from torch.export import ExportedProgram

# torch.export's loader keeps global state (one deserialiser at a time): oracle calls come from
# several threads of one process, so every use of the program machinery takes this lock.
LOCK = threading.RLock()
ARCHIVE_FORMAT = "archive_format"  # the record every torch.export.save archive holds
PICKLE_RECORD = "data.pkl"  # the record every torch.save zip holds


class ArchiveError(ValueError):
    """Bytes that are no loadable torch.export archive; `str()` is one line."""


class PickledModule(ArchiveError):
    """A `torch.save` file (a pickled module or state dict), not an exported program."""


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:400] if text else type(error).__name__


def kind_of(data: bytes) -> str:
    """'archive' (torch.export.save), 'pickle' (torch.save, zip or legacy), or 'other'."""
    if data[:2] == b"\x80\x02" or data[:1] == b"\x80":
        return "pickle"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return "other"
    leaves = {name.rsplit("/", 1)[-1] for name in names}
    if ARCHIVE_FORMAT in leaves:
        return "archive"
    if PICKLE_RECORD in leaves:
        return "pickle"
    return "other"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """torch's own warnings and log lines (a failed load logs a traceback) kept off the user's terminal."""
    loggers = [logging.getLogger(name) for name in ("torch", "torch.export", "torch._export", "torch.fx")]
    levels = [logger.level for logger in loggers]
    try:
        for logger in loggers:
            logger.setLevel(logging.CRITICAL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def load(data: bytes) -> ExportedProgram:
    """The program in `data` (a fresh object: callers may change it). ArchiveError (one line) when
    it is no archive or this torch cannot load it; PickledModule for a torch.save file."""
    kind = kind_of(data)
    if kind == "pickle":
        raise PickledModule("a pickled module or state dict (torch.save), not a torch.export archive")
    if kind == "other":
        raise ArchiveError("not a torch.export archive (no zip with an archive_format record)")
    with LOCK, quiet(), _logged("torch.export") as logged:
        try:
            return torch.export.load(io.BytesIO(data))
        except Exception as err:  # noqa: BLE001  (torch raises anything for an archive it cannot read)
            raise ArchiveError(f"torch {torch.__version__} cannot load it: {_reason(logged) or one_line(err)}") from None


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.texts.append(text)


@contextlib.contextmanager
def _logged(name: str) -> Iterator[list[str]]:
    """What the logger `name` says inside, kept instead of printed (torch.export.load logs why it
    failed and raises a generic error)."""
    logger = logging.getLogger(name)
    saved = (logger.handlers, logger.level, logger.propagate)
    records = _Records()
    logger.handlers, logger.propagate = [records], False
    logger.setLevel(logging.WARNING)
    try:
        yield records.texts
    finally:
        logger.handlers, logger.propagate = saved[0], saved[2]
        logger.setLevel(saved[1])


def _reason(logged: list[str]) -> str:
    """The first error the loader logged, its first sentence (the op it cannot resolve)."""
    for text in logged:
        for line in text.splitlines():
            if "Error: " in line and not line.startswith(" "):
                reason = line.split("Error: ", 1)[1]
                return reason.split(". ")[0].strip()[:300]
    return ""


def loaded(data: bytes) -> ExportedProgram:
    """`load`, cached by content: do not change the result."""
    with LOCK:
        return _loaded(data)


@functools.lru_cache(maxsize=8)
def _loaded(data: bytes) -> ExportedProgram:
    return load(data)


def save(program: ExportedProgram) -> bytes:
    """The archive's bytes (the same program saves to the same bytes)."""
    buffer = io.BytesIO()
    with LOCK, quiet():
        torch.export.save(program, buffer)
    return buffer.getvalue()


def decomposed(program: ExportedProgram, table: dict) -> ExportedProgram:
    """The program with in-place ops made functional (a buffer update becomes a mutation output)
    and the ops of `table` decomposed (oracles/torch/decompositions.py chooses it)."""
    with LOCK, quiet():
        return program.run_decompositions(table)


def functional(program: ExportedProgram) -> ExportedProgram:
    """The program made functional, nothing decomposed: how every edited program is exported again
    (its ops are the loaded program's, decomposed already as the user's import asked)."""
    return decomposed(program, {})


ATEN = torch.ops.aten
# Runtime checks export adds beside the ops; a re-export adds them again where they still hold.
ASSERTIONS = frozenset({ATEN._assert_tensor_metadata.default, ATEN._assert_scalar.default,
                        ATEN.sym_constrain_range_for_size.default, ATEN.sym_constrain_range.default,
                        ATEN._assert_async.msg})


def is_node(node: torch.fx.Node) -> bool:
    """Whether an FX node is one of the program's nodes as the tools count them: a call_function
    node, not tuple unpacking (getitem) nor one of export's own checks."""
    return node.op == "call_function" and node.target is not operator.getitem and node.target not in ASSERTIONS


def nodes(program: ExportedProgram) -> list[torch.fx.Node]:
    """The program's nodes (`is_node`), in graph order."""
    return [n for n in program.graph.nodes if is_node(n)]


def float_types(program: ExportedProgram) -> set[torch.dtype]:
    """The floating-point element types the program's nodes compute in."""
    found = set()
    for node in nodes(program):
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
            found.add(value.dtype)
    return found


def op_name(node: torch.fx.Node) -> str:
    """`aten.linear.default` -> 'linear'."""
    target = node.target
    name = getattr(target, "__name__", str(target))
    return name.split(".")[0] if hasattr(target, "_schema") else name


def describe(program: ExportedProgram) -> str:
    """One line: how many nodes, of which ops."""
    counts: dict[str, int] = {}
    for node in nodes(program):
        counts[op_name(node)] = counts.get(op_name(node), 0) + 1
    listing = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in counts.items())
    return f"torch.export program: {sum(counts.values())} nodes ({listing})"
