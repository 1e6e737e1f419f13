"""A trained network as a :class:`big2_env.players.Policy`, plus the batched scoring helpers.

:class:`NetworkPolicy` turns the observation dicts of the environments (and of
:func:`big2_env.evaluation.evaluate`) into one batched forward pass: ``act_batch``
stacks the 277-number states and concatenates every observation's candidate
features, runs the network once and picks one candidate per observation
(sampled from the softmax of the scores, or the argmax with
``deterministic=True``). Observations without the candidate view (only
``"observation"`` and ``"action_mask"``) are accepted too: the candidates are
rebuilt from the mask and the hand.

The numpy helpers :func:`score_numpy` and :func:`choose` are shared with the
training rollouts (:mod:`agents.collect.rollout`).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from big2_env.observations.extended import EXTENDED_SIZE, extended_view
from big2_env.observations.paper import FEATURE_SIZE, OBS_HAND, PAD_CARD, action_cards, play_features
from big2_env.players.base import Policy
from big2_env.players.charlesworth import observation_input
from big2_env.engine.rules import Rules

from big2_env.checks import is_number
from .config import check_rho
from .network import Big2Net, pack_candidates


def alphadou_scores(scores: torch.Tensor, win: torch.Tensor, rho: float) -> torch.Tensor:
    """AlphaDou's move choice (seed ``003``) as scores whose argmax is the move.

    The band is the candidates whose expected score ``Q`` is within ``rho`` x ``|max Q|`` of
    the row's best, ``Q >= max Q - rho |max Q|`` (the paper's ``|Q - max Q| / |max Q| < rho``,
    written so that the best candidate is always in it, also when ``max Q`` is 0); inside the
    band a candidate's score is its win logit, outside it ``-inf``. So the argmax plays the
    candidate most likely to win among those whose expected score is nearly the best;
    ``rho=0`` chooses by expected score alone (ties by win probability).

    >>> q = torch.tensor([[1.00, 0.97, 0.90, -math.inf]])  # expected scores (padding -inf)
    >>> w = torch.tensor([[0.2, 0.9, 3.0, 5.0]])           # win logits
    >>> alphadou_scores(q, w, 0.05).argmax(1).item()       # 0.97 is in the band, 0.90 is not
    1
    >>> alphadou_scores(q, w, 0.0).argmax(1).item()
    0
    """
    best = scores.max(dim=1, keepdim=True).values
    band = scores >= best - rho * best.abs()
    return torch.where(band, win, torch.full_like(win, -math.inf))


def score_numpy(
    model: Big2Net,
    obs: np.ndarray,
    features: np.ndarray,
    counts: np.ndarray,
    device: torch.device | str = "cpu",
    rho: float | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """One no-grad forward pass on numpy inputs.

    Args:
        obs: (B, 277) float32 states; features: (M, 80) float32 candidates, state by
            state; counts: (B,) candidates per state (each >= 1).
        rho: a ``win_head`` network's band (:func:`alphadou_scores`; ``None``: the
            network's own ``win_rho``); unused by other networks.

    Returns:
        ``(logp, value)``: (B, K) float32 log-probabilities (``-inf`` on padding) and
        (B,) float32 values (``None`` without a value head). For a ``win_head`` network the
        log-softmax is taken over :func:`alphadou_scores`, so its argmax is AlphaDou's move.
    """
    owner, slot, k = pack_candidates(counts)
    device = torch.device(device)
    with torch.inference_mode():
        scores, win, value = model.forward_heads(
            torch.from_numpy(obs).to(device),
            torch.from_numpy(features).to(device),
            torch.from_numpy(owner).to(device),
            torch.from_numpy(slot).to(device),
            k,
        )
        if win is not None:
            scores = alphadou_scores(scores, win, model.config.win_rho if rho is None else rho)
        logp = torch.log_softmax(scores, dim=-1).cpu().numpy()
    return logp, (None if value is None else value.cpu().numpy())


def choose(
    logp: np.ndarray, counts: np.ndarray, rng: np.random.Generator | None, epsilon: float | None = None
) -> np.ndarray:
    """One candidate slot per row, never a padded one.

    * ``rng`` is ``None``: the argmax of each row;
    * ``epsilon`` is ``None``: sampled from ``exp(logp)`` with ``rng`` (one uniform per
      row, inverse CDF): PPO's behaviour policy;
    * ``epsilon`` given: epsilon-greedy, the value learners' behaviour policy: with
      probability ``epsilon`` a slot uniform over the row's ``counts`` candidates,
      otherwise the argmax (two uniforms per row, drawn whatever the outcome).

    >>> logp = np.array([[np.log(0.1), np.log(0.9), -np.inf], np.log([0.7, 0.2, 0.1])])  # -inf: a padded slot
    >>> choose(logp, np.array([2, 3]), None).tolist()
    [1, 0]
    >>> choose(logp, np.array([2, 3]), np.random.default_rng(0), epsilon=0.0).tolist()
    [1, 0]
    """
    if rng is None:
        return np.argmax(logp, axis=1).astype(np.int64)
    if epsilon is not None:
        counts = np.asarray(counts, dtype=np.int64)
        u = rng.random((len(logp), 2))
        greedy = np.argmax(logp, axis=1).astype(np.int64)
        uniform = np.minimum((u[:, 1] * counts).astype(np.int64), counts - 1)
        return np.where(u[:, 0] < epsilon, uniform, greedy)
    cdf = np.cumsum(np.exp(logp, dtype=np.float64), axis=1)
    u = rng.random(len(logp)) * cdf[:, -1]
    choice = (cdf < u[:, None]).sum(axis=1)
    return np.minimum(choice, np.asarray(counts, dtype=np.int64) - 1)


class NetworkPolicy(Policy):
    """Plays with a :class:`~agents.network.Big2Net` (one batched forward pass per ``act_batch``).

    Args:
        model: the network (switched to eval mode; it is not copied).
        deterministic: play the highest-scoring candidate instead of sampling.
        device: where the forward pass runs (``"cpu"`` by default).
        seed: seed of the sampling RNG (``seed()`` reseeds it; ``evaluate`` does).
        rules: the rule set, needed only to rebuild candidate features for
            observations without the candidate view.
        name: display name (e.g. in evaluation tables).
        temperature: sample from ``softmax(scores / temperature)`` (default 1: the policy as
            trained; below 1 sharper, towards the argmax); ignored when ``deterministic``.
        rho: for a network with a win head (``NetworkConfig.win_head``): the band of
            :func:`alphadou_scores` (``None``: the network's ``win_rho``; 0: play the best
            expected score). Refused for other networks.

    A network built with ``NetworkConfig(observation="extended")`` reads the 315-number
    extended observation: its :attr:`observation_kind` says so, and
    :func:`~big2_env.evaluation.evaluate`, the environments' opponents and ``big2 play``
    give it that view.
    """

    name = "network"
    trained_rules: str | None = None
    """The rules preset the network was trained under, when its file says (:meth:`from_file`)."""

    @property
    def observation_kind(self) -> str:  # type: ignore[override]
        # Charlesworth's 412 numbers are rebuilt from the extended view's move history
        return "paper" if self.model.config.observation == "paper" else "extended"

    def __init__(
        self,
        model: Big2Net,
        deterministic: bool = False,
        device: torch.device | str = "cpu",
        seed: int | None = None,
        rules: Rules | str | dict | None = None,
        name: str | None = None,
        temperature: float = 1.0,
        rho: float | None = None,
    ) -> None:
        self.model = model.to(device).eval()
        if rho is not None and not model.config.win_head:
            raise ValueError("rho applies to networks with a win head (NetworkConfig.win_head); this one has none")
        self.rho = None if rho is None else check_rho(rho)
        self.deterministic = bool(deterministic)
        if not is_number(temperature, 0, 100, low_open=True):
            raise ValueError(f"temperature must be a number in (0, 100]; got {temperature!r}")
        self.temperature = float(temperature)
        self.device = torch.device(device)
        self.rules = Rules.coerce(rules)
        self.rng = np.random.default_rng(seed)
        if name is not None:
            self.name = name

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _candidates(self, obs: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        if "candidate_actions" in obs and "candidate_features" in obs:
            return np.asarray(obs["candidate_actions"]), np.asarray(obs["candidate_features"], dtype=np.float32)
        actions = np.flatnonzero(np.asarray(obs["action_mask"]))
        vector = np.asarray(obs["observation"])
        hand = [int(c) for c in vector[OBS_HAND].tolist() if c != PAD_CARD]
        rows = [play_features(action_cards(int(a), hand), self.rules) for a in actions]
        return actions, np.array(rows, dtype=np.float32).reshape(len(actions), FEATURE_SIZE)

    def _vector(self, obs: Mapping[str, Any]) -> np.ndarray:
        """The observation numbers this network reads: an extended view (315) starts with the
        paper's 277, so a paper network takes that prefix; an extended network needs all 315;
        Charlesworth's 412 are rebuilt from the extended view's move history and hand."""
        if self.model.config.observation == "charlesworth":
            return observation_input(obs)
        width = self.model.obs_size
        if width == EXTENDED_SIZE:  # an env's 277 numbers and its history give the 315
            obs = extended_view(obs, self.rules, required=False)
        vector = np.asarray(obs["observation"], dtype=np.float32)
        if vector.shape[-1] < width:
            raise ValueError(
                f"this network reads the {width}-number extended observation; got {vector.shape[-1]} numbers "
                "(give it observation='extended' views, as evaluate() and the envs' opponents do)"
            )
        return vector[:width]

    def act_batch(self, observations: Sequence[Mapping[str, Any]]) -> list[int]:
        if not observations:
            return []
        actions, features = zip(*(self._candidates(o) for o in observations))
        counts = np.array([len(a) for a in actions], dtype=np.int64)
        if (counts == 0).any():
            raise ValueError("an observation has no legal action: is this agent on move?")
        obs = np.stack([self._vector(o) for o in observations])
        logp, _ = score_numpy(self.model, obs, np.concatenate(features), counts, self.device, self.rho)
        if self.temperature != 1.0 and not self.deterministic:
            logp = logp.astype(np.float64) / self.temperature  # padding stays -inf
            logp -= logp.max(axis=1, keepdims=True)
            logp = (logp - np.log(np.exp(logp).sum(axis=1, keepdims=True))).astype(np.float32)
        picks = choose(logp, counts, None if self.deterministic else self.rng)
        return [int(a[i]) for a, i in zip(actions, picks.tolist())]

    def act(self, obs: Mapping[str, Any]) -> int:
        return self.act_batch([obs])[0]

    def probabilities(self, obs: Mapping[str, Any]) -> dict[int, float]:
        """The policy's probability of each legal action of one observation."""
        actions, features = self._candidates(obs)
        logp, _ = score_numpy(
            self.model, self._vector(obs)[None], features, np.array([len(actions)]), self.device, self.rho
        )
        return {int(a): float(np.exp(lp)) for a, lp in zip(actions, logp[0])}

    def state_values(self, observations: np.ndarray) -> np.ndarray:
        """The value head's estimate for each row of ``observations`` ((N, 277) float32, or 315 for
        a network of the extended view): what the network expects the player to score, times the
        reward scale it was trained with (1/13 for ``pretrained-default-recipe``).
        What :class:`~big2_env.players.search.SearchPolicy` reads as its ``value``. Networks
        of the paper's and the extended design only (Charlesworth's 412 inputs need the move
        history: :meth:`observation_value`).

        >>> from agents.pretrained import load_pretrained
        >>> import big2_env
        >>> env = big2_env.env(); env.reset(seed=0)
        >>> obs = env.observe(env.agent_selection)["observation"]
        >>> load_pretrained(which="default-recipe").state_values(obs[None]).shape
        (1,)
        """
        if self.model.value is None:
            raise ValueError("this network has no value head (NetworkConfig.value_head=False)")
        if self.model.config.observation == "charlesworth":
            raise ValueError("this network reads Charlesworth's 412 inputs, which the observation numbers alone "
                             "do not give: use observation_value(obs) with a game loop's extended view")
        obs = np.asarray(observations, dtype=np.float32)
        width = self.model.obs_size
        if obs.ndim != 2 or obs.shape[1] < width:
            raise ValueError(f"observations must be (N, {width}) numbers; got shape {obs.shape}")
        with torch.inference_mode():
            state = self.model.encode_state(torch.from_numpy(np.ascontiguousarray(obs[:, :width])).to(self.device))
            return self.model.state_value(state).cpu().numpy()

    def observation_value(self, obs: Mapping[str, Any]) -> float:
        """The value head's estimate for one observation as the environments give it (the same
        units as :meth:`state_values`), for a network of any design: Charlesworth's 412 inputs
        are rebuilt from the extended view as :meth:`act` rebuilds them. What the web table shows.

        >>> from agents.pretrained import load_pretrained
        >>> from big2_env.engine import Game
        >>> from big2_env.observations.decision import Decision, PolicyObservation
        >>> obs = PolicyObservation(Decision(Game(seed=0)), extended=True)  # a game loop's view
        >>> isinstance(load_pretrained().observation_value(obs), float)
        True
        """
        if self.model.value is None:
            raise ValueError("this network has no value head (NetworkConfig.value_head=False)")
        with torch.inference_mode():
            state = self.model.encode_state(torch.from_numpy(self._vector(obs)[None]).to(self.device))
            return float(self.model.state_value(state).cpu().numpy()[0])

    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> "NetworkPolicy":
        """Load a policy file or training checkpoint (see :mod:`agents.checkpoint`).

        Unless ``deterministic`` is given, a value learner's network (``mcq``,
        ``sarsa``, ``qlearning``) plays greedily, as the paper evaluates them, and a
        PPO policy samples.
        """
        from .checkpoint import algo_of, load_model, rules_of

        model, data = load_model(path)
        kwargs.setdefault("name", f"network({path})")
        kwargs.setdefault("deterministic", algo_of(data) != "ppo")
        policy = cls(model, **kwargs)
        policy.trained_rules = rules_of(data)  # the command line warns when it plays under other rules
        return policy

    def __repr__(self) -> str:
        rho = "" if self.rho is None else f", rho={self.rho}"
        settings = f"deterministic={self.deterministic}, temperature={self.temperature}{rho}"
        return f"NetworkPolicy({settings}, config={self.model.config})"
