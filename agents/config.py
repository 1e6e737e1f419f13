"""The configuration dataclasses of the agents, importable without torch.

* :class:`NetworkConfig`: the sizes of :class:`agents.network.Big2Net` (stored in
  every checkpoint);
* :class:`PPOConfig`: PPO's hyperparameters (:mod:`agents.learners.ppo`);
* :class:`ValueConfig`: the value learners' hyperparameters (:mod:`agents.learners.value`);
* :class:`TrainArgs`: every argument of a training run, each field a ``big2 train`` flag
  (``--games-per-batch`` ...) and a key of a ``--config`` JSON or TOML file
  (:func:`load_config_file`), flat as a run folder saves them; its fields are grouped, each group a
  dataclass with the checks between its fields and the run's (:data:`FLAG_GROUPS`:
  :class:`PPOArgs`, :class:`ValueArgs`, :class:`CurriculumArgs`,
  :class:`EvalArgs`, :class:`RunArgs`), and each field declares its bounds (:func:`check_bounds`).

``big2_env.cli`` builds ``big2 train``'s parser from :class:`TrainArgs` without
importing torch.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from big2_env.engine.rules import Rules
from big2_env.players.charlesworth import INPUT_SIZE
from big2_env.checks import is_int, is_number

CURRICULA = ("self", "checkpoint", "osfp", "fixed:smart", "fixed:greedy", "fixed:random", "mixed")
"""The curricula of :func:`agents.curriculum.make_curriculum`."""

VALUE_ALGOS = ("mcq", "sarsa", "qlearning", "dmc")
"""The value learners (:mod:`agents.learners.value`; ``dmc`` is Deep Monte Carlo)."""

ALGOS = ("ppo",) + VALUE_ALGOS
"""The trainers: PPO (:mod:`agents.learners.ppo`), the value learners and Deep Monte Carlo
(:mod:`agents.learners.value`)."""

REMOVED_AT = "cbad168"
"""The commit that still runs every algorithm, option and design measured and removed (:data:`REMOVED_ALGOS`,
:data:`REMOVED_FIELDS`, :data:`REMOVED_DESIGNS`)."""

REMOVED_ALGOS = {"distill": "learning-from-search", "exit": "learning-from-search"}
"""Algorithms measured and removed, each with its study (``experiments/STUDY.md``): a run of one is refused by name."""

REMOVED_FIELDS: dict[str, tuple[Any, str]] = {
    "teacher": (None, "learning-from-search"), "replay": (1, "learning-from-search"),
    "soft_targets": (0.0, "learning-from-search"), "leaf_value": (0.0, "learning-from-search"),
    "critic": ("observation", "charlesworth-recipe"), "win_bonus": (0.0, "paper-table2"),
}
"""Training arguments measured and removed: each with the value that left it off (``None``: any value, it acted
for a removed algorithm only) and its study. A saved run or config file with that value loads without it; any
other value is refused by name."""

BACKENDS = ("process", "ray")
ENVS = ("auto", "engine", "vector")
"""Where rollout workers run (``TrainArgs.backend``): :mod:`agents.collect.parallel`, :mod:`agents.collect.ray_workers`."""


MAX_WIDTH = 4096
"""The largest width any :class:`NetworkConfig` field may ask for (the defaults are 4 to 256);
:func:`agents.network.check_size` also bounds the total parameter count before anything is allocated."""


DESIGNS = ("paper", "plus", "charlesworth")
"""The network designs (:class:`NetworkConfig.design`)."""

REMOVED_DESIGNS = {"mlp": "learner-runs"}
"""Network designs measured and removed, each with its study: a model config naming one is refused by name."""

OBSERVATIONS = ("paper", "extended", "charlesworth")
"""The observations a network may read (:class:`NetworkConfig.observation`): the paper's 277 numbers,
the extended 315, or Charlesworth's 412 (:func:`big2_env.players.charlesworth.network_input`)."""

LR_SCHEDULES = ("cosine", "linear")
"""PPO's learning-rate schedules (``TrainArgs.lr_schedule``, :func:`agents.learners.ppo.lr_at`)."""

_CHOICES = {"design": DESIGNS, "observation": OBSERVATIONS}

CHARLESWORTH_INPUTS = INPUT_SIZE
"""The width of Charlesworth's input (:data:`big2_env.players.charlesworth.INPUT_SIZE`)."""

MAX_SCORER_BLOCKS = 16
"""The most residual blocks :attr:`NetworkConfig.scorer_blocks` may ask for."""


def check_rho(value: Any, name: str = "rho") -> float:
    """``value`` as a float if it is a number in [0, 1] (AlphaDou's band), else ``ValueError``."""
    if not is_number(value, 0, 1):
        raise ValueError(f"{name} must be a number in [0, 1]; got {value!r}")
    return float(value)


def removed(what: str, study: str) -> ValueError:
    """The error for an algorithm or option that was measured and removed."""
    return ValueError(f"{what} was removed after its study (experiments/{study}.md); commit {REMOVED_AT} still runs it")


def check_algo(algo: Any) -> None:
    """Refuse (``ValueError``) an algorithm that is not one of :data:`ALGOS`, naming the commit that still
    runs a removed one."""
    if isinstance(algo, str) and algo in REMOVED_ALGOS:
        raise removed(f"algo {algo!r}", REMOVED_ALGOS[algo])
    if algo not in ALGOS:
        raise ValueError(f"algo must be one of {', '.join(ALGOS)}; got {algo!r}")


@dataclass(frozen=True)
class NetworkConfig:
    """Sizes of :class:`Big2Net` (saved in checkpoints; a checkpoint only loads into the same config).

    Attributes:
        card_dim: width of the card embedding table (and of the hand attention block).
        hand_heads: attention heads over the hand (must divide ``card_dim``).
        hand_ff: hidden width of the hand block's feed-forward sub-layer.
        field_dim: output width of each card-set encoder (trick, seen, each opponent).
        count_dim: output width of the counts encoder (opponents' cards left, passes).
        state_dim: width of the state embedding.
        state_ff: hidden width of the residual feed-forward block.
        action_hidden: hidden width of the candidate MLP.
        action_dim: width of the candidate embedding (and of the projected state).
        value_hidden: hidden width of the value head.
        value_head: build PPO's value head (False: a Q-network, scores only).
        design: ``"paper"`` (default: the paper's network, unchanged), ``"charlesworth"`` (his network:
            412 inputs, a 512-unit ReLU layer, then 256 and a masked 1695-way policy, and from the first
            layer a 256-unit branch to the value; orthogonal initialisation as his baselines code; it reads
            ``observation="charlesworth"``) or ``"plus"`` (the
            stronger network of :mod:`agents.network`: candidates scored by an MLP over the
            state, the candidate and the hand it would leave; a full-rank path for the card
            sets; own hand size).
        observation: ``"paper"`` (default: the 277 numbers), ``"extended"`` (the 315 numbers
            of :mod:`big2_env.observations.extended`: who passed on what, cards left, who holds control)
            or ``"charlesworth"`` (his 412 numbers: read by ``design="charlesworth"``, or by
            ``design="paper"``, whose state embedding then starts from a ``mlp_hidden``-unit ReLU
            layer over them in place of the card encoders; candidates are scored as always).
        scorer_hidden: hidden width of the ``"plus"`` design's candidate scorer.
        mlp_hidden: first hidden width of the ``"charlesworth"`` design, and of the ``"paper"``
            design's first layer over Charlesworth's 412 inputs.
        scorer_blocks: residual blocks stacked on the ``"plus"`` scorer's hidden layer (0 to
            :data:`MAX_SCORER_BLOCKS`; default 0): each ``h = relu(h + W2 relu(W1 h))`` at width
            ``scorer_hidden``, the wide residual stack of the Big 2 Deep Monte Carlo study
            (``--algo dmc``).
        win_head: also predict, for each candidate, the probability that the player wins the
            game (AlphaDou, seed ``003``): the network then has two outputs per candidate, the
            score (expected final score or logit) and a win logit, and it plays by
            :func:`agents.policy.alphadou_scores` (value learners only).
        win_rho: the choice rule of a ``win_head`` network: among the candidates whose
            expected score is within ``win_rho`` x ``|max|`` of the best, play the one most
            likely to win (``003`` uses 0.05; 0 chooses by expected score alone).
    """

    card_dim: int = 32
    hand_heads: int = 4
    hand_ff: int = 64
    field_dim: int = 64
    count_dim: int = 32
    state_dim: int = 128
    state_ff: int = 256
    action_hidden: int = 128
    action_dim: int = 64
    value_hidden: int = 128
    value_head: bool = True
    design: str = "paper"
    observation: str = "paper"
    scorer_hidden: int = 256
    mlp_hidden: int = 512
    scorer_blocks: int = 0
    win_head: bool = False
    win_rho: float = 0.05

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _CHOICES:
                if f.name == "design" and isinstance(value, str) and value in REMOVED_DESIGNS:
                    raise removed(f"NetworkConfig design={value!r}", REMOVED_DESIGNS[value])
                if value not in _CHOICES[f.name]:
                    raise ValueError(f"NetworkConfig.{f.name} must be one of {', '.join(_CHOICES[f.name])}; got {value!r}")
            elif f.name in ("value_head", "win_head"):
                if not isinstance(value, bool):
                    raise ValueError(f"NetworkConfig.{f.name} must be a bool; got {value!r}")
            elif f.name == "win_rho":
                check_rho(value, "NetworkConfig.win_rho")
            elif f.name == "scorer_blocks":
                if not is_int(value, 0, MAX_SCORER_BLOCKS, numpy=False):
                    raise ValueError(f"NetworkConfig.scorer_blocks must be an int in 0..{MAX_SCORER_BLOCKS}; got {value!r}")
            elif not is_int(value, 1, MAX_WIDTH, numpy=False):
                raise ValueError(f"NetworkConfig.{f.name} must be an int in 1..{MAX_WIDTH}; got {value!r}")
        if self.card_dim % self.hand_heads:
            raise ValueError(f"hand_heads ({self.hand_heads}) must divide card_dim ({self.card_dim})")
        if self.scorer_blocks and self.design != "plus":
            raise ValueError(f"NetworkConfig.scorer_blocks applies to design='plus' only; got design={self.design!r}")
        if self.design == "charlesworth" and self.observation != "charlesworth":
            raise ValueError("NetworkConfig design='charlesworth' reads observation='charlesworth' (his 412 numbers); got "
                             f"observation={self.observation!r}")
        if self.observation == "charlesworth" and self.design not in ("charlesworth", "paper"):
            raise ValueError("NetworkConfig observation='charlesworth' (his 412 numbers) is read by design='charlesworth' "
                             f"(his network) or design='paper' (ours on his inputs); got design={self.design!r}")
        if self.win_head and self.value_head:
            raise ValueError("NetworkConfig.win_head is for the value learners (value_head=False): PPO samples its policy")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "NetworkConfig":
        """Build from a dict; unknown keys raise ``ValueError`` naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown NetworkConfig field(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**dict(data))


@dataclass(frozen=True)
class PPOConfig:
    """PPO hyperparameters. Defaults: the recipe that learns (``big2 train``'s defaults): the
    paper's settings (entropy 0.05, clip 0.2, GAE 0.99 / 0.95, gradient clip 0.5) with minibatches
    of 4096 decisions, two epochs, a learning rate of 1e-3 (33 times the paper's) that decays to a
    floor of a tenth, and scores / 13 (``experiments/results/recipe`` has the ablation that chose them).
    :data:`PAPER_PPO` holds the paper's exact values (``--preset paper``)."""

    lr: float = 1e-3
    warmup_fraction: float = 0.02
    min_lr_fraction: float = 0.1
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.05
    max_grad_norm: float = 0.5
    epochs: int = 2
    minibatch: int = 4096
    reward_scale: float = 1.0 / 13.0


PAPER_PPO = PPOConfig(lr=3e-5, min_lr_fraction=0.0, epochs=4, minibatch=256, reward_scale=1.0)
"""The paper's exact PPO hyperparameters (appendix C; entropy 0.05, its best): ``--preset paper``."""


@dataclass(frozen=True)
class ValueConfig:
    """A value learner's hyperparameters (defaults: the paper's; ``dmc``'s differ, see :data:`ALGO_DEFAULTS`).

    ``epochs`` and ``minibatch`` are used by ``dmc`` only (the others take one step per
    batch); ``win_coef`` weighs the win head's loss (``NetworkConfig.win_head``).
    """

    algo: str = "mcq"
    lr: float = 3e-5
    gamma: float = 0.99
    reward_scale: float = 1.0 / 13.0
    max_grad_norm: float = 1.0
    target_sync: int = 10
    epsilon_start: float = 0.5
    epsilon_end: float = 0.0
    epochs: int = 4
    minibatch: int = 256
    win_coef: float = 1.0

    def __post_init__(self) -> None:
        if self.algo not in VALUE_ALGOS:
            raise ValueError(f"value learner algo must be one of {', '.join(VALUE_ALGOS)}; got {self.algo!r}")

    @property
    def uses_target(self) -> bool:
        """SARSA and Q-learning bootstrap from a delayed target network; Monte Carlo Q and DMC do not."""
        return self.algo not in ("mcq", "dmc")


DMC_DEFAULTS = {"gamma": 1.0, "epsilon_start": 0.01, "epsilon_end": 0.01}
"""Deep Monte Carlo's own defaults (seed ``004``): the undiscounted Monte Carlo return and a
constant exploration of 0.01."""

PRESETS = ("default", "paper", "charlesworth")
"""The hyperparameter presets (``TrainArgs.preset``): ``default``, the recipe that learns,
``paper``, the paper's exact settings, and ``charlesworth``, Charlesworth's recipe
(:data:`CHARLESWORTH_PRESET`). ``default`` and ``paper`` differ for PPO only (the other learners'
defaults are the paper's in both)."""

CHARLESWORTH_HORIZON = 781_250
"""His planned updates: ``1e9`` decisions at 1,280 a batch (``mainBig2PPOSimulation.py``). His learning
rate and clip fall linearly over them; his published file is update 136,500 (about 3M games), where
both were still at 82.5% of their start."""

CHARLESWORTH_PRESET: dict[str, Any] = {
    "rules": "charlesworth",
    "model": {"design": "charlesworth", "observation": "charlesworth"},
    "env": "vector",
    "games_per_batch": 64,
    "steps_per_batch": 20,
    "train_forced": True,
    "batches": CHARLESWORTH_HORIZON,
    "lr": 2.5e-4,
    "lr_schedule": "linear",
    "warmup_fraction": 0.0,
    "min_lr_fraction": 0.004,
    "clip": 0.2,
    "clip_anneal": True,
    "entropy": 0.01,
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "reward_scale": 0.2,
    "value_coef": 0.5,
    "max_grad_norm": 0.5,
    "epochs": 5,
    "minibatch": 320,
    "eval_every": 2000,
}
"""``--preset charlesworth``: his recipe, read from his ``mainBig2PPOSimulation.py`` and ``PPONetwork.py``,
for the fields a run does not set itself. His rules; his network on his 412 inputs; 64 games stepped
20 decisions each per batch (1,280 decisions; games run on across batches, every decision learned,
forced passes too); 5 epochs of 4 minibatches of 320; Adam at 2.5e-4 falling linearly (floor 1e-6)
with the clip 0.2 falling alike over his 781,250 planned updates; entropy 0.01, gamma 0.995,
lambda 0.95, rewards / 5, value coefficient 0.5, gradient clip 0.5. Not reproduced: his advantages
are normalised per minibatch (ours per batch) and his Adam epsilon is 1e-5 (ours 1e-8)."""

GAMES_PER_BATCH = {"vector": 512, "engine": 64}
"""PPO's default games per batch on each env (the paper's 64 with ``--preset paper``, and for
every other learner): the vector env batches the network over every game on move, so more games
make larger forward passes."""

def _algo_defaults(algo: str, config: PPOConfig | ValueConfig) -> dict[str, float]:
    """The values ``config`` gives the ``TrainArgs`` fields that default to ``None`` (the learners without a
    learning-rate schedule or exploration report a floor of 0 and PPO's epsilon fields their unused defaults)."""
    return {
        "max_grad_norm": config.max_grad_norm,
        "reward_scale": config.reward_scale,
        "gamma": config.gamma,
        "epsilon_start": getattr(config, "epsilon_start", 0.5),
        "epsilon_end": getattr(config, "epsilon_end", 0.0),
        "lr": config.lr,
        "min_lr_fraction": getattr(config, "min_lr_fraction", 0.0),
        "minibatch": config.minibatch,
        "epochs": config.epochs,
        **(DMC_DEFAULTS if algo == "dmc" else {}),
    }


ALGO_DEFAULTS: dict[str, dict[str, float]] = {
    "ppo": _algo_defaults("ppo", PPOConfig()), **{a: _algo_defaults(a, ValueConfig(algo=a)) for a in VALUE_ALGOS}
}
"""The per-algorithm values of the ``TrainArgs`` fields left at ``None`` (preset ``default``): the
defaults of :class:`PPOConfig` (the recipe that learns) and
:class:`ValueConfig` (the paper's), and :data:`DMC_DEFAULTS` for ``dmc``."""

PAPER_DEFAULTS: dict[str, dict[str, float]] = {
    **ALGO_DEFAULTS, "ppo": _algo_defaults("ppo", PAPER_PPO)
}
""":data:`ALGO_DEFAULTS` under ``--preset paper``: PPO takes :data:`PAPER_PPO`."""

PRESET_DEFAULTS: dict[str, dict[str, dict[str, float]]] = {
    "default": ALGO_DEFAULTS,
    "paper": PAPER_DEFAULTS,
    "charlesworth": {**ALGO_DEFAULTS, "ppo": {**ALGO_DEFAULTS["ppo"], **{
        k: v for k, v in CHARLESWORTH_PRESET.items() if k in ALGO_DEFAULTS["ppo"]}}},
}
"""The values of the ``None`` fields under each preset (``--preset charlesworth`` also sets
fields that have plain defaults: :func:`args_from_mapping` and :meth:`TrainArgs.from_preset` apply
:data:`CHARLESWORTH_PRESET`)."""

LEGACY_PPO = {"reward_scale": 1.0}
"""The values of fields left at ``None`` in runs saved before presets existed (their PPO scored raw)."""


def _check_float(name: str, value: Any, low: float, high: float, low_open: bool) -> None:
    allowed = f"a number in {'(' if low_open else '['}{low:g}, {high:g}]"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be {allowed}; got {value!r} ({type(value).__name__})")
    if not is_number(value, low, high, low_open=low_open):
        raise ValueError(f"{name} must be {allowed}; got {value!r}")


def _arg(default: Any, help: str, **kwargs: Any) -> Any:
    """A TrainArgs field with its ``big2 train --help`` text and its bounds: ``within=(low, high)``
    (a finite number; ``low_open=True`` excludes ``low``) or ``least=N`` (an int of at least ``N``)."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"help": help, **kwargs})
    return field(default=default, metadata={"help": help, **kwargs})


def check_bounds(args: Any) -> None:
    """Check every field of ``args`` against the bounds its :func:`_arg` declares (``ValueError``
    naming the field); a field that defaults to ``None`` may stay ``None`` (the algorithm's default)."""
    for f in fields(args):
        value = getattr(args, f.name)
        if value is None and f.default is None:
            continue
        if "within" in f.metadata:
            low, high = f.metadata["within"]
            _check_float(f.name, value, low, high, f.metadata.get("low_open", False))
        elif "least" in f.metadata and not is_int(value, f.metadata["least"], numpy=False):
            raise ValueError(f"{f.name} must be a {'positive' if f.metadata['least'] else 'non-negative'} int; got {value!r}")


class Flags:
    """A group of :class:`TrainArgs` fields; :meth:`check` checks them against the whole run's."""

    @staticmethod
    def check(args: TrainArgs) -> None:
        """Raise ``ValueError`` where this group's fields do not fit the run (:func:`check_bounds` checks each field's bounds)."""


@dataclass
class CommonArgs(Flags):
    """The fields every algorithm reads: the algorithm and its preset, the budget, the optimiser's
    hyperparameters (each ``None`` one the algorithm's default under the preset, :data:`PRESET_DEFAULTS`),
    the seed, the rules and the network."""

    preset: str = _arg(
        "default",
        "hyperparameter preset for the fields left unset: default (the recipe that learns: lr 1e-3 decaying to a "
        "tenth, scores / 13, 2 epochs of 4096-decision minibatches, 512 games per batch on the vector env) or paper "
        "(the paper's exact "
        "PPO settings: lr 3e-5 decaying to 0, raw scores, minibatches of 256, 64 games per batch) or charlesworth "
        "(his recipe: his rules, network and 412 inputs, 64 games x 20 decisions a batch, 5 epochs of 4 minibatches, "
        "lr 2.5e-4 and clip 0.2 falling linearly, entropy 0.01, gamma 0.995, rewards / 5; any flag given overrides it)",
    )
    algo: str = _arg(
        "ppo",
        "training algorithm: ppo, mcq (Monte Carlo Q), sarsa, qlearning or dmc (Deep Monte Carlo)",
    )
    batches: int = _arg(5000, "planned number of batches (the learning-rate schedule spans them)", least=1)
    games_per_batch: int | None = _arg(
        None, "games per batch (None: PPO 512 on the vector env, else 64, the paper's)", type=int,
        least=1,
    )
    seed: int = _arg(0, "seed of the initial weights, deals, seats and sampled actions", least=0)
    rules: str = _arg("paper", "rules preset")
    lr: float | None = _arg(None, "peak Adam learning rate (None: 1e-3 for PPO, 3e-5 with --preset paper and for "
                            "the other learners)", type=float, within=(0.0, 1.0), low_open=True)
    warmup_fraction: float = _arg(
        PPOConfig.warmup_fraction, "share of the planned batches spent in linear warm-up", within=(0.0, 1.0)
    )
    min_lr_fraction: float | None = _arg(
        None, "the cosine decay ends at this fraction of --lr (None: 0.1 for PPO, 0 with --preset paper and otherwise)",
        type=float,
        within=(0.0, 1.0),
    )
    gamma: float | None = _arg(None, "discount (None: 0.99, 1 for dmc)", type=float, within=(0.0, 1.0))
    value_coef: float = _arg(PPOConfig.value_coef, "value loss coefficient", within=(0.0, 100.0))
    max_grad_norm: float | None = _arg(
        None, "global gradient-norm clip (None: 0.5 for ppo, 1.0 for the value learners)", type=float,
        within=(0.0, 1e6), low_open=True,
    )
    epochs: int | None = _arg(
        None, "PPO and dmc: passes over each batch (None: 2 for PPO, 4 with --preset paper and otherwise)", type=int,
        least=1,
    )
    minibatch: int | None = _arg(
        None, "decisions per minibatch (None: 4096 for PPO, 256 with --preset paper and for the other learners)", type=int,
        least=1,
    )
    reward_scale: float | None = _arg(
        None, "training reward = final score x this (None: 1/13; 1 for PPO with --preset paper, the paper's raw score)",
        type=float,
        within=(0.0, 1e6), low_open=True,
    )
    train_forced: bool = _arg(
        False,
        "also record and train on forced moves (one legal action, nearly always a forced pass); "
        "by default they are played without a forward pass and left out of the trajectories",
    )
    init: str = _arg(
        "", "start from this model file's weights (a model.pt, a run folder, or a shipped network: "
        "pretrained-default-recipe for the default design, pretrained with --preset charlesworth); same --model"
    )
    model: dict = _arg(
        {}, "NetworkConfig fields that differ from the defaults (FIELD=VALUE, e.g. design=plus, observation=extended)"
    )

    @staticmethod
    def check(args: TrainArgs) -> None:
        if args.preset not in PRESETS:
            raise ValueError(f"preset must be one of {', '.join(PRESETS)}; got {args.preset!r}")
        if args.preset == "charlesworth" and not args.model:  # built directly: his plain-default fields never applied
            raise ValueError(
                "TrainArgs(preset='charlesworth') applies only the fields left at None; his rules, network and cadence "
                "were not set (model is empty). Build it with TrainArgs.from_preset('charlesworth', FIELD=VALUE, ...), "
                "as big2 train --preset charlesworth does"
            )
        check_algo(args.algo)
        if not isinstance(args.init, str):
            raise ValueError(f"init must be a model file or run folder path (or empty); got {args.init!r}")
        Rules.preset(args.rules)


@dataclass
class PPOArgs(Flags):
    """PPO's own flags (:class:`PPOConfig`, :class:`agents.learners.ppo.PPOLearner`): its entropy bonus
    and clip and their schedules, the learning-rate schedule, and Charlesworth's
    cadence of games stepped across batches on the compiled vector env."""

    entropy: float = _arg(PPOConfig.entropy_coef, "entropy coefficient (paper best 0.05)", within=(0.0, 10.0))
    entropy_anneal: float = _arg(
        0.0, "PPO: anneal the entropy coefficient linearly to 0 over this last fraction of the planned batches (0: constant)",
        within=(0.0, 1.0),
    )
    lr_schedule: str = _arg(
        "cosine", "PPO's learning-rate schedule over the planned batches: cosine (warm-up, then cosine decay to "
        "--min-lr-fraction) or linear (Charlesworth's: lr x (1 - batch / batches), floored at --min-lr-fraction)"
    )
    clip_anneal: bool = _arg(
        False, "PPO: the clip (policy ratio and value) falls linearly to 0 over the planned batches, as his does"
    )
    steps_per_batch: int = _arg(
        0, "--env vector: 0 plays each batch's games to the end; N steps each of the --games-per-batch games N "
        "decisions per batch, the games running on across batches (Charlesworth's 20), the values bootstrapped",
        least=0,
    )
    random_opponent_prob: float = _arg(
        0.0, "--steps-per-batch: chance a new game puts the network in one seat against three Random players "
        "(uniform over the legal actions), only its decisions recorded; the rest stay self-play (0: self-play only)",
        within=(0.0, 1.0),
    )
    gae_lambda: float = _arg(PPOConfig.gae_lambda, "GAE lambda", within=(0.0, 1.0))
    clip: float = _arg(PPOConfig.clip, "PPO ratio clip and value clip", within=(0.0, 10.0), low_open=True)

    @staticmethod
    def check(args: TrainArgs) -> None:
        if args.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}; got {args.lr_schedule!r}")
        if args.steps_per_batch and (args.algo != "ppo" or args.env_in_use() != "vector"):
            raise ValueError("--steps-per-batch runs games on across batches in the compiled vector env: PPO with --env "
                             f"vector (or auto) only; got algo {args.algo!r} on env {args.env_in_use()!r}")
        if args.random_opponent_prob and not args.steps_per_batch:
            raise ValueError("--random-opponent-prob seats Random players in the games of --steps-per-batch (his cadence "
                             f"on the compiled vector env); got steps_per_batch {args.steps_per_batch!r}")
        if not isinstance(args.clip_anneal, bool):
            raise ValueError(f"clip_anneal must be True or False; got {args.clip_anneal!r}")


@dataclass
class ValueArgs(Flags):
    """The value learners' own flags (``mcq``, ``sarsa``, ``qlearning``, ``dmc``: :class:`ValueConfig`,
    :class:`agents.learners.value.ValueLearner`): exploration, the win head's weight, the target network."""

    epsilon_start: float | None = _arg(
        None, "value learners: epsilon-greedy exploration at the first batch (None: 0.5, 0.01 for dmc)", type=float,
        within=(0.0, 1.0),
    )
    epsilon_end: float | None = _arg(
        None, "value learners: epsilon at the last planned batch, linear in between (None: 0, 0.01 for dmc)", type=float,
        within=(0.0, 1.0),
    )
    win_coef: float = _arg(
        ValueConfig.win_coef, "value learners with a win head (--model win_head=true): weight of its cross-entropy",
        within=(0.0, 100.0),
    )
    target_sync: int = _arg(
        ValueConfig.target_sync, "sarsa, qlearning: copy the network to the target network every this many batches", least=1
    )


@dataclass
class CurriculumArgs(Flags):
    """Who sits in the other seats of the training games (:mod:`agents.curriculum`)."""

    curriculum: str = _arg("self", "self, checkpoint, osfp, fixed:smart, fixed:greedy, fixed:random or mixed")
    snapshot_every: int = _arg(50, "checkpoint and osfp curricula: snapshot the policy every this many batches", least=1)
    pool_size: int = _arg(20, "checkpoint and osfp curricula: keep the newest this many snapshots", least=1)
    snapshot_current_prob: float = _arg(
        0.5, "checkpoint curriculum: chance an opponent seat plays the current policy", within=(0.0, 1.0)
    )
    mixed_self_prob: float = _arg(
        0.5,
        "mixed curriculum: chance a game is current-policy self-play; "
        "otherwise three copies of Smart, Greedy or Random (uniform)",
        within=(0.0, 1.0),
    )

    @staticmethod
    def check(args: TrainArgs) -> None:
        if args.curriculum not in CURRICULA:
            raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}; got {args.curriculum!r}")


@dataclass
class EvalArgs(Flags):
    """The evaluations along the run (``metrics.csv``)."""

    eval_every: int = _arg(100, "evaluate every this many batches (0: only at the start and the end)", least=0)
    eval_games: int = _arg(200, "games per opponent at each evaluation", least=1)
    eval_opponents: list = _arg(
        ["random", "greedy", "smart"],
        "opponent classes to evaluate against (comma separated): random, greedy, smart, and under his rules "
        "charlesworth:PATH, three copies of Charlesworth's network (his parameter file) in a duplicate duel of "
        "eval_games / 4 deals, each played four times",
    )
    eval_seed: int = _arg(12345, "evaluation seed (the same deals at every evaluation)", least=0)
    eval_deterministic: bool = _arg(False, "evaluate the argmax policy instead of sampling")

    @staticmethod
    def check(args: TrainArgs) -> None:
        for opponent in args.eval_opponents:
            check_eval_opponent(opponent, args.rules)
        logged = [eval_opponent_name(opponent) for opponent in args.eval_opponents]
        if len(set(logged)) != len(logged):
            raise ValueError(f"eval_opponents must name each opponent once (they are logged by name: "
                             f"{', '.join(logged)}); got {', '.join(args.eval_opponents)}")


@dataclass
class RunArgs(Flags):
    """Where and how the run runs: its folder and checkpoints, the processes and threads, the env that
    plays the games, the learner's device, the logs and the budget."""

    out: str = _arg("runs/ppo", "run folder (checkpoint, model, logs, plot)")
    checkpoint_every: int = _arg(100, "write the checkpoint every this many batches (and at the end)", least=0)
    keep_models_every: int = _arg(
        0, "also keep the policy every this many batches as OUT/models/model_BATCH.pt, for `big2 average` (weight "
        "averaging of the run's snapshots; the checkpoint is written with each; 0: none)",
        least=0,
    )
    checkpoint_minutes: float = _arg(
        2.0, "also write the checkpoint whenever this many minutes have passed since the last one (0: by batches only)",
        within=(0.0, 1e6),
    )
    threads: int = _arg(
        0, "torch threads per process (0: every free core, less those other programs keep busy; always capped at the "
        "cores this process may use and shared out among --workers)",
        least=0,
    )
    workers: int = _arg(
        2,
        "processes that share each batch's games (every algorithm and curriculum) and, for PPO with --backend process, "
        "each minibatch's gradient (1: the trainer alone). --backend process caps it at the free cores; "
        "2 trains about 1.25x faster than 1 on 2 cores",
        least=1,
    )
    env: str = _arg(
        "auto",
        "where the games are played: engine (the Python engine, every curriculum and learner), vector (the compiled "
        "vector env: current-policy self-play, the network batched over every game on move; --curriculum self, "
        "paper observation; --workers does not apply) or auto (vector where it applies, else engine)",
    )
    backend: str = _arg(
        "process",
        "where the rollout workers run: process (helper processes on this machine sharing the weights, "
        "agents.collect.parallel) or ray (Ray actors on this machine or the cluster at --ray-address, "
        "agents.collect.ray_workers; pip install -e '.[ray]')",
    )
    ray_address: str | None = _arg(
        None, "--backend ray: the Ray cluster to join (e.g. auto or ray://HEAD:10001); default: start Ray on this machine",
        type=str,
    )
    device: str = _arg(
        "auto",
        "where the learner's update runs: auto (cuda when available), cpu, cuda or cuda:N; rollouts always act on a CPU copy",
    )
    progress: bool = _arg(True, "progress bar")
    tensorboard: bool = _arg(True, "TensorBoard logs in OUT/tb (if the tensorboard package is installed)")
    stop_after: int = _arg(
        0, "stop after this many batches in all, as if interrupted (0: run to --batches); --resume keeps the run's "
        "--stop-after unless it is given again",
        least=0,
    )

    @staticmethod
    def check(args: TrainArgs) -> None:
        check_device(args.device)
        if args.env not in ENVS:
            raise ValueError(f"env must be one of {', '.join(ENVS)}; got {args.env!r}")
        if args.env == "vector" and not args.vector_applies():
            raise ValueError("--env vector plays current-policy self-play (it needs --curriculum self) of a network that "
                             "reads the paper's 277 numbers or Charlesworth's 412 (it cannot train model observation=extended); "
                             f"got curriculum {args.curriculum!r}, observation {args.model.get('observation', 'paper')!r}")
        his_view = args.model.get("observation", "paper") == "charlesworth"
        if his_view and args.env_in_use() != "vector":
            raise ValueError("model observation=charlesworth (his 412 numbers) is computed by the compiled vector env: "
                             "train it with --env vector (or auto) and --curriculum self")
        if args.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {args.backend!r}")
        address = args.ray_address
        if address is not None and (args.backend != "ray" or not isinstance(address, str) or not address):
            raise ValueError(f"ray_address applies to --backend ray only and must be an address string; got {address!r}")


@dataclass
class TrainArgs(RunArgs, EvalArgs, CurriculumArgs, ValueArgs, PPOArgs, CommonArgs):
    """Arguments of a training run; every field is also a ``big2 train`` flag (``--games-per-batch``, ...).

    Its fields are those every algorithm reads (:class:`CommonArgs`) and one group for each
    algorithm and concern (:data:`FLAG_GROUPS`: PPO's, the value learners', the
    curriculum's, the evaluation's, the run's), each a dataclass with the checks between its fields
    and the run's. They are one flat namespace, as the command line and a run folder's saved
    arguments give them.

    Fields that define the experiment (algorithm, curriculum, hyperparameters,
    seed, rules, model) must stay the same on ``resume``; the others
    (:data:`RESUME_MUTABLE`: budget, logging, evaluation, threads, workers) may change.
    """

    @classmethod
    def from_preset(cls, preset: str, **fields: Any) -> "TrainArgs":
        """A run under ``preset`` with ``fields`` set on top, as ``big2 train --preset NAME`` builds it.

        ``charlesworth`` sets fields that have plain defaults too (his rules, network, cadence):
        build it here, not with ``TrainArgs(preset="charlesworth")``, which :meth:`validate` refuses.

        >>> args = TrainArgs.from_preset("charlesworth", out="runs/his", rules="paper")
        >>> args.rules, args.steps_per_batch, args.entropy, args.model["design"]
        ('paper', 20, 0.01, 'charlesworth')
        """
        return args_from_mapping({"preset": preset, **fields})

    def network_config(self) -> NetworkConfig:
        """The model: defaults, ``model`` overrides; the value head exactly for PPO."""
        wanted = self.algo == "ppo"
        if self.model.get("value_head", wanted) != wanted:
            raise ValueError(
                f"model value_head={self.model['value_head']!r} does not fit algo {self.algo!r} "
                "(PPO has a value head, the value learners do not); leave value_head out"
            )
        return NetworkConfig.from_dict({**self.model, "value_head": wanted})

    def algo_default(self, name: str) -> float:
        """A field of :data:`ALGO_DEFAULTS` (``max_grad_norm``, ``reward_scale``, ``gamma``,
        ``epsilon_start``, ``epsilon_end``, ``lr``, ``min_lr_fraction``, ``minibatch``, ``epochs``):
        its value, or the algorithm's default under the preset when ``None``."""
        value = getattr(self, name)
        if value is None:
            value = PRESET_DEFAULTS.get(self.preset, ALGO_DEFAULTS)[self.algo][name]
        return float(value)

    def algo_int(self, name: str) -> int:
        """:meth:`algo_default` for the int fields, ``minibatch`` and ``epochs``."""
        return int(self.algo_default(name))

    def vector_applies(self) -> bool:
        """Whether the compiled vector env can play this run's games: current-policy self-play
        (``--curriculum self``) of a network that reads the paper's 277 numbers."""
        return (self.curriculum == "self"
                and self.model.get("observation", "paper") in ("paper", "charlesworth"))

    def env_in_use(self) -> str:
        """``env``, with ``auto`` resolved: ``vector`` where :meth:`vector_applies`, else ``engine``."""
        if self.env != "auto":
            return self.env
        return "vector" if self.vector_applies() else "engine"

    def games_in_batch(self) -> int:
        """``games_per_batch``, or its default: :data:`GAMES_PER_BATCH` for PPO's default preset, else 64."""
        if self.games_per_batch is not None:
            return self.games_per_batch
        if self.algo == "ppo" and self.preset == "default":
            return GAMES_PER_BATCH[self.env_in_use()]
        return 64

    def resolved(self) -> "TrainArgs":
        """A copy with every default that depends on the algorithm, preset or env made concrete
        (``None`` fields and ``env="auto"``): what a new run saves, so that a later change of the
        defaults never changes how a saved run resumes."""
        values = self.to_dict()
        for name in ALGO_DEFAULTS["ppo"]:
            values[name] = self.algo_int(name) if name in ("minibatch", "epochs") else self.algo_default(name)
        values["env"] = self.env_in_use()
        values["games_per_batch"] = self.games_in_batch()
        return TrainArgs(**values)

    def value_config(self) -> ValueConfig:
        return ValueConfig(
            algo=self.algo,
            lr=self.algo_default("lr"),
            gamma=self.algo_default("gamma"),
            reward_scale=self.algo_default("reward_scale"),
            max_grad_norm=self.algo_default("max_grad_norm"),
            target_sync=self.target_sync,
            epsilon_start=self.algo_default("epsilon_start"),
            epsilon_end=self.algo_default("epsilon_end"),
            epochs=self.algo_int("epochs"),
            minibatch=self.algo_int("minibatch"),
            win_coef=self.win_coef,
        )

    def ppo_config(self) -> PPOConfig:
        return PPOConfig(
            lr=self.algo_default("lr"),
            warmup_fraction=self.warmup_fraction,
            min_lr_fraction=self.algo_default("min_lr_fraction"),
            gamma=self.algo_default("gamma"),
            gae_lambda=self.gae_lambda,
            clip=self.clip,
            value_coef=self.value_coef,
            entropy_coef=self.entropy,
            max_grad_norm=self.algo_default("max_grad_norm"),
            epochs=self.algo_int("epochs"),
            minibatch=self.algo_int("minibatch"),
            reward_scale=self.algo_default("reward_scale"),
        )

    def validate(self) -> "TrainArgs":
        """Check every field (type and range); ``ValueError`` naming the field, the value and what is allowed."""
        CommonArgs.check(self)
        check_bounds(self)
        for group in FLAG_GROUPS:
            group.check(self)
        self.network_config()
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


FLAG_GROUPS: tuple[type[Flags], ...] = (CurriculumArgs, EvalArgs, RunArgs, PPOArgs, ValueArgs)
"""The groups of :class:`TrainArgs`'s fields beside :class:`CommonArgs`, in the order :meth:`TrainArgs.validate`
checks them (after the common fields and every field's bounds)."""


def check_device(device: Any) -> str:
    """``device`` if it names a learner device (``auto``, ``cpu``, ``cuda``, ``cuda:N``), else ``ValueError``."""
    if isinstance(device, str) and (device in ("auto", "cpu", "cuda") or (device.startswith("cuda:") and device[5:].isdigit())):
        return device
    raise ValueError(f"device must be auto, cpu, cuda or cuda:N; got {device!r}")


# Fields that may differ when resuming (the rest define the experiment).
RESUME_MUTABLE = frozenset(
    {"batches", "out", "eval_every", "eval_games", "eval_opponents", "eval_seed", "eval_deterministic",
     "checkpoint_every", "keep_models_every", "checkpoint_minutes", "threads", "workers", "progress", "tensorboard",
     "stop_after", "device",
     "ray_address"}
)


EVAL_CLASSES = ("random", "greedy", "smart")
"""The heuristic opponent classes a run evaluates against by name."""


def check_eval_opponent(opponent: Any, rules: str) -> None:
    """Refuse (``ValueError``) an evaluation opponent the trainer cannot play: one of
    :data:`EVAL_CLASSES`, or ``charlesworth:PATH`` under his rules (his network's parameter file, read
    by :func:`big2_env.evaluation.loading.load_agent` as the evaluation will).

    >>> check_eval_opponent("smart", "paper")
    >>> check_eval_opponent("charlesworth:PATH", "paper")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: eval_opponents: 'charlesworth:PATH' (his network) must be played under --rules charlesworth; ...
    """
    if opponent in EVAL_CLASSES:
        return
    if isinstance(opponent, str) and opponent.startswith("charlesworth:"):
        if rules != "charlesworth":
            raise ValueError(f"eval_opponents: {opponent!r} (his network) must be played under --rules charlesworth; "
                             f"this run's rules are {rules!r}")
        from big2_env.errors import LoadError
        from big2_env.evaluation.loading import load_agent

        try:  # the loader's checks (the file exists, reads as his parameters), before a batch is trained
            load_agent(opponent, rules, what="eval_opponents")
        except LoadError as err:  # the file's own errors do not name the flag
            named = str(err) if str(err).startswith("eval_opponents") else f"eval_opponents: {opponent!r}: {err}"
            raise ValueError(named) from None
        return
    raise ValueError(f"eval_opponents: unknown opponent {opponent!r} ({', '.join(EVAL_CLASSES)}, or "
                     "charlesworth:PATH under his rules)")


def duel_deals(eval_games: int) -> int:
    """The deals of an evaluation duel against his network of ``eval_games`` games: each deal is played in
    all four seats, so a quarter of them (at least one).

    >>> duel_deals(600), duel_deals(2)
    (150, 1)
    """
    return max(1, eval_games // 4)


def eval_opponent_name(opponent: str) -> str:
    """The name an evaluation opponent is logged under (``metrics.csv``, TensorBoard): ``charlesworth``
    for ``charlesworth:PATH``, else the class.

    >>> eval_opponent_name("charlesworth:/work/modelParameters136500"), eval_opponent_name("smart")
    ('charlesworth', 'smart')
    """
    return opponent.split(":", 1)[0]


def without_removed(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (training arguments) without the :data:`REMOVED_FIELDS` left off; ``ValueError`` naming a
    removed algorithm or a removed option that was on (a run saved, or a config file written, before they went)."""
    if "algo" in data:
        check_algo(data["algo"])
    for name, (off, study) in REMOVED_FIELDS.items():
        if name in data and off is not None and data[name] != off:
            raise removed(f"{name}={data[name]!r}", study)
    return {k: v for k, v in data.items() if k not in REMOVED_FIELDS}


def args_from_mapping(data: Mapping[str, Any], base: TrainArgs | None = None) -> TrainArgs:
    """``TrainArgs`` from a dict (a config file, a checkpoint); unknown keys raise ``ValueError``."""
    data = without_removed(data)
    known = {f.name: f for f in fields(TrainArgs)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown training argument(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if data.get("preset") == "charlesworth":  # his recipe beneath what the run sets itself
        data = {**CHARLESWORTH_PRESET, **data, "model": {**CHARLESWORTH_PRESET["model"], **dict(data.get("model", {}))}}
    values = (base or TrainArgs()).to_dict()
    values.update({k: (list(v) if k == "eval_opponents" else (dict(v) if k == "model" else v)) for k, v in data.items()})
    return TrainArgs(**values)


def load_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """Training arguments from a JSON (``.json``) or TOML (``.toml``) file (``model`` may be a table)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no such config file: {str(path)!r}")
    text = path.read_text()
    try:
        if path.suffix.lower() == ".toml":
            try:
                import tomllib
            except ImportError:  # Python 3.10
                import tomli as tomllib  # type: ignore[no-redef]
            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except Exception as err:
        raise ValueError(f"could not parse config file {str(path)!r}: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must hold a table/object of training arguments")
    data = without_removed({k.replace("-", "_"): v for k, v in data.items()})
    args_from_mapping(data)  # validates the names
    return data


