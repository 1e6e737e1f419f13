"""Opponent policies in chosen seats, as a PettingZoo AEC env of the remaining seats.

:func:`opponents_env` gives some seats to policies (heuristics, the search agent, a
network, any object with ``act(obs)``) and plays their turns inside ``reset`` and
``step``, so the env's agents are only the other seats: two learners against two Smart
players, or one learner against three (the Gymnasium env,
:class:`big2_env.envs.gym.Big2SingleAgentEnv`, plays its opponents through the same
:func:`play_opponents`). Everything else is the plain env's: observations, spaces,
options (``rules``, ``candidate_view``, ``observation``, ``render_mode``), and each
learner receives its final score as reward at the end. It passes PettingZoo's
``api_test`` and ``seed_test``.

Example:
    >>> from big2_env import opponents_env
    >>> e = opponents_env({"player_1": "smart", "player_3": "smart"})
    >>> e.reset(seed=0)
    >>> e.possible_agents
    ['player_0', 'player_2']
    >>> for agent in e.agent_iter():
    ...     obs, reward, termination, truncation, info = e.last()
    ...     e.step(None if termination or truncation else int(obs["candidate_actions"][0]))
    >>> e.agents, info["winner"] in range(4), sorted(info["scores"])
    ([], True, ['player_0', 'player_1', 'player_2', 'player_3'])
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from .aec import AGENTS, check_illegal_reward, raw_env
from ..observations.decision import Decision
from ..evaluation.loading import resolve_policy
from ..observations.decision import PolicyObservation
from ..players.base import policy_actions
from ..engine.game import NUM_PLAYERS, Game
from .wrappers import classic_wrap

__all__ = ["OpponentsEnv", "opponents_env", "play_opponents", "seed_policies"]


def play_opponents(game: Game, seats: Mapping[int, Any]) -> None:
    """Play the turns of the seats in ``seats`` (seat -> policy) until another seat is on move or
    the game is over. Each policy sees its :class:`~big2_env.observations.decision.PolicyObservation` (the
    extended one if it asks for it); an illegal choice raises ``ValueError`` naming the policy."""
    while game.winner is None and game.current_player in seats:
        decision = Decision(game)
        policy = seats[decision.player]
        action = policy_actions(policy, [PolicyObservation(decision)])[0]
        game._apply(decision.require_entry(action, f"opponent policy {policy!r} in seat {decision.player}"))


def seed_policies(policies: list[Any], seed: int) -> None:
    """Seed each distinct policy object of ``policies`` (in order) from ``seed``, independently of the
    deal's random stream."""
    derived = np.random.SeedSequence(seed, spawn_key=(0xB162,)).generate_state(len(policies), np.uint64)
    seen: set[int] = set()
    for policy, child in zip(policies, derived):
        if id(policy) in seen or not hasattr(policy, "seed"):
            continue
        seen.add(id(policy))
        policy.seed(int(child))


def _seat_of(key: Any) -> int:
    if isinstance(key, str) and key in AGENTS:
        return AGENTS.index(key)
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < NUM_PLAYERS:
        return int(key)
    raise ValueError(f"opponent seats are agent names {', '.join(AGENTS)} or seats 0..3; got {key!r}")


class OpponentsEnv(AECEnv, EzPickle):
    """The raw AEC env with some seats played by policies (see the module docstring).

    Args:
        opponents: a dict from seat (``0..3`` or ``"player_k"``) to a policy: an agent spec
            of :func:`big2_env.evaluation.loading.load_agent` (``"smart"``, ``"search"``,
            ``"pretrained"``, a model path; one instance per seat) or an object with
            ``act(obs)``. One to three seats.
        **kwargs: the plain env's keywords (``rules``, ``candidate_view``, ``observation``,
            ``render_mode``, ``render_view``, ``observation_key``, ``mask_in_observation``).

    ``reset(seed=s)`` also seeds the opponent policies from ``s``, so a seed fixes the whole
    game; ``reset()`` without a seed continues their streams.
    """

    def __init__(self, opponents: Mapping[Any, Any], **kwargs: Any) -> None:
        EzPickle.__init__(self, opponents, **kwargs)
        super().__init__()
        if not isinstance(opponents, Mapping):
            raise ValueError(f"opponents must be a dict from seat to policy; got {opponents!r}")
        seats = {_seat_of(k): v for k, v in opponents.items()}
        if len(seats) != len(opponents) or not 1 <= len(seats) <= NUM_PLAYERS - 1:
            raise ValueError(f"opponents must name 1 to 3 distinct seats; got {list(opponents)}")
        self.base = raw_env(**kwargs)
        rules = self.base.rules
        self.seats = {seat: resolve_policy(p, f"opponents[{AGENTS[seat]!r}]", rules) for seat, p in sorted(seats.items())}
        self.possible_agents = [a for i, a in enumerate(AGENTS) if i not in self.seats]
        self.agents = list(self.possible_agents)
        self.metadata = dict(self.base.metadata, name="big2_v0_opponents")
        self.render_mode = self.base.render_mode
        self.observation_spaces = {a: self.base.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.base.action_space(a) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None

    def observation_space(self, agent: str) -> Any:
        return self.base.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        return self.base.action_space(agent)

    @property
    def game(self) -> Game | None:
        return self.base.game

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
            seed_policies(list(self.seats.values()), int(self._np_random.integers(2**63)))
        self.base.reset(seed=int(self._np_random.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()

    def observe(self, agent: str) -> Any:
        if agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}; this env's agents are {', '.join(self.possible_agents)}")
        return self.base.observe(agent)

    def step(self, action: Any) -> None:
        if self.base.game is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.base.step(action)  # checks the action (ValueError, state unchanged, when illegal)
        self._cumulative_rewards[agent] = 0.0
        self._advance()

    def _advance(self) -> None:
        """Play the opponents' turns; then hand the move to a learner, or end the game for all."""
        game = self.base.game
        assert game is not None
        play_opponents(game, self.seats)
        self.base._decision = None
        if game.winner is None:
            self.agent_selection = self.base.agent_selection = AGENTS[game.current_player]
            if not self.base.mask_in_observation:  # each learner's mask goes in its info
                self.infos = self.base.agent_infos(self.agents)
            return
        scores = game.scores()
        final = {"scores": dict(zip(AGENTS, scores)), "winner": game.winner, "turns": game.turn}
        self.rewards = {a: float(scores[AGENTS.index(a)]) for a in self.agents}
        self.terminations = {a: True for a in self.agents}
        self.infos = self.base.agent_infos(self.agents, final)
        after = [(AGENTS.index(a) - game.winner - 1) % NUM_PLAYERS for a in self.agents]
        self.agent_selection = self.agents[after.index(min(after))]  # the first learner after the winner
        self._accumulate_rewards()

    def render(self) -> Any:
        return self.base.render()

    def close(self) -> None:
        self.base.close()


def opponents_env(opponents: Mapping[Any, Any], illegal_reward: float | None = None, **kwargs: Any) -> AECEnv:
    """:class:`OpponentsEnv` with PettingZoo's classic wrappers, as :func:`big2_env.env` has them: an
    illegal action ends the game with ``illegal_reward`` for the offender (default: the worst score
    under the env's rules, see :func:`big2_env.envs.aec.env`)."""
    raw = OpponentsEnv(opponents, **kwargs)
    return classic_wrap(raw, check_illegal_reward(illegal_reward, raw.base.rules))
