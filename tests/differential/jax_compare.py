"""The JAX core against the compiled core, decision by decision: the equality proof that the tests and
``benchmarks/jax_vs_core.py`` run (a test harness, kept out of the package).

:func:`compare` deals the same games to both (the compiled vector env deals from a seed; the
JAX games are dealt the same hands), plays the same actions in both (a uniformly random legal
action, or with probability ``smart`` the paper's Smart choice, computed by the compiled core's
:func:`~big2_env.players.kernels.smart_play` from the compiled side's state) and compares, at every
decision of every game:

* the seat on move and the 1695-action mask;
* both views: the paper's 277 numbers and Charlesworth's 412 (two compiled envs, one per view,
  stepped with the same actions);
* after each step: rewards, terminal flags, winners, the games' lengths, the final scores, and
  the four hands (the whole hidden state);
* the same step taken by :meth:`~big2_env.jax.env.Big2.step_autoreset` (the training loops'
  step, dealing the next game in the same call): its rewards and terminal flags, and its whole
  state after the deal, against the plain step's followed by the deal.

Ended games are dealt again by the compiled env (same-step autoreset); the JAX rows are dealt
the same new hands. ``tests/differential/test_jax_core.py`` runs it briefly for every rule set it tests;
``benchmarks/jax_vs_core.py`` runs at least 100,000 decisions per rule set and records them.

Example (about ten seconds, most of it compiling)::

    from tests.differential.jax_compare import compare
    report = compare("charlesworth", decisions=100_000, num_envs=256, seed=0)
    assert report.equal, report.first_mismatch
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from big2_env.players.kernels import smart_play
from big2_env.engine.core.games import T_MASK, T_OPENING, T_PASSED, T_PLAYER
from big2_env.engine.rules import Rules
from big2_env.envs.batch.layout import H0, T0
from big2_env.envs.vector import vector_env
from big2_env.observations.compiled import SLOT_INDEX, action_index
from big2_env.jax.env import Big2
from big2_env.jax.game import GameState
from big2_env.jax.views import charlesworth_observation, paper_observation

__all__ = ["FIELDS", "Report", "compare", "decks_from_hands"]

FIELDS = ("current_player", "action_mask", "paper", "charlesworth", "rewards", "terminated", "winner", "turns", "scores",
          "hands", "autoreset")
"""What is compared (see the module docstring)."""


@dataclass
class Report:
    """What :func:`compare` found: decisions and games compared, mismatches per field (none: equal)."""

    rules: dict[str, Any]
    seed: int
    smart: float
    decisions: int = 0
    games: int = 0
    smart_moves: int = 0
    mismatches: dict[str, int] = field(default_factory=dict)
    first_mismatch: str = ""

    @property
    def equal(self) -> bool:
        return not self.mismatches

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules, "seed": self.seed, "smart": self.smart, "decisions": self.decisions,
                "games": self.games, "smart_moves": self.smart_moves, "mismatches": dict(self.mismatches),
                "first_mismatch": self.first_mismatch}


def decks_from_hands(hands: np.ndarray) -> np.ndarray:
    """Decks (``(N, 52)`` int32) that deal the hands ``hands`` (``(N, 4)`` int64 card masks, the compiled
    env's :meth:`~big2_env.envs.vector.Big2VectorEnv.hands`): each seat's cards ascending.

    >>> decks_from_hands(np.array([[0xF, 0xF0, 0xF00, (1 << 52) - 1 - 0xFFF]]))[0, :6].tolist()
    [0, 1, 2, 3, 4, 5]
    """
    bits = (hands[:, :, None] >> np.arange(52)) & 1  # (N, 4, 52)
    order = np.argsort(-bits, axis=2, kind="stable")[:, :, :13]  # each seat's held cards, ascending
    return order.reshape(len(hands), 52).astype(np.int32)


def _masks_to_bool(hands: np.ndarray) -> np.ndarray:
    return ((hands[:, :, None] >> np.arange(52)) & 1).astype(bool)


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if (mask >> c) & 1]


def compare(
    rules: Rules | str | Mapping[str, Any] | None = None,
    decisions: int = 2_000,
    num_envs: int = 64,
    seed: int = 0,
    smart: float = 0.5,
) -> Report:
    """Play at least ``decisions`` decisions in ``num_envs`` games at a time in both cores and compare them.

    Args:
        rules: the rule set (a :class:`~big2_env.engine.rules.Rules`, preset name or dict).
        decisions: how many decisions to compare at least (a whole number of steps of all games).
        num_envs: games stepped together.
        seed: the deals' and the choices' seed.
        smart: the chance that a decision is Smart's rather than a random legal action.
    """
    if not isinstance(decisions, int) or decisions < 1:
        raise ValueError(f"decisions must be a positive int; got {decisions!r}")
    if not isinstance(num_envs, int) or not 1 <= num_envs <= 65_536:
        raise ValueError(f"num_envs must be an int in 1..65,536; got {num_envs!r}")
    if not 0.0 <= smart <= 1.0:
        raise ValueError(f"smart must be a probability in [0, 1]; got {smart!r}")
    rules = Rules.coerce(rules)
    report = Report(rules=rules.to_dict(), seed=seed, smart=smart)
    paper = vector_env(num_envs, seed=seed, rules=rules, observation="paper")
    his = vector_env(num_envs, seed=seed, rules=rules, observation="charlesworth")
    obs, _ = paper.reset()
    obs_cw, _ = his.reset()
    env = Big2(rules)
    deal = jax.jit(jax.vmap(env.init_deck))
    state = deal(decks_from_hands(paper.hands()))

    @jax.jit
    def views(state: Any) -> tuple[Any, Any]:
        return (jax.vmap(paper_observation)(state._x, state.current_player),
                jax.vmap(charlesworth_observation)(state._x, state.current_player))

    @jax.jit
    def advance(state: Any, actions: Any) -> Any:
        stepped = jax.vmap(env.step)(state, actions)
        return stepped, jax.vmap(env.scores)(stepped), stepped._x.winner

    @jax.jit
    def autoreset(state: Any, actions: Any, decks: Any) -> Any:
        return jax.vmap(lambda s, a, d: env.step_autoreset(s, a, deck=d))(state, actions, decks)

    @jax.jit
    def redeal(state: Any, fresh: Any, ended: Any) -> Any:
        def pick(old: Any, new: Any) -> Any:
            return jnp.where(ended.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)
        return jax.tree.map(pick, state, fresh)

    rng = np.random.default_rng(seed + 1)

    def check(name: str, ours: Any, theirs: Any) -> None:
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        bad = ours != theirs
        if bad.ndim > 1:
            bad = bad.reshape(len(bad), -1).any(axis=1)
        if bad.any():
            report.mismatches[name] = report.mismatches.get(name, 0) + int(bad.sum())
            if not report.first_mismatch:
                g = int(np.flatnonzero(bad)[0])
                report.first_mismatch = (f"{name} of game {g} after {report.decisions} decisions: jax {ours[g].tolist()} "
                                         f"!= core {theirs[g].tolist()}")

    while report.decisions < decisions:
        masks = obs["action_mask"]
        ours_paper, ours_cw = views(state)
        check("current_player", state.current_player, obs["current_player"])
        check("action_mask", state.legal_action_mask, masks)
        check("paper", ours_paper, obs["observation"])
        check("charlesworth", ours_cw, obs_cw["observation"])
        actions = np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)  # a uniform legal action
        compiled = paper._state
        for g in np.flatnonzero(rng.random(num_envs) < smart):
            player = int(compiled[g, T0 + T_PLAYER])
            hand = int(compiled[g, H0 + player])
            trick = int(compiled[g, T0 + T_MASK])
            locked = bool((compiled[g, T0 + T_PASSED] >> player) & 1) and rules.pass_locks and trick != 0
            play = smart_play(_cards(hand), _cards(trick), rules, opening=bool(compiled[g, T0 + T_OPENING]), locked=locked)
            actions[g] = action_index(play, hand, SLOT_INDEX)
            report.smart_moves += 1
        obs, rewards, terminated, _, infos = paper.step(actions)
        obs_cw, rewards_cw, terminated_cw, _, _ = his.step(actions)
        hands = paper.hands()
        decks = decks_from_hands(hands)  # the next deals of the games that ended, the same hands elsewhere
        together = autoreset(state, jnp.asarray(actions, dtype=jnp.int32), decks)
        state, scores, winners = advance(state, jnp.asarray(actions, dtype=jnp.int32))
        report.decisions += num_envs
        check("rewards", state.rewards, rewards)
        check("terminated", state.terminated, terminated)
        check("winner", np.where(terminated, winners, -1), infos["winner"])
        check("turns", np.where(terminated, state._step_count, 0), infos["turns"])
        check("scores", scores, rewards.astype(np.int64))
        check("rewards", rewards, rewards_cw)  # the two compiled envs agree too
        check("terminated", terminated, terminated_cw)
        check("rewards", together.rewards, rewards)
        check("terminated", together.terminated, terminated)
        ended = np.asarray(state.terminated)
        report.games += int(ended.sum())
        if ended.any():
            state = redeal(state, deal(decks), jnp.asarray(ended))
        check("hands", state._x.hands, _masks_to_bool(hands))
        for name in ("observation", "legal_action_mask", "current_player"):
            check(f"autoreset {name}", getattr(together, name), getattr(state, name))
        for name in GameState._fields:
            check(f"autoreset {name}", getattr(together._x, name), getattr(state._x, name))
    return report
