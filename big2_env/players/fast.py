"""The fast learned move model: a linear score over a few features of each legal move.

:class:`FastModel` holds the weights (a small JSON file: the feature names and one weight each,
the rules they were fitted under, how they were fitted); the features are computed in the
compiled core (:mod:`big2_env.players.kernels.fast`, where they are listed and explained). Two ways
to play it:

* :class:`FastPolicy` (agent spec ``fast``, or ``fast:PATH.json``) at the table: its best move,
  or a sampled one; ``probabilities(obs)`` gives its move distribution, so that
  ``experiments/scripts/predict_moves.py`` can measure how well it predicts a strong player;
* :class:`~big2_env.players.valuers.FastRollout` as the search's rollout policy (``SearchPolicy(rollout="fast")``), which
  the compiled core plays inside its play-outs, for the opponents (and with ``own=True`` the
  searcher's own later moves too), at a few times Smart's cost a move.

The package ships weights fitted under the paper's rules and under Charlesworth's
(``big2_env/players/data/fast_<preset>.json``), each distilled by :mod:`agents.learners.fast_policy`
from the default recipe's network under those rules: ``pretrained-default-recipe``, and the
1.81M-game model (batch 3,538) of the run in ``experiments/results/long/README.md``.
:meth:`FastModel.smart` gives the weights that make exactly Smart's moves (a test checks it).

Example:
    >>> from big2_env import evaluate
    >>> from big2_env.players.fast import FastPolicy
    >>> evaluate(FastPolicy(), "random", n_games=4, seed=0).n_games
    4
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..engine.combos import Entry, classify
from ..engine.native import rules_array
from ..engine.rules import Rules
from ..observations.paper import entry_action_indices
from .base import Observation, Policy, legal_actions
from .public import public_state, state_game

__all__ = ["FastModel", "FastPolicy", "as_model", "entry_features", "features", "shipped_model", "softmax"]

DATA = Path(__file__).resolve().parent / "data"
SHIPPED = {"paper": "fast_paper.json", "charlesworth": "fast_charlesworth.json"}
"""The shipped weights per rules preset (files in :data:`DATA`)."""


def features() -> tuple[str, ...]:
    """The model's feature names, in their column order (:data:`big2_env.players.kernels.fast.FEATURES`)."""
    from .kernels.fast import FEATURES  # here: importing the package loads no numba

    return FEATURES


@dataclass(frozen=True)
class FastModel:
    """Weights of the fast move model, one per feature of :data:`~big2_env.players.kernels.fast.FEATURES`."""

    weights: np.ndarray
    rules: str = "paper"
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        weights = np.asarray(self.weights, dtype=np.float64)
        n_features = len(features())
        if weights.shape != (n_features,) or not np.all(np.isfinite(weights)):
            raise ValueError(f"a fast model has {n_features} finite weights (one per feature); got shape {weights.shape}")
        object.__setattr__(self, "weights", weights)

    @classmethod
    def smart(cls, rules: str = "paper") -> "FastModel":
        """The weights whose best move is always Smart's own choice."""
        names = features()
        weights = np.zeros(len(names))
        weights[names.index("smart_choice")] = 1.0
        weights[names.index("pass_x_smart_pass")] = 2.0
        return cls(weights, rules, {"what": "Smart's own choice"})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "FastModel":
        """Read a model file (JSON: ``{"features": {name: weight}, "rules": ..., "info": {...}}``).
        ``ValueError`` when its features are not exactly :data:`FEATURES`."""
        data = json.loads(Path(path).read_text())
        named, names = (data.get("features") if isinstance(data, dict) else None), features()
        if not isinstance(named, dict) or sorted(named) != sorted(names):
            raise ValueError(f"{path}: a fast model file names exactly the features {', '.join(names)}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in named.values()):
            raise ValueError(f"{path}: every weight must be a number")
        return cls(np.array([named[name] for name in names], dtype=np.float64), str(data.get("rules", "paper")),
                   dict(data.get("info", {})))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model file :meth:`load` reads."""
        named = {name: round(float(w), 6) for name, w in zip(features(), self.weights)}
        Path(path).write_text(json.dumps({"rules": self.rules, "features": named, "info": self.info}, indent=1) + "\n")


def shipped_model(rules: Rules | str | dict | None = None) -> FastModel:
    """The shipped weights for ``rules``: those fitted under the paper's rules, or under
    Charlesworth's; ``ValueError`` for other rules (fit your own with :mod:`agents.learners.fast_policy`)."""
    rules = Rules.coerce(rules)
    for preset, name in SHIPPED.items():
        if rules == Rules.coerce(preset):
            return FastModel.load(DATA / name)
    raise ValueError(f"no fast model ships for {rules}: the package has weights for the presets {', '.join(SHIPPED)}")


def entry_features(hand: int, entries: Sequence[Entry], trick: tuple[int, ...] | None, left: Sequence[int],
                   passes: int, rules: Rules) -> np.ndarray:
    """The features (one row per entry, :data:`FEATURES` columns) of the legal ``entries`` of the
    player on move (:meth:`Game.legal_entries`: the plays in the engine's order, then pass when
    legal), who holds ``hand`` (bitmask); ``left``: the cards each seat holds from the mover's seat
    on, ``passes`` the passes since ``trick`` was played."""
    from .kernels.fast import N_FEATURES, fast_features  # here: importing the package loads no numba

    plays = [e for e in entries if e[1]]
    k = len(plays)
    masks = np.array([e[2] for e in plays], dtype=np.int64)
    sizes = np.array([len(e[1]) for e in plays], dtype=np.int64)
    strengths = np.array([e[0] for e in plays], dtype=np.int64)
    categories = np.array([e[3] for e in plays], dtype=np.int64)
    trick_size = trick_category = trick_mask = 0
    if trick:
        combo = classify(trick, rules)
        if combo is None:
            raise ValueError(f"the trick {trick} is not a legal combination under {rules}")
        trick_size, trick_category, trick_mask = len(trick), combo.category, sum(1 << c for c in trick)
    out = np.empty((k + 1, N_FEATURES))
    total = fast_features(hand, masks, sizes, strengths, categories, np.arange(k, dtype=np.int64), k, trick_size,
                          trick_category, trick_mask, np.array(left, dtype=np.int64), passes, rules_array(rules),
                          np.empty(max(k, 1), dtype=np.int64), out)
    if total != len(entries):
        raise ValueError(f"{len(entries)} legal entries, but the position has {total} legal moves")
    return out[:total]


def softmax(scores: np.ndarray) -> np.ndarray:
    """The move probabilities ``softmax(scores)`` of one position's legal moves."""
    z = np.exp(scores - scores.max())
    return z / z.sum()


class FastPolicy(Policy):
    """The fast move model at the table (agent spec ``fast``): its best move (default) or, with
    ``sample=True``, a move drawn from its distribution. Decides from the observation alone.

    Args:
        model: a :class:`FastModel`, a model file, or ``None`` for the shipped weights of ``rules``.
        rules: the game's rule set.
        sample: sample the move instead of playing the best.
        seed: seed of the sampling.
    """

    name = "fast"

    def __init__(self, model: FastModel | str | Path | None = None, rules: Rules | str | dict | None = None,
                 sample: bool = False, seed: int | None = None) -> None:
        self.rules = Rules.coerce(rules)
        self.model = as_model(model, self.rules)
        self.sample = bool(sample)
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _scores(self, obs: Observation) -> tuple[list[int], np.ndarray]:
        legal = sorted(int(a) for a in legal_actions(obs).tolist())
        if len(legal) == 1:  # nothing to weigh (a pass forced, or a seat locked out by a pass under pass_locks,
            return legal, np.zeros(1)  # which the public state cannot tell: the view says who else passed, not you)
        state = public_state(obs)
        game = state_game(state, [state.hand_mask, 0, 0, 0], self.rules)
        entries = game.legal_entries()
        actions = entry_action_indices(entries, state.hand_mask)
        if sorted(actions) != legal:
            raise ValueError("the observation's legal actions differ from those of its public state under "
                             f"{self.rules}: is the fast policy given the game's rules?")
        features = entry_features(state.hand_mask, entries, state.trick, state.cards_left, state.passes, self.rules)
        return actions, features @ self.model.weights

    def probabilities(self, obs: Observation) -> dict[int, float]:
        """``{action: probability}`` over the legal actions: ``softmax(w . phi)``."""
        actions, scores = self._scores(obs)
        return dict(zip(actions, softmax(scores).tolist()))

    def act(self, obs: Observation) -> int:
        actions, scores = self._scores(obs)
        if len(actions) == 1:
            return actions[0]
        if self.sample:
            return actions[int(self.rng.choice(len(actions), p=softmax(scores)))]
        return actions[int(np.argmax(scores))]

    def __repr__(self) -> str:
        return f"FastPolicy(rules={self.rules!r}, sample={self.sample})"


def as_model(model: FastModel | str | os.PathLike[str] | None, rules: Rules) -> FastModel:
    """``model`` as a :class:`FastModel`: itself, read from its file, or the shipped weights of ``rules`` (``None``)."""
    if model is None:
        return shipped_model(rules)
    if isinstance(model, FastModel):
        return model
    if isinstance(model, (str, os.PathLike)):
        return FastModel.load(model)
    raise TypeError(f"model must be a FastModel, a model file or None (the shipped weights); got {model!r}")

