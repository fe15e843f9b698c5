"""What `reduce --resume` continues from: the best candidate and where the search stood.

Written beside the output (`bug.reduced.mlir.resume`) at every improvement and at the start of
every pass, atomically and flushed to disk, so a run killed at any moment (kill -9 included)
leaves a state that names a best candidate the oracle judged interesting and a pass position
at or before the one that produced it. It also names the original, the oracle and the passes it
belongs to: a state from another input or configuration is never resumed. A finished run removes it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from oracles import Candidate, refusals
from reducer.proposal import Proposal
from reducer.storage.atomic import write_atomically

VERSION = 1
LOCALISING, PASSES, FINISHED = "localising", "passes", "finished"  # the stages a state can record


@dataclass
class Position:
    """Where the pass loop stands: the pass about to run (or running) in this round."""

    round: int = 1
    pass_index: int = 0
    changed: bool = False  # a pass earlier in this round improved the best: another round follows
    settled: list[tuple[str, str, int]] = field(default_factory=list)  # (pass, dimension, size) a shrink left
    order: list[str] = field(default_factory=list)  # the passes of this round in the order it runs them


@dataclass
class ResumeState:
    original_key: str
    configuration: str  # the oracle's fingerprint, the flags and the pass names
    stage: str
    best_text: str
    best_binary: str | None  # base64 of a binary candidate (ONNX)
    best_flags: list[str]
    best_ops: int
    stop_phase: str | None = None  # compiles stopped at this --compile-to phase
    position: Position = field(default_factory=Position)
    # A .pt2 best's data (its inputs by position change with every cut): [name, base64 of the array]
    best_data: list[list[str]] | None = None

    def best_candidate(self, like: Candidate) -> Candidate:
        binary = base64.b64decode(self.best_binary) if self.best_binary is not None else None
        data = like.data if self.best_data is None else tuple((name, base64.b64decode(raw)) for name, raw in self.best_data)
        return Candidate(self.best_text, tuple(self.best_flags), like.suffix, binary, data)


class ResumeRefused(Exception):
    """The state beside the output belongs to another run."""


def state_path(output: Path) -> Path:
    return output.with_name(output.name + ".resume")


def save(path: Path, state: ResumeState) -> None:
    write_atomically(path, json.dumps({"version": VERSION, **asdict(state)}))


def load(path: Path) -> ResumeState | None:
    """The state at `path`; None when there is none, or it is damaged or from another version."""
    try:
        raw = json.loads(path.read_text())
        if raw.pop("version", None) != VERSION:
            return None
        position = raw.pop("position")
        position["settled"] = [tuple(item) for item in position["settled"]]
        return ResumeState(**raw, position=Position(**position))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _of_candidate(candidate: Candidate, keeps_data: bool) -> dict:
    """The fields of a state that hold a best candidate (its data where its format keeps it)."""
    binary = base64.b64encode(candidate.binary).decode() if candidate.binary is not None else None
    data = [[name, base64.b64encode(raw).decode()] for name, raw in candidate.data] if keeps_data else None
    return {"best_text": candidate.text, "best_binary": binary, "best_flags": list(candidate.flags), "best_data": data}


class Checkpoints:
    """Keeps the state beside the output current: at every improvement, pass start and stage."""

    def __init__(self, path: Path, original: Proposal, configuration: str, keeps_data: bool = False) -> None:
        self.keeps_data = keeps_data  # the best's data goes into the state (a .pt2's cut inputs carry values)
        self.path = path
        self.original = original
        self.configuration = configuration
        self.stage = LOCALISING
        self.stop_phase: str | None = None
        self._best = original
        self._position = Position()

    def saved(self, log: Callable[[str], None]) -> ResumeState | None:
        """The state this run continues from (None: none was left; start from the original)."""
        state = load(self.path)
        if state is None:
            log(f"--resume: no usable state in {self.path.name}; starting from the original")
            return None
        if (state.original_key, state.configuration) != (self.original.candidate.key, self.configuration):
            raise ResumeRefused(refusals.RESUME_OTHER_RUN.say(path=self.path))
        self.stage, self.stop_phase, self._position = state.stage, state.stop_phase, state.position
        return state

    def improved(self, best: Proposal) -> None:
        self._best = best
        self._save()

    def at(self, position: Position) -> None:
        self._position = position
        self._save()

    def finished(self) -> None:
        self.stage = FINISHED
        self._save()

    def _save(self) -> None:
        save(self.path, ResumeState(
            original_key=self.original.candidate.key, configuration=self.configuration, stage=self.stage,
            best_ops=self._best.ops, stop_phase=self.stop_phase, position=self._position,
            **_of_candidate(self._best.candidate, self.keeps_data),
        ))
