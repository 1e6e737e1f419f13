"""Big 2 as a PettingZoo AEC environment (the classic ``env()`` / ``raw_env`` pattern).

==================== ==========================================================================
Import               ``big2_env.env()`` or ``pettingzoo.make("aec", "big2-v0")``
Actions              Discrete
Parallel API         Yes (``big2_env.parallel_env()``, turn-based)
Manual control       ``big2 play`` (terminal) and ``big2 serve`` (browser)
Agents               ``agents = ['player_0', 'player_1', 'player_2', 'player_3']``
Agents count         4
Action shape         ``Discrete(1695)``: a hand-slot index (:mod:`big2_env.observations.paper`)
Action values        0 .. 1694; 1694 is a pass
Observation shape    ``Dict``: ``observation`` (277,), ``action_mask`` (1695,), ``history``
                     (256, 6), ``candidate_actions`` (n,), ``candidate_features`` (n, 80)
Observation values   ``observation`` 0 .. 52 float32, ``action_mask`` 0/1 int8, ``history``
                     -1 .. 52 int16 (relative seat, then card ids; -1 rows after the last move)
Rewards              each seat's final score at the end (zero-sum), 0 before; an illegal move:
                     the worst score under the rules to the offender (``illegal_reward``)
==================== ==========================================================================

Version history:

* v0 (big2-env 0.2.0): ``"history"`` in the observation by default; an illegal move costs the
  worst score (was -1); typed keywords.
* v0 (big2-env 0.1.0): first release.

Example:
    >>> from big2_env import env
    >>> e = env()
    >>> e.reset(seed=42)
    >>> for agent in e.agent_iter():
    ...     obs, reward, termination, truncation, info = e.last()
    ...     action = None if termination or truncation else int(obs["candidate_actions"][0])
    ...     e.step(action)
    >>> sorted(info)
    ['scores', 'turns', 'winner']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv, ParallelEnv

from ..checks import is_number
from ..engine.game import NUM_PLAYERS, Game, worst_score
from ..engine.rules import Rules
from ..observations.decision import Decision, seat_numbers, seat_observation
from ..observations.extended import HistoryRows
from ..observations.paper import NUM_ACTIONS, check_step_action
from ..observations.spaces import (
    ActionSpace,
    check_history,
    check_observation_key,
    check_observation_kind,
    observation_space,
    vector_space,
)
from ..render.picture import render_rgb
from ..render.text import check_viewer, emit, render_table
from .wrappers import classic_wrap

AGENTS = tuple(f"player_{i}" for i in range(NUM_PLAYERS))


def env(
    *,
    rules: Rules | str | Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    candidate_view: bool = True,
    history: bool | None = None,
    observation: str = "paper",
    observation_key: str = "observation",
    mask_in_observation: bool = True,
    render_view: str | int | None = "current",
    illegal_reward: float | None = None,
) -> AECEnv:
    """Big 2 for four agents through PettingZoo's AEC API, wrapped as PettingZoo's classic envs are.

    Args:
        rules: a :class:`Rules`, a preset name (``"paper"``, ``"charlesworth"``) or a dict of rule options.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the table), ``"human"`` (printed after
            every step) or ``"rgb_array"`` (a ``(480, 640, 3)`` picture).
        candidate_view: add ``"candidate_actions"`` and ``"candidate_features"`` (the legal actions and
            their 80 features) to the observation (default ``True``; they are ``Sequence`` spaces,
            which some RL libraries do not take).
        history: add ``"history"``, the public move history (an int16 ``(256, 6)`` array, a row per
            move: :func:`big2_env.observations.extended.history_array`). On by default (``None``)
            wherever the observation is a ``Dict``; the agents that read it (the shipped networks,
            ``search-net``, Charlesworth's network, the searches) need it. ``False`` drops it.
        observation: ``"paper"`` (the 277 numbers) or ``"extended"`` (the 315 of
            :mod:`big2_env.observations.extended`, with who passed on what).
        observation_key: the key of the numbers, ``"observation"`` or ``"observations"`` (RLlib's).
        mask_in_observation: ``True``: the ``Dict`` observation with ``"action_mask"``; ``False``: the
            observation is the ``Box`` of numbers alone and each agent's ``info`` carries
            ``"action_mask"`` (AgileRL's place for it; needs ``candidate_view=False``; no history).
        render_view: whose hand rendering shows: ``"current"``, ``"all"``, ``"none"`` or a seat.
        illegal_reward: the reward of an agent whose action is in ``0..1694`` but not legal now: the
            game ends, the offender gets it and the others 0 (PettingZoo's ``TerminateIllegalWrapper``).
            Default: the worst score a seat can get under ``rules`` (-13 under the paper's scoring, -39
            under ``"hk"``), so an illegal move is never better than a legal loss. ``-1`` is
            PettingZoo's classic value.

    An action of the wrong type or out of range (a bool, float, string, ``-1``, ``1695``, or
    ``None`` for the agent on move) raises ``ValueError`` before any wrapper looks at it, with
    explicit checks that also hold under ``python -O``.

    Example:
        >>> import big2_env
        >>> e = big2_env.env(rules="charlesworth")
        >>> e.reset(seed=0)
        >>> obs, *_ = e.last()
        >>> sorted(obs), obs["history"].shape
        (['action_mask', 'candidate_actions', 'candidate_features', 'history', 'observation'], (256, 6))
    """
    raw = raw_env(
        render_mode=render_mode, rules=rules, candidate_view=candidate_view, render_view=render_view,
        observation=observation, observation_key=observation_key, mask_in_observation=mask_in_observation,
        history=history,
    )
    return classic_wrap(raw, check_illegal_reward(illegal_reward, raw.rules))


def check_illegal_reward(illegal_reward: object, rules: Rules) -> float:
    """The reward of an illegal move: ``illegal_reward``, or by default (``None``) the worst score a
    seat can get under ``rules``; ``ValueError`` for anything but ``None`` or a finite number."""
    if illegal_reward is None:
        return worst_score(rules)
    if not is_number(illegal_reward):
        raise ValueError(f"illegal_reward must be None (the worst score) or a finite number; got {illegal_reward!r}")
    return float(illegal_reward)  # type: ignore[arg-type]


def parallel_env(
    *,
    rules: Rules | str | Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    candidate_view: bool = True,
    history: bool | None = None,
    observation: str = "paper",
    observation_key: str = "observation",
    mask_in_observation: bool = True,
    render_view: str | int | None = "current",
    illegal_reward: float | None = None,
) -> ParallelEnv:
    """The same game through PettingZoo's Parallel API (``pettingzoo.make("parallel", "big2-v0")``).

    Big 2 is turn-based, so this is PettingZoo's ``turn_based_aec_to_parallel`` over
    :func:`env` (same keywords, same meanings). Every ``step`` takes a dict with an action for
    every live agent, but only the action of the agent on move is played; the others'
    ``action_mask`` is all zeros, and any value (e.g. ``0``) may stand in their entries. Rewards
    are the final scores, given at the last step; an illegal action follows :func:`env`'s
    ``illegal_reward``.

    Example:
        >>> import numpy as np
        >>> from big2_env import parallel_env
        >>> p = parallel_env(candidate_view=False)
        >>> observations, infos = p.reset(seed=0)
        >>> while p.agents:
        ...     actions = {a: int(np.flatnonzero(o["action_mask"])[0]) if o["action_mask"].any() else 0
        ...                for a, o in observations.items()}
        ...     observations, rewards, terminations, truncations, infos = p.step(actions)
        >>> sum(rewards.values())
        0.0
    """
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(
        env(
            rules=rules, render_mode=render_mode, candidate_view=candidate_view, history=history,
            observation=observation, observation_key=observation_key, mask_in_observation=mask_in_observation,
            render_view=render_view, illegal_reward=illegal_reward,
        )
    )


class raw_env(AECEnv, EzPickle):
    """Big 2 for four agents ``player_0``..``player_3`` (seat order = agent order).

    Observations are dicts (see :func:`observation_space`); rewards are the final
    scores, given only at the end; ``infos`` then carry ``scores`` (per agent),
    ``winner`` (the winning seat, an int; its agent is ``f"player_{winner}"``) and
    ``turns``, all numbers (what Tianshou's buffers need). An illegal action raises
    ``ValueError`` naming the action and the legal ones.

    ``step`` takes an action index: a Python int, numpy integer or 0-d integer
    array in ``0..1694`` (:func:`big2_env.observations.paper.check_step_action`), or ``None`` for
    an agent that is done (as PettingZoo requires). Anything else (a bool, a float,
    a string, an out-of-range int, ``None`` for the agent on move) raises
    ``ValueError`` with the state unchanged. ``step``, ``observe``, ``last`` and
    ``render`` (with a render mode) before :meth:`reset` raise ``RuntimeError``.

    RLlib: ``raw_env(candidate_view=False, observation_key="observations", history=False)`` (or the same
    keywords to :func:`env`) gives exactly the dict RLlib's ``ActionMaskingTorchRLModule``
    expects, ``{"observations", "action_mask"}`` with no ``Sequence`` spaces, so
    ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`` takes it unchanged
    (see ``examples/rllib_ppo.py``).

    ``mask_in_observation=False`` (with ``candidate_view=False``): the observation is the ``Box``
    of numbers alone (277, or 315 with ``observation="extended"``) and the mask moves to
    ``infos``: after every ``reset`` and ``step`` each live agent's info is a new dict with
    ``"action_mask"`` (the mover's legal actions, all zeros for the others and once the game is
    over), beside ``scores``, ``winner`` and ``turns`` at the end. PettingZoo's
    ``TerminateIllegalWrapper`` reads it there, and AgileRL's multi-agent ``get_action(obs,
    infos=info)`` looks for it there (it rejects a mask inside the observation; AgileRL 2.58's
    IPPO then fails on numpy masks, see the README's library notes).
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "big2_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        render_mode: str | None = None,
        rules: Rules | str | Mapping[str, Any] | None = None,
        candidate_view: bool = True,
        render_view: str | int | None = "current",
        observation: str = "paper",
        observation_key: str = "observation",
        mask_in_observation: bool = True,
        history: bool | None = None,
    ):
        EzPickle.__init__(
            self, render_mode, rules, candidate_view, render_view, observation, observation_key, mask_in_observation,
            history,
        )
        super().__init__()
        if render_mode is not None and render_mode not in ("human", "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}; got {render_mode!r}")
        if not isinstance(candidate_view, bool):
            raise ValueError(f"candidate_view must be True or False; got {candidate_view!r}")
        if not isinstance(mask_in_observation, bool):
            raise ValueError(f"mask_in_observation must be True or False; got {mask_in_observation!r}")
        if not mask_in_observation:
            if candidate_view:
                raise ValueError("mask_in_observation=False makes the observation a Box: use it with candidate_view=False")
            if observation_key != "observation":
                raise ValueError("observation_key names an entry of the Dict observation: use it with mask_in_observation=True")
        self.history = check_history(history, mask_in_observation)
        self.render_mode = render_mode
        self.rules = Rules.coerce(rules)
        self.candidate_view = candidate_view
        self.observation_kind = check_observation_kind(observation)
        self.observation_key = check_observation_key(observation_key)
        self.mask_in_observation = mask_in_observation
        self.render_view = check_viewer(render_view)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._obs_space: spaces.Space = (
            observation_space(candidate_view, observation, observation_key, self.history)
            if mask_in_observation
            else vector_space(observation)
        )
        self._act_space = ActionSpace(NUM_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in AGENTS}
        self.action_spaces = {a: self._act_space for a in AGENTS}
        self._np_random: np.random.Generator | None = None
        self.game: Game | None = None
        self._decision: Decision | None = None
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._history_rows = HistoryRows()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.game = Game(self.rules, seed=self._np_random)
        self._decision = None
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.agent_selection = AGENTS[self.game.current_player]
        self.infos = self.agent_infos(self.agents)

    def current_decision(self) -> Decision:
        """The :class:`Decision` (observation, legal actions, plays, features) of the agent on move."""
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        if self._decision is None:
            self._decision = Decision(self.game)
        return self._decision

    def agent_infos(self, agents: list[str], final: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """New info dicts for ``agents``: ``final``'s entries (the end-of-game ``scores``, ``winner``, ``turns``)
        and, with ``mask_in_observation=False``, each one's ``"action_mask"``: the legal actions of the agent
        on move, zeros for the others and once the game is over."""
        game = self.game
        assert game is not None
        mover = None if game.is_over else AGENTS[game.current_player]
        infos: dict[str, dict[str, Any]] = {}
        for a in agents:
            infos[a] = dict(final) if final else {}
            if not self.mask_in_observation:
                infos[a]["action_mask"] = self.current_decision().action_mask() if a == mover else self._zero_mask.copy()
        return infos

    def observe(self, agent: str) -> Any:
        if self.game is None:
            raise RuntimeError("call reset() before observe()")
        try:
            seat = AGENTS.index(agent)
        except ValueError:
            raise ValueError(f"unknown agent {agent!r}; agents are {', '.join(AGENTS)}") from None
        game = self.game
        decision = self.current_decision() if not game.is_over and seat == game.current_player else None
        if not self.mask_in_observation:
            return seat_numbers(game, seat, decision, self.observation_kind == "extended")
        return seat_observation(game, seat, decision, self.observation_kind == "extended", self.candidate_view,
                                self._history_rows if self.history else None, self.observation_key)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.game is None:
            raise RuntimeError("call reset() before last()")
        return super().last(observe)

    def step(self, action: Any) -> None:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:  # the fast path skips the call
            action = check_step_action(action, agent, done=False)
        decision = self.current_decision()
        entry = decision.entry_for_action(action)
        if entry is None:
            raise ValueError(decision.illegal_message(action, agent))
        self._cumulative_rewards[agent] = 0.0
        game._apply(entry)
        self._decision = None
        winner = game.winner
        if winner is not None:
            scores = game.scores()
            self.rewards = {a: float(scores[i]) for i, a in enumerate(AGENTS)}
            self.terminations = {a: True for a in self.agents}
            final = {"scores": dict(zip(AGENTS, scores)), "winner": winner, "turns": game.turn}
            self.infos = self.agent_infos(self.agents, final)
            self.agent_selection = AGENTS[(winner + 1) % NUM_PLAYERS]
            self._accumulate_rewards()
        else:  # rewards stay zero until the end, so there is nothing to accumulate
            self.agent_selection = AGENTS[game.current_player]
            if not self.mask_in_observation:  # the mover's mask changed; otherwise the infos stay empty
                self.infos = self.agent_infos(self.agents)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return emit(None, "")  # a warning, nothing drawn (even before reset)
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, self.render_view)
        return emit(self.render_mode, render_table(self.game, self.render_view))
