"""A Gymnasium single-agent env: the learner holds one seat, opponent policies the other three.

Example:
    >>> from big2_env.envs.gym import Big2SingleAgentEnv
    >>> env = Big2SingleAgentEnv(opponents="random")
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), info["learner_seat"] in range(4)
    (['action_mask', 'history', 'observation'], True)
    >>> terminated = False
    >>> while not terminated:
    ...     action = int(env.action_masks().nonzero()[0][0])  # any legal action
    ...     obs, reward, terminated, truncated, info = env.step(action)
    >>> reward == info["scores"][info["learner_seat"]]
    True

Registered with Gymnasium as ``"Big2-v0"`` by :func:`register_gymnasium`
(``gymnasium.make("Big2-v0", opponents="greedy")``; keywords go to the constructor).

Design:

* **Seats.** The learner's seat is drawn each episode from the env's ``np_random``
  (uniform over 0..3), or fixed with ``learner_seat=k``; ``reset(options={"learner_seat": k})``
  fixes it for one episode. Opponent moves are played inside ``reset`` and ``step``
  directly on the engine until the learner is on move or the game is over, so each
  ``step`` is one learner decision.
* **Observations.** The learner's observation at its decision, in the same ``Dict`` as
  the PettingZoo env (:func:`big2_env.envs.aec.observation_space`). ``candidate_view``
  defaults to ``False`` here: Stable-Baselines3 supports only flat ``Dict``/``Box``
  spaces, not the ``Sequence`` spaces of the candidate view. With ``True`` the
  observation also has ``"candidate_actions"`` and ``"candidate_features"``; it passes
  Gymnasium's checker, while SB3's only warns that ``Sequence`` spaces are unsupported
  (and skips its value checks): SB3 algorithms cannot train on it. ``"history"`` (on by
  default, ``history=False`` drops it) is the public move history, a fixed-size ``Box`` that
  every library batches, which the agents that read the history need (see ``history``). At
  the end of an episode the observation is the learner's information state with an all-zero
  mask (empty candidates).
* **Rewards.** The learner's final score (section 2 of the spec) on the last step, 0
  before. ``terminated`` at game end; never ``truncated`` (a game always ends, within
  a few hundred decisions).
* **Info.** Always ``learner_seat``; with ``mask_in_observation=False`` also
  ``action_mask`` (what AgileRL's ``PPO`` rollouts read). On the last step also ``scores`` (per seat 0..3),
  ``winner`` (seat), ``turns`` (all players' decisions), ``illegal_action`` (bool) and
  ``is_success`` (the learner won; Stable-Baselines3 logs it as the success rate).
* **Illegal actions.** An action in ``0..1694`` that is not legal now:
  ``illegal_action="penalize"`` (default) ends the episode (``terminated=True``) with
  reward ``illegal_penalty`` and ``info["illegal_action"] = True`` (``scores`` and
  ``winner`` are then ``None``: the game was not finished). The default penalty is the
  worst score a seat can get under the rules (-13 for the paper's scoring, -39 for
  ``"hk"``: losing with all 13 cards), so an illegal move is never better than any
  legal line of play, yet does not dwarf the real score range the value function has
  to fit. This default lets ``gymnasium.utils.env_checker.check_env`` and SB3's
  ``check_env``, which step random unmasked actions, pass. With
  ``illegal_action="raise"`` the env raises ``ValueError`` naming the action and the
  legal ones, and its state is unchanged. Use ``action_masks()`` (sb3-contrib
  ``MaskablePPO``) or the ``"action_mask"`` entry to choose only legal actions.
  Anything that is not an int in ``0..1694`` raises ``ValueError`` in both modes.
* **Opponents** (``opponents=``): an agent spec of :func:`big2_env.evaluation.loading.load_agent`
  (a heuristic name, ``"pretrained"``, a ``.pt`` file, a run folder or a ``.zip``;
  three independent instances), a policy object (shared by all three seats), a list
  or tuple of three (names or objects) for the seats after the learner in clockwise
  order (next, across, previous), or a dict with keys ``1, 2, 3`` (seats clockwise
  from the learner) or ``"next", "across", "previous"``. Opponents see candidate-view
  observation mappings (see :class:`big2_env.observations.decision.PolicyObservation`).
* **Seeding.** ``reset(seed=s)`` reseeds ``np_random`` (deal and seat choice) and calls
  ``seed`` on every opponent policy with seeds derived from ``s``, so the same seed
  gives the same episode, and the same sequence of episodes after it. ``reset()``
  without a seed continues the streams.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from ..checks import is_int
from ..observations.spaces import check_history, check_observation_kind, observation_space
from ..observations.decision import Decision, seat_numbers, seat_observation
from ..observations.paper import NUM_ACTIONS, check_action
from ..evaluation.loading import resolve_policy
from ..observations.extended import HistoryRows
from ..engine.game import NUM_PLAYERS, Game, worst_score
from .opponents import play_opponents, seed_policies
from ..render.picture import render_rgb
from ..players.base import Policy
from ..render.text import emit, render_table
from ..engine.rules import Rules

__all__ = ["ENV_ID", "Big2SingleAgentEnv", "register_gymnasium"]

ENV_ID = "Big2-v0"
ILLEGAL_ACTION_MODES = ("penalize", "raise")
_RELATIVE_NAMES = {"next": 1, "across": 2, "previous": 3}


def register_gymnasium() -> None:
    """Register :class:`Big2SingleAgentEnv` with Gymnasium as ``"Big2-v0"`` (idempotent), with the compiled
    :class:`~big2_env.envs.vector_opponents.Big2OpponentsVectorEnv` as its vector entry point
    (``gymnasium.make_vec("Big2-v0", num_envs=N)``; ``vectorization_mode="sync"`` vectorises the Python env)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="big2_env.envs.gym:Big2SingleAgentEnv",
            vector_entry_point="big2_env.envs.vector_opponents:make_vector",
        )


def _resolve_opponents(opponents: Any, rules: Rules) -> tuple[Policy, Policy, Policy]:
    """Three policies for the seats 1, 2, 3 places clockwise from the learner."""
    if isinstance(opponents, str):
        return tuple(resolve_policy(opponents, "opponents", rules) for _ in range(3))  # type: ignore[return-value]
    if isinstance(opponents, Mapping):
        keys = {_RELATIVE_NAMES.get(k, k) if isinstance(k, str) else k for k in opponents}
        if len(opponents) != 3 or keys != {1, 2, 3}:
            raise ValueError(
                "an opponents dict needs exactly the keys 1, 2, 3 (seats clockwise from the learner) "
                f"or 'next', 'across', 'previous'; got {sorted(map(str, opponents))}"
            )
        by_offset = {(_RELATIVE_NAMES.get(k, k) if isinstance(k, str) else k): v for k, v in opponents.items()}
        items = [by_offset[1], by_offset[2], by_offset[3]]
    elif isinstance(opponents, Sequence):
        if len(opponents) != 3:
            raise ValueError(f"opponents as a list needs exactly 3 entries (next, across, previous); got {len(opponents)}")
        items = list(opponents)
    else:
        return (resolve_policy(opponents, "opponents", rules),) * 3  # type: ignore[return-value]
    return tuple(resolve_policy(p, f"opponents[{i}]", rules) for i, p in enumerate(items))  # type: ignore[return-value]


KEY_STYLES: dict[str, dict[str, str]] = {
    "pettingzoo": {},
    "rllib": {"observation": "observations"},
    "tianshou": {"observation": "obs", "action_mask": "mask"},
}
"""``keys=``: how the observation dict's entries are renamed from PettingZoo's names."""


class Big2SingleAgentEnv(gymnasium.Env, EzPickle):
    """Big 2 for one learner against three opponent policies (see the module docstring).

    Args:
        opponents: ``"random"`` (default), another policy name, a policy object, a list
            of three or a dict (see the module docstring).
        learner_seat: ``None`` (default: random each episode) or a seat 0..3.
        rules: a :class:`Rules`, preset name or dict.
        candidate_view: add ``"candidate_actions"``/``"candidate_features"`` to the
            observation (default ``False``: what Stable-Baselines3 needs).
        observation: ``"paper"`` (default, the 277 numbers) or ``"extended"`` (the 315 of
            :mod:`big2_env.observations.extended`, with who passed on what).
        mask_in_observation: ``True`` (default): a ``Dict`` observation with ``"observation"``
            and ``"action_mask"``. ``False``: the observation is the ``Box`` of numbers alone
            and the mask comes through :meth:`action_masks` and as ``info["action_mask"]``
            (``int8``, all zeros once the episode is over) after every ``reset`` and ``step``,
            so sb3-contrib's ``MaskablePPO("MlpPolicy", env)`` works as its docs write it and
            AgileRL's ``PPO`` finds the mask where its rollouts look (not with
            ``candidate_view=True``).
        keys: the names of the ``Dict`` observation's two main entries: ``"pettingzoo"``
            (default: ``"observation"``, ``"action_mask"``), ``"rllib"`` (``"observations"``,
            ``"action_mask"``) or ``"tianshou"`` (``"obs"``, ``"mask"``: what Tianshou's
            DQN-family policies read, so they train on this env unchanged and explore only
            legal actions).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the table), ``"human"``
            (printed after every reset and step) or ``"rgb_array"`` (``render()`` returns a
            ``(480, 640, 3)`` ``uint8`` picture, see :mod:`big2_env.render.picture`; what
            ``RecordVideo`` and SB3's ``VecVideoRecorder`` need); the learner's hand is shown.
        illegal_action: ``"penalize"`` (default) or ``"raise"``.
        illegal_penalty: reward for an illegal action in ``"penalize"`` mode (default:
            the worst score under ``rules``, -13 for the paper's scoring).
        history: add ``"history"``, the public move history (int16 ``(256, 6)``,
            :func:`big2_env.observations.extended.history_array`), to the ``Dict`` observation. On by
            default (``None``) with ``mask_in_observation=True``: the agents that read it (the shipped
            networks, ``search-net``, the searches) then play from this env's observation. A learner
            that feeds every key to its network (SB3's ``MultiInputPolicy``) may drop it with ``False``.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        opponents: Any = "random",
        learner_seat: int | None = None,
        rules: Rules | str | Mapping[str, Any] | None = None,
        candidate_view: bool = False,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_penalty: float | None = None,
        observation: str = "paper",
        mask_in_observation: bool = True,
        keys: str = "pettingzoo",
        history: bool | None = None,
    ) -> None:
        EzPickle.__init__(
            self, opponents, learner_seat, rules, candidate_view, render_mode, illegal_action, illegal_penalty, observation,
            mask_in_observation, keys, history,
        )
        if not isinstance(keys, str) or keys not in KEY_STYLES:
            raise ValueError(f"keys must be one of {', '.join(map(repr, KEY_STYLES))}; got {keys!r}")
        if not isinstance(mask_in_observation, bool):
            raise ValueError(f"mask_in_observation must be True or False; got {mask_in_observation!r}")
        if candidate_view and not mask_in_observation:
            raise ValueError("candidate_view=True needs the Dict observation: use it with mask_in_observation=True")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}; got {render_mode!r}")
        if not isinstance(candidate_view, bool):
            raise ValueError(f"candidate_view must be True or False; got {candidate_view!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}; got {illegal_action!r}")
        self._fixed_seat = self._check_seat(learner_seat, "learner_seat")
        self.rules = Rules.coerce(rules)
        self.opponents = _resolve_opponents(opponents, self.rules)
        self.candidate_view = candidate_view
        self.observation_kind = check_observation_kind(observation)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = worst_score(self.rules) if illegal_penalty is None else float(illegal_penalty)
        self.mask_in_observation = mask_in_observation
        self.history = check_history(history, mask_in_observation)
        self.keys = keys
        space = observation_space(candidate_view, observation, history=self.history)
        self.observation_space: spaces.Space = space if mask_in_observation else space["observation"]
        if mask_in_observation and keys != "pettingzoo":
            self.observation_space = spaces.Dict({KEY_STYLES[keys].get(k, k): v for k, v in space.spaces.items()})
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.learner_seat: int | None = None
        self._decision: Decision | None = None
        self._done = False
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._history_rows = HistoryRows()

    @staticmethod
    def _check_seat(seat: Any, what: str) -> int | None:
        if seat is None:
            return None
        if not is_int(seat, 0, NUM_PLAYERS - 1):
            raise ValueError(f"{what} must be None or a seat 0..3; got {seat!r}")
        return int(seat)

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # each distinct opponent object, independently of the deal stream
            seed_policies(list(self.opponents), seed)
        seat = self._fixed_seat
        if options and "learner_seat" in options:
            seat = self._check_seat(options["learner_seat"], 'options["learner_seat"]')
        rng = self.np_random
        self.learner_seat = int(rng.integers(NUM_PLAYERS)) if seat is None else seat
        self.game = Game(self.rules, seed=rng)
        self._done = False
        self._play_opponents()
        # no seat can shed 13 cards before the learner's first turn (at most 3 plays of <= 5 cards)
        assert not self.game.is_over
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._with_mask({"learner_seat": self.learner_seat})

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset() before step()")
        index = self._check_action(action)
        decision = self._current_decision()
        entry = decision.entry_for_action(index)
        if entry is None:
            if self.illegal_action == "raise":
                raise ValueError(decision.illegal_message(action, f"the learner (seat {self.learner_seat})"))
            self._done = True
            illegal_info: dict[str, Any] = {
                "learner_seat": self.learner_seat,
                "scores": None,
                "winner": None,
                "turns": self.game.turn,
                "illegal_action": True,
                "is_success": False,
            }
            return self._observe(), self.illegal_penalty, True, False, self._with_mask(illegal_info)
        self.game._apply(entry)
        self._decision = None
        self._play_opponents()
        reward, terminated = 0.0, False
        info: dict[str, Any] = {"learner_seat": self.learner_seat}
        game = self.game
        if game.is_over:
            self._done = terminated = True
            scores = game.scores()
            assert self.learner_seat is not None
            reward = float(scores[self.learner_seat])
            info.update(
                scores=scores,
                winner=game.winner,
                turns=game.turn,
                illegal_action=False,
                is_success=game.winner == self.learner_seat,
            )
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, self._with_mask(info)

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with ``"action_mask"`` added when the observation is the ``Box`` alone."""
        if not self.mask_in_observation:
            info["action_mask"] = self.action_masks()
        return info

    def action_masks(self) -> np.ndarray:
        """The int8 mask (1695,) of the learner's legal actions, 1 where legal (all 0 once the episode
        is over): the method sb3-contrib's ``MaskablePPO`` looks for, and what
        ``action_space.sample(mask=...)`` takes."""
        if self.game is None:
            raise RuntimeError("call reset() before action_masks()")
        if self._done:
            return self._zero_mask.copy()
        return self._current_decision().action_mask()

    def render(self) -> str | np.ndarray | None:
        names = [f"player_{i}" + (" (learner)" if i == self.learner_seat else "") for i in range(NUM_PLAYERS)]
        if self.render_mode == "rgb_array":  # before reset: an empty table
            return render_rgb(self.game, self.learner_seat, names)
        if self.render_mode is None or self.game is None:
            return emit(self.render_mode, "Big 2: call reset() to deal")
        return emit(self.render_mode, render_table(self.game, self.learner_seat, names))

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> None:
        """Play opponent moves until the learner is on move or the game is over (the one-learner
        case of :class:`big2_env.envs.opponents.OpponentsEnv`, through the same :func:`play_opponents`)."""
        assert self.game is not None and self.learner_seat is not None
        learner = self.learner_seat
        play_opponents(self.game, {(learner + k) % NUM_PLAYERS: self.opponents[k - 1] for k in (1, 2, 3)})
        self._decision = None

    def _current_decision(self) -> Decision:
        if self._decision is None:
            assert self.game is not None
            self._decision = Decision(self.game)
        return self._decision

    def _observe(self) -> Any:
        assert self.game is not None and self.learner_seat is not None
        decision = None if self._done else self._current_decision()
        extended = self.observation_kind == "extended"
        if not self.mask_in_observation:
            return seat_numbers(self.game, self.learner_seat, decision, extended)
        obs = seat_observation(self.game, self.learner_seat, decision, extended, self.candidate_view,
                               self._history_rows if self.history else None)
        names = KEY_STYLES[self.keys]
        return {names.get(k, k): v for k, v in obs.items()}

    @staticmethod
    def _check_action(action: Any) -> int:
        """:func:`big2_env.observations.paper.check_action`, also accepting a one-element integer array (SB3's ``predict``)."""
        if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
            action = action.reshape(())
        return check_action(action)
