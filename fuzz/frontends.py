"""The front ends a campaign draws its cases from: ONNX graphs (the default) and PyTorch programs.

`--frontend onnx` draws every case as before (the same seed gives the same graphs); `torch` draws
PyTorch programs (`fuzz/torch_gen/`); `both` gives each case to the front end that has had less
of the campaign's time so far, so a nightly job splits its time between them (case by case while
their cases take alike). Each front end numbers its own cases: the ONNX cases of a `both` run are
those of an ONNX run with its seed. This module never imports torch; a PyTorch case's worker does.
"""

from __future__ import annotations

import json
from collections import Counter

from oracles.torch import torch_missing

ONNX, TORCH, BOTH = "onnx", "torch", "both"
FRONTENDS = (ONNX, TORCH, BOTH)


def frontends_of(choice: str) -> tuple[str, ...]:
    return (ONNX, TORCH) if choice == BOTH else (choice,)


def torch_needed(choice: str) -> str | None:
    """Why this Python cannot run `--frontend choice` (one line, with the install command), or None."""
    return torch_missing() if TORCH in frontends_of(choice) else None


def base_probabilities(frontend: str) -> dict[str, float]:
    """The front end's swarm catalogue and each feature's starting chance."""
    if frontend == TORCH:
        from fuzz.torch_gen.features import TORCH_BASE_PROBABILITY

        return TORCH_BASE_PROBABILITY
    from fuzz.generation.features import BASE_PROBABILITY

    return BASE_PROBABILITY


def frontend_of(spec_json: str) -> str:
    """Which front end a stored case's spec came from (an ONNX spec names none)."""
    try:
        return TORCH if json.loads(spec_json).get("frontend") == TORCH else ONNX
    except (ValueError, AttributeError):
        return ONNX


def used_features(spec_json: str) -> frozenset[str]:
    """What a case's program exercised, for swarm feedback: an ONNX graph's nodes, a PyTorch
    program's blocks (none for a case whose every draw torch.export rejected)."""
    if frontend_of(spec_json) == TORCH:
        return frozenset(json.loads(spec_json).get("used", ()))
    from fuzz.spec import GraphSpec
    from fuzz.spec import used_features as graph_features

    return graph_features(GraphSpec.from_json(spec_json))


def case_ops(spec_json: str) -> list[str]:
    """The ops of a case's program: its ONNX nodes' types, or the exported PyTorch program's ops."""
    spec = json.loads(spec_json)
    if spec.get("frontend") == TORCH:
        return sorted(spec.get("ops", ()))
    return sorted({node[0] for node in spec.get("nodes", [])})


class Schedule:
    """Which front end the next case goes to: the one whose cases have taken the fewest seconds
    (ONNX first on a tie), and the index of that front end's next case."""

    def __init__(self, choice: str) -> None:
        self.frontends = frontends_of(choice)
        self.seconds: Counter = Counter({f: 0.0 for f in self.frontends})
        self.drawn: Counter = Counter()

    def next(self) -> tuple[str, int]:
        frontend = min(self.frontends, key=lambda f: (self.seconds[f], self.frontends.index(f)))
        self.drawn[frontend] += 1
        return frontend, self.drawn[frontend] - 1

    def spent(self, frontend: str, seconds: float) -> None:
        self.seconds[frontend] += seconds
