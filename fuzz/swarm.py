"""Swarm testing with feedback: feature probabilities that follow what cases reached.

Plain swarm testing turns each feature on with a fixed chance per case. With feedback, a case
that reached a dispatch configuration seen fewer than `RARE` times before (a target, codegen
pipeline, MMA intrinsic and op kind: `fuzz.coverage`) or a failure signature never seen before
raises the chance of the features its graph used; a case that reached only well-trodden ground
lowers it a little. The probabilities are then scaled back to their starting mean, so feedback
moves weight between features rather than making every graph smaller or larger.

A failure already known (in the corpus, or found earlier in the campaign) teaches nothing when
it shows again, and it stops its pipeline short of running and comparing the case. So feedback
also steers away from it, each time it shows again, through the feature that tells its cases
apart best: of the features every case that showed it had (which narrow to what the failure
needs as cases come), the one the other cases had least often (all of them, on a tie). A
failure of uint8 outputs lowers `uint8`, not `quant`, which the cases without it have as often.
Nothing is ruled out: a probability never falls below `FLOOR`. Features a campaign requires
(`fuzz run --require dynamic`) are on in every case and take no part in the feedback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from fuzz.generation.features import BASE_PROBABILITY

RARE = 2  # a configuration seen fewer times than this is still rare
REWARD_NEW_SIGNATURE, REWARD_RARE_CONFIG = 1.0, 0.5
RATE, DECAY = 0.15, 0.03
# A known failure showing again multiplies its telltale feature's chance by 1 - this.
REPEAT_PENALTY = 0.7
FLOOR, CEILING = 0.05, 0.95


class SwarmFeedback:
    def __init__(self, enabled: bool = True, known: Iterable[str] = (), required: Iterable[str] = (),
                 base: dict[str, float] = BASE_PROBABILITY) -> None:
        """`known`: failure signatures already known before the campaign (its corpus); `required`:
        features on in every case; `base`: the front end's catalogue and each feature's starting
        chance (the ONNX generator's, or `fuzz.torch_gen.features`' for PyTorch cases)."""
        self.enabled = enabled
        self.required = frozenset(required)
        self.base = dict(base)
        unknown = sorted(self.required - set(self.base))
        if unknown:
            raise ValueError(f"unknown feature {unknown[0]!r}; valid: {', '.join(self.base)}")
        self.p: dict[str, float] = dict(self.base)
        self._mean = sum(self.p.values()) / len(self.p)
        self.configs: Counter = Counter()
        self.signatures: set[str] = set()
        self.known = frozenset(known)
        self.common: dict[str, set[str]] = {}  # signature -> the features every case that showed it had
        self.hits: Counter = Counter()  # signature -> cases that showed it
        self.used: Counter = Counter()  # feature -> cases that used it
        self.cases = 0
        self.rewarded = 0  # cases that reached something rare or new
        self.repeats = 0  # cases whose every failure was already known

    def probabilities(self) -> tuple[tuple[str, float], ...] | None:
        """What the next case is drawn with (None: the generator's own defaults)."""
        if not self.enabled and not self.required:
            return None
        chances = self.p if self.enabled else self.base
        return tuple(sorted({**chances, **{f: 1.0 for f in self.required}}.items()))

    def observe(self, used: Iterable[str], configs: Iterable[tuple], signatures: Iterable[str]) -> float:
        """Counts what a case reached; returns its reward (and, when enabled, learns from it)."""
        used, configs, signatures = set(used) & set(self.base), list(configs), set(signatures)
        rare = any(self.configs[c] < RARE for c in configs)
        seen = {s for s in signatures if s in self.signatures or s in self.known}
        new = bool(signatures - seen)
        again = {s for s in seen if s in self.common}  # an earlier case of the campaign showed it too
        self.cases += 1
        self.used.update(used)
        for signature in signatures:
            self.common[signature] = self.common.get(signature, used) & used
            self.hits[signature] += 1
        steer_from = set().union(*(self._telltales(s) for s in again))
        self.configs.update(configs)
        self.signatures |= signatures
        reward = REWARD_NEW_SIGNATURE if new else REWARD_RARE_CONFIG if rare else 0.0
        self.rewarded += reward > 0
        self.repeats += bool(signatures) and not new
        if self.enabled:
            self._learn(used, reward, steer_from if not new else set())
        return reward

    def _telltales(self, signature: str) -> set[str]:
        """Of the features every case with `signature` had, those the cases without it had least often."""
        others = max(1, self.cases - self.hits[signature])
        rate = {f: (self.used[f] - self.hits[signature]) / others for f in self.common[signature]}
        return {f for f, r in rate.items() if r == min(rate.values())}

    def _learn(self, used: set[str], reward: float, steer_from: set[str]) -> None:
        for feature in used:
            p = self.p[feature]
            self.p[feature] = p + RATE * reward * (1 - p) if reward else p * (1 - DECAY)
        for feature in steer_from:
            self.p[feature] *= 1 - REPEAT_PENALTY
        scale = self._mean / (sum(self.p.values()) / len(self.p))
        for feature, p in self.p.items():
            self.p[feature] = min(CEILING, max(FLOOR, p * scale))
