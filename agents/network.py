"""The card-aware policy/value network of the paper (section 3.2, appendix B).

State encoder (input: the 277-number information state of the spec, section 3):

* one **card embedding table** ``card_embedding`` (53 rows: cards 0..51 and the
  padding id 52, whose row is fixed at zero) shared by every card-valued field;
* the **hand** (slots 0:13, card ids padded with 52) is embedded, passed through
  one masked multi-head self-attention block (padded slots masked as keys, then a
  feed-forward sub-layer, post-norm like ``TransformerEncoderLayer``; no positional
  encoding: a hand is a set) and mean-pooled over the held cards;
* the **trick**, the **seen cards** and **each opponent's played cards** (52-card
  indicators) are projected through the *same* table, ``indicator @ E[:52]``, and
  divided by a fixed 13 (:data:`INDICATOR_SCALE`), *not* by the number of cards: a
  mean would hide how many cards a set holds (a pair and a five-card trick of
  similar cards would look alike), the fixed scale keeps that count while keeping
  the magnitudes of the 52-card "seen" set within a few embedding norms. Each goes
  through a small feed-forward encoder (trick, seen, and one encoder shared by the
  three opponents, whose outputs are concatenated in clockwise order: next,
  across, previous);
* the **opponents' card counts** and the **pass count** (each one-hot over
  0..13) go through their own linear layer and ReLU;
* everything is concatenated, projected to ``state_dim``, layer-normalised and
  refined by a residual feed-forward block: the state embedding ``s``.

Action encoder and scorer: each legal candidate's 80 features go through a
two-layer MLP to ``action_dim``; a learned linear projection maps ``s`` into the
same space and the score is the scaled dot product ``<a, W s> / sqrt(action_dim)``:
the logit of PPO's policy (or Q(o, a) for a value learner). PPO's value head is an
MLP on ``s``.

Batches are ragged: the candidates of a batch of states are given **flat**
(``features`` (M, 80) with ``owner`` (M,) naming the state each row belongs to and
``slot`` its position in that state's list), so the action MLP runs once over the
real candidates only; scores are scattered into a ``(B, K_max)`` matrix padded
with ``-inf``. :meth:`Big2Net.forward_padded` takes the padded form
``(B, K, 80)`` plus a mask instead. :func:`pack_candidates` builds the flat index
arrays with numpy.

The architecture is fixed by :class:`NetworkConfig` (a frozen dataclass stored in
every checkpoint); ``Big2Net(NetworkConfig())`` has about 2.3e5 parameters
(:func:`count_parameters`), under 1 MB of float32 weights.

Each design is its own class, named by ``NetworkConfig.design`` in :data:`NETWORKS`:
:class:`PaperNet` (``"paper"``, above), :class:`PlusNet` (``"plus"``)
and :class:`CharlesworthNet` (``"charlesworth"``), all :class:`Big2Net`, which holds what they
share. ``Big2Net(config)`` and :func:`build_network` build the class the config names.

**The stronger design** (``NetworkConfig(design="plus")``; the paper's stays the
default, unchanged). The dot product above cannot tell what a play leaves behind,
and the card sets reach the state only through the 32-wide embedding. ``"plus"``
adds, on top of everything above:

* a **full-rank path** for the card sets: the raw 52-card indicators of the hand,
  the trick, the seen cards and each opponent's played cards (6 x 52) through one
  linear layer and ReLU, so "2S already played" is one weight away;
* **own hand size** (one-hot 0..13) beside the opponents' counts;
* a **candidate scorer that is an MLP** over the state embedding, the candidate's
  embedding and an embedding of **the hand the play would leave** (the hand's
  indicator minus the play's cards, through a linear layer and ReLU):
  ``score = w . relu(A s + B a + C l + b) + c``. Whether a play breaks a pair or a
  straight, or leaves low orphans, is a function of ``l`` the MLP can learn.

``NetworkConfig(scorer_blocks=n)`` (plus design) stacks ``n`` residual blocks
``h = relu(h + W2 relu(W1 h))`` on the scorer's hidden layer: the wide residual
stack of the Big 2 Deep Monte Carlo study (seed ``004``), for ``--algo dmc``.

``NetworkConfig(win_head=True)`` (either design, value learners only) gives every
candidate a second output, the logit of the probability that the player wins the game
(AlphaDou, seed ``003``): the paper design gets a second state projection (a second
dot product), the plus design a second output of its scorer. :meth:`Big2Net.forward_heads`
returns it beside the scores.

``NetworkConfig(observation="charlesworth")`` (the paper design; or his own network, above) reads
Charlesworth's 412 hand-made numbers (:mod:`big2_env.players.charlesworth`): one ReLU layer
(``mlp_hidden`` wide) over them takes the place of the card embedding, the hand attention and the
card-set and count encoders; the projection to the state embedding, its residual block, the
candidate encoder, the dot-product scorer and the value head are the paper design's. It is row (d)
of the learner ablation: his inputs, our network.

``NetworkConfig(observation="extended")`` (either design) reads the 315-number
extended observation (:mod:`big2_env.observations.extended`): its 38 extra numbers (own cards
left, who holds control, who passed on what) go through their own linear layer and
ReLU into the state embedding; the 277 are encoded as above.
"""

from __future__ import annotations

import math
from typing import ClassVar, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from big2_env.observations.compiled import NUM_ACTIONS, PASS_ACTION, SLOT_INDEX
from big2_env.observations.extended import EXTENDED_SIZE

from .config import CHARLESWORTH_INPUTS, NetworkConfig

__all__ = ["MAX_PARAMETERS", "NETWORKS", "Big2Net", "CharlesworthNet", "HandEncoder",
           "NetworkConfig", "PaperNet", "PlusNet", "build_network", "charlesworth_network", "count_parameters",
           "network_class", "pack_candidates", "parameter_count"]

OBS_SIZE = 277
FEATURE_SIZE = 80
NUM_CARDS = 52
PAD_CARD = 52
INDICATOR_SCALE = 13.0
"""Card-set indicators are projected as ``indicator @ E[:52] / 13`` (see the module docstring)."""

_HAND = slice(0, 13)
_CARD_SETS = (slice(13, 117), slice(121, 277))  # trick, seen | played by next, across, previous
_COUNTS = slice(117, 121)  # cards left of next, across, previous; passes (0..3)
_COUNT_VALUES = 14  # one-hot width of each count (0..13)
_COUNT_INPUT = 4 * _COUNT_VALUES
_EXTRA = slice(OBS_SIZE, EXTENDED_SIZE)  # the extended observation's 38 extra numbers
_RAW_SETS = 6 * NUM_CARDS  # hand, trick, seen, played by next, across, previous: the plus design's full-rank path
_CW_BRANCH = 256  # Charlesworth's network: the width of its policy and value branches
_CW_HAND = 13 * 22  # his inputs open with 13 hand slots of 22 numbers: value one-hot (13), suit one-hot (4), flags
_KEY_BLOCK = 16
"""The hand attention's keys are padded to a multiple of this (see :meth:`HandEncoder.forward_ids`)."""


class HandEncoder(nn.Module):
    """Masked multi-head self-attention over the held cards, then a masked mean over them.

    A post-norm transformer encoder layer (attention, add & norm, feed-forward, add &
    norm) written out with plain matrix products: for 13 tokens this is several times
    faster on CPU than ``nn.MultiheadAttention``'s fused kernels, and it computes the
    same function (``tests/agents/test_agents_network.py`` checks it against
    ``nn.MultiheadAttention`` with a ``key_padding_mask``). :meth:`forward` is the
    plain form; :meth:`forward_ids`, the one the network uses, computes the same
    function faster.
    """

    def __init__(self, dim: int, heads: int, ff: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, ff), nn.ReLU(), nn.Linear(ff, dim))
        self.norm2 = nn.LayerNorm(dim)

    def attend(self, cards: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        """Multi-head self-attention with padded keys masked out: (B, T, dim) -> (B, T, dim)."""
        batch, tokens, dim = cards.shape
        head_dim = dim // self.heads
        q, k, v = self.qkv(cards).split(dim, dim=-1)
        q, k, v = (t.reshape(batch, tokens, self.heads, head_dim).transpose(1, 2) for t in (q, k, v))  # (B, H, T, d)
        logits = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(head_dim))
        logits = logits.masked_fill(pad[:, None, None, :], -math.inf)
        mixed = torch.softmax(logits, dim=-1) @ v  # (B, H, T, d)
        return self.out(mixed.transpose(1, 2).reshape(batch, tokens, dim))

    def forward(self, cards: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        """``cards`` (B, 13, dim) embedded hand, ``pad`` (B, 13) True at padding -> (B, dim).

        Every row must hold at least one card (a player on move always does).
        """
        x = self.norm1(cards + self.attend(cards, pad))
        x = self.norm2(x + self.ff(x))
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        return (x * keep).sum(1) / keep.sum(1).clamp_min(1.0)

    def forward_ids(self, ids: torch.Tensor, embedding: nn.Embedding) -> torch.Tensor:
        """The hand of card ids (B, T), padded with 52 -> (B, dim): ``forward(embedding(ids), ids == 52)``.

        Faster, same function (up to float rounding):

        * the tokens are rows of the 53-row embedding table, so the query/key/value
          projection is applied to the table, and the attention logit of every
          (query card, key card) pair is computed once, in a ``(heads, 53, 53)``
          table whose padding-key column is ``-inf``; each hand gathers its logits
          and values from the tables;
        * the keys are padded with padding ids to a multiple of :data:`_KEY_BLOCK`: a
          softmax over a last dimension shorter than the SIMD width runs a scalar
          loop, several times slower than over 16 entries;
        * everything after the attention (output projection, norms, feed-forward,
          mean) works on the held cards only, packed: the padding slots (about 40% of
          them over a game), masked out of the mean, are never computed.

        Every row must hold at least one card, as for :meth:`forward`.
        """
        table = embedding.weight
        rows, dim = table.shape
        batch, tokens = ids.shape
        heads, head_dim = self.heads, dim // self.heads
        keys = -(-tokens // _KEY_BLOCK) * _KEY_BLOCK
        key_ids = F.pad(ids, (0, keys - tokens), value=PAD_CARD)
        q, k, v = (t.reshape(rows, heads, head_dim).transpose(0, 1) for t in self.qkv(table).split(dim, dim=1))  # (H, 53, d)
        key_mask = table.new_zeros(rows)
        key_mask[PAD_CARD] = -math.inf
        pair = torch.baddbmm(key_mask, q, k.transpose(1, 2), alpha=1.0 / math.sqrt(head_dim))  # (H, 53, 53)
        index = (ids.unsqueeze(2) * rows + key_ids.unsqueeze(1)).reshape(-1)  # (B * T * keys)
        logits = pair.reshape(heads, rows * rows).index_select(1, index).view(heads * batch, tokens, keys)
        # Each key's row in the values table seen as (H * 53, d), head by head.
        value_rows = (torch.arange(heads, device=ids.device) * rows).unsqueeze(1) + key_ids.reshape(1, -1)
        values = v.reshape(heads * rows, head_dim).index_select(0, value_rows.reshape(-1)).view(heads * batch, keys, head_dim)
        mixed = torch.bmm(torch.softmax(logits, dim=-1), values)  # (H * B, T, d)
        mixed = mixed.view(heads, batch * tokens, head_dim).transpose(0, 1).reshape(batch * tokens, dim)
        # The held cards, packed: their flat (state, slot) positions, state by state.
        held = ids != PAD_CARD
        flat = held.reshape(-1).nonzero().squeeze(1)
        mixed = mixed.index_select(0, flat)
        x = self.norm1(F.embedding(ids.reshape(-1).index_select(0, flat), table) + self.out(mixed))
        x = self.norm2(x + self.ff(x))
        total = x.new_zeros(batch, dim).index_add_(0, flat // tokens, x)
        return total / held.sum(1, keepdim=True).to(x.dtype).clamp_min(1.0)


class Big2Net(nn.Module):
    """A policy/value network over ragged candidate sets: what every design shares.

    ``Big2Net(config)`` builds the design ``config.design`` names (:data:`NETWORKS`, the same
    as :func:`build_network`), so every network is a ``Big2Net``. Each design supplies
    :meth:`encode_state` (observations to state embeddings), :meth:`encode_actions`
    (candidate features to what its scorer reads) and :meth:`candidate_outputs` (each
    candidate's score, and win logit); the forward passes built on them are here:
    :meth:`forward` (flat candidates), :meth:`forward_heads`, :meth:`forward_padded`,
    :meth:`score_pairs`.
    """

    design: ClassVar[str]  # the NetworkConfig.design this class builds
    candidates_read_features: ClassVar[bool] = True  # candidate_outputs reads each candidate's features
    _count_values: torch.Tensor  # the buffer 0..13 the counts are one-hot encoded against
    value: nn.Module | None  # the value head (None for the value learners' Q-networks)

    def __new__(cls, config: NetworkConfig | None = None) -> Big2Net:
        if cls is Big2Net:
            cls = network_class(config or NetworkConfig())
        return super().__new__(cls)

    def __init__(self, config: NetworkConfig | None = None) -> None:
        super().__init__()
        self.config = cfg = config or NetworkConfig()
        if cfg.design != self.design:
            raise ValueError(f"{type(self).__name__} builds design={self.design!r}; the config asks for "
                             f"design={cfg.design!r} (Big2Net(config) or build_network(config) picks the class)")
        parameter_count(cfg)  # refuses an oversized config before anything is allocated
        self.register_buffer("_count_values", torch.arange(_COUNT_VALUES, dtype=torch.float32), persistent=False)
        self.outputs = 2 if cfg.win_head else 1  # per candidate: the score, then (win_head) the win logit
        self.obs_size = {"extended": EXTENDED_SIZE, "charlesworth": CHARLESWORTH_INPUTS}.get(cfg.observation, OBS_SIZE)

    @staticmethod
    def _value_head(cfg: NetworkConfig) -> nn.Module | None:
        if not cfg.value_head:
            return None
        return nn.Sequential(nn.Linear(cfg.state_dim, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1))

    @property
    def device(self) -> torch.device:
        """Where the weights are (the learner may train on a GPU while rollouts act on a CPU copy)."""
        return self._count_values.device

    def tensor(self, array: np.ndarray) -> torch.Tensor:
        """A numpy array as a tensor on this network's device (no copy on the CPU)."""
        return torch.from_numpy(array).to(self.device)

    # ------------------------------------------------------------ encoders
    def check_obs(self, obs: torch.Tensor) -> None:
        """``ValueError`` unless ``obs`` is (B, 277) (or (B, 315) for ``observation="extended"``)."""
        if obs.dim() != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(
                f"this network reads {self.obs_size}-number observations (NetworkConfig.observation="
                f"{self.config.observation!r}); got shape {tuple(obs.shape)}"
            )

    def hand_indicator(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, 52) indicator of the hand held (from the card ids of slots 0:13, or from the value and
        suit one-hots of Charlesworth's 13 hand slots)."""
        if self.obs_size == CHARLESWORTH_INPUTS:
            slots = obs[:, :_CW_HAND].reshape(obs.shape[0], 13, 22)
            held = slots[:, :, :13].sum(-1) > 0.5
            cards = slots[:, :, :13].argmax(-1) * 4 + slots[:, :, 13:17].argmax(-1)
            ids = torch.where(held, cards, torch.full_like(cards, NUM_CARDS))
            return obs.new_zeros(obs.shape[0], NUM_CARDS + 1).scatter_(1, ids, 1.0)[:, :NUM_CARDS]
        ids = obs[:, _HAND].long()
        return obs.new_zeros(obs.shape[0], NUM_CARDS + 1).scatter_(1, ids, 1.0)[:, :NUM_CARDS]

    def counts_one_hot(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, 56): the opponents' cards left and the pass count, each one-hot over 0..13."""
        return (obs[:, _COUNTS].unsqueeze(-1) == self._count_values).to(obs.dtype).reshape(obs.shape[0], _COUNT_INPUT)

    def encode_state(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, obs_size) observations -> (B, state_dim) state embeddings."""
        raise NotImplementedError

    def encode_actions(self, features: torch.Tensor) -> torch.Tensor:
        """(..., 80) candidate features -> what :meth:`candidate_outputs` reads as ``actions``
        (the features themselves unless a design embeds them)."""
        return features

    def candidate_outputs(
        self, state: torch.Tensor, obs: torch.Tensor, actions: torch.Tensor, features: torch.Tensor, owner: torch.Tensor
    ) -> torch.Tensor:
        """What the network says of every candidate row: (M,) scores, or (M, 2) scores and win
        logits for a ``win_head`` network (arguments as for :meth:`score_candidates`)."""
        raise NotImplementedError

    def score_candidates(
        self, state: torch.Tensor, obs: torch.Tensor, actions: torch.Tensor, features: torch.Tensor, owner: torch.Tensor
    ) -> torch.Tensor:
        """The score of every candidate row: ``actions`` (M, ...) the :meth:`encode_actions` of
        ``features`` (M, 80), candidate ``i`` belonging to state ``owner[i]``."""
        outputs = self.candidate_outputs(state, obs, actions, features, owner)
        return outputs if outputs.dim() == 1 else outputs[:, 0]

    def state_value(self, state: torch.Tensor) -> torch.Tensor:
        if self.value is None:
            raise RuntimeError("this network has no value head (NetworkConfig.value_head=False)")
        return self.value(state).squeeze(-1)

    # ------------------------------------------------------------ forward
    def forward(
        self,
        obs: torch.Tensor,
        features: torch.Tensor,
        owner: torch.Tensor,
        slot: torch.Tensor,
        max_candidates: int,
        feature_index: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Scores of ragged candidate sets, padded to ``(B, max_candidates)`` with ``-inf``.

        Args:
            obs: (B, 277) float information states.
            features: (M, 80) features of every candidate of every state, state by state.
            owner: (M,) long, the state (0..B-1) each candidate belongs to.
            slot: (M,) long, the candidate's position in its state's list.
            max_candidates: K, the largest candidate count in the batch.
            feature_index: optional (M,) long: ``features`` then holds only the
                distinct candidate rows and candidate ``i`` is ``features[feature_index[i]]``
                (the same combination recurs across states: the trainer encodes it once).

        Returns:
            ``(scores, value)``: scores (B, K), ``-inf`` where there is no candidate
            (logits for PPO, Q values for a value learner), and value (B,) (``None``
            without a value head).
        """
        scores, _, value = self.forward_heads(obs, features, owner, slot, max_candidates, feature_index)
        return scores, value

    def forward_heads(
        self,
        obs: torch.Tensor,
        features: torch.Tensor,
        owner: torch.Tensor,
        slot: torch.Tensor,
        max_candidates: int,
        feature_index: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """:meth:`forward` plus the win logits: ``(scores, win, value)``, ``win`` (B, K) padded
        with ``-inf`` for a ``win_head`` network, else ``None``."""
        state = self.encode_state(obs)
        actions = self.encode_actions(features)
        if feature_index is not None:
            actions = actions.index_select(0, feature_index)
            if self.candidates_read_features:
                features = features.index_select(0, feature_index)
        flat = self.candidate_outputs(state, obs, actions, features, owner)
        padded = flat.new_full((obs.shape[0], max_candidates) + flat.shape[1:], -math.inf).index_put((owner, slot), flat)
        scores, win = (padded, None) if self.outputs == 1 else (padded[..., 0], padded[..., 1])
        value = self.state_value(state) if self.value is not None else None
        return scores, win, value

    def score_pairs(self, obs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """The score of one given candidate per state: ``obs`` (B, 277), ``features`` (B, 80) -> (B,).

        The same function as :meth:`forward`'s score of that candidate (up to float
        rounding), without encoding the other candidates: what a value learner's loss
        (Q of the chosen action) and SARSA's target (Q of the next chosen action) need.
        """
        outputs = self.pair_outputs(obs, features)
        return outputs if outputs.dim() == 1 else outputs[:, 0]

    def pair_outputs(self, obs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """:meth:`score_pairs` with every output: (B,) scores, or (B, 2) scores and win logits."""
        owner = torch.arange(obs.shape[0], device=obs.device)
        return self.candidate_outputs(self.encode_state(obs), obs, self.encode_actions(features), features, owner)

    def forward_padded(
        self, obs: torch.Tensor, features: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Same as :meth:`forward` with candidates given padded: ``features`` (B, K, 80),
        ``mask`` (B, K) True for real candidates. Padded rows are never encoded and score ``-inf``."""
        owner, slot = mask.nonzero(as_tuple=True)
        return self.forward(obs, features[owner, slot], owner, slot, features.shape[1])


class PaperNet(Big2Net):
    """The paper's design (``design="paper"``): card embedding, hand attention, card-set and count
    encoders (or one ReLU layer over Charlesworth's 412 inputs), a residual state embedding, a
    candidate MLP and the dot-product scorer ``<a, W s> / sqrt(action_dim)`` (the module docstring)."""

    design = "paper"
    candidates_read_features = False
    his_inputs: nn.Module | None  # the layer over Charlesworth's 412 inputs (None: the card encoders)

    def __init__(self, config: NetworkConfig | None = None) -> None:
        super().__init__(config)
        cfg = self.config
        # On Charlesworth's 412 inputs: one ReLU layer over them in place of the card encoders below;
        # the state embedding and the candidates as always.
        self.his_inputs = (nn.Sequential(nn.Linear(CHARLESWORTH_INPUTS, cfg.mlp_hidden), nn.ReLU())
                           if cfg.observation == "charlesworth" else None)
        if self.his_inputs is None:
            self.card_embedding = nn.Embedding(NUM_CARDS + 1, cfg.card_dim, padding_idx=PAD_CARD)
            self.hand = HandEncoder(cfg.card_dim, cfg.hand_heads, cfg.hand_ff)
            # Card-set encoders (Linear + ReLU each, applied together in encode_state).
            self.trick_encoder = nn.Linear(cfg.card_dim, cfg.field_dim)
            self.seen_encoder = nn.Linear(cfg.card_dim, cfg.field_dim)
            self.opponent_encoder = nn.Linear(cfg.card_dim, cfg.field_dim)  # shared by the three opponents
            self.count_encoder = nn.Sequential(nn.Linear(_COUNT_INPUT, cfg.count_dim), nn.ReLU())
        joined = cfg.mlp_hidden if self.his_inputs is not None else cfg.card_dim + 5 * cfg.field_dim + cfg.count_dim
        joined += self._build_card_sets(cfg)
        extra = _extra_inputs(cfg)
        self.extra_encoder = nn.Sequential(nn.Linear(extra, cfg.count_dim), nn.ReLU()) if extra else None
        joined += cfg.count_dim if extra else 0
        self.project = nn.Linear(joined, cfg.state_dim)
        self.norm = nn.LayerNorm(cfg.state_dim)
        self.residual = nn.Sequential(nn.Linear(cfg.state_dim, cfg.state_ff), nn.ReLU(), nn.Linear(cfg.state_ff, cfg.state_dim))
        self.action_encoder = nn.Sequential(
            nn.Linear(FEATURE_SIZE, cfg.action_hidden), nn.ReLU(), nn.Linear(cfg.action_hidden, cfg.action_dim)
        )
        self._build_scorer(cfg)
        self.score_scale = 1.0 / math.sqrt(cfg.action_dim)
        self.value = self._value_head(cfg)  # last: the parameter order of saved optimiser states

    def _build_card_sets(self, cfg: NetworkConfig) -> int:
        """The layers of further card-set inputs of the state embedding (none here); returns their width."""
        return 0

    def _build_scorer(self, cfg: NetworkConfig) -> None:
        """The scorer's layers: the state's projection(s) into the candidates' space."""
        self.state_to_action = nn.Linear(cfg.state_dim, cfg.action_dim * self.outputs)

    def extra_inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The inputs of ``extra_encoder``: the extended observation's 38 extra numbers."""
        return obs[:, _EXTRA]

    def card_set_parts(self, obs: torch.Tensor) -> list[torch.Tensor]:
        """The state embedding's inputs beside the hand, the card-set fields and the counts (none here)."""
        return []

    def encode_state(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, 277) information states (or (B, 315) extended ones, or Charlesworth's (B, 412))
        -> (B, state_dim) state embeddings."""
        self.check_obs(obs)
        if self.his_inputs is not None:
            state = self.norm(self.project(self.his_inputs(obs)))
            return state + self.residual(state)
        batch = obs.shape[0]
        hand = self.hand.forward_ids(obs[:, _HAND].long(), self.card_embedding)
        # The five card sets (trick, seen, played by each opponent) through the shared table ...
        sets = torch.cat([obs[:, part] for part in _CARD_SETS], dim=1).reshape(batch, 5, NUM_CARDS)
        projected = sets @ (self.card_embedding.weight[:NUM_CARDS] * (1.0 / INDICATOR_SCALE))  # (B, 5, card_dim)
        # ... and each through its encoder (one batched product: trick, seen, opponent x 3).
        encoders = (self.trick_encoder, self.seen_encoder, self.opponent_encoder, self.opponent_encoder, self.opponent_encoder)
        weight = torch.stack([e.weight for e in encoders]).transpose(1, 2)  # (5, card_dim, field_dim)
        bias = torch.stack([e.bias for e in encoders]).unsqueeze(1)  # (5, 1, field_dim)
        fields = torch.relu(torch.baddbmm(bias, projected.transpose(0, 1), weight))  # (5, B, field_dim)
        fields = fields.transpose(0, 1).reshape(batch, -1)
        # Cards left of each opponent and passes, one-hot.
        counts = self.count_encoder(self.counts_one_hot(obs))
        parts = [hand, fields, counts, *self.card_set_parts(obs)]
        if self.extra_encoder is not None:
            parts.append(self.extra_encoder(self.extra_inputs(obs)))
        state = self.norm(self.project(torch.cat(parts, dim=1)))
        return state + self.residual(state)

    def encode_actions(self, features: torch.Tensor) -> torch.Tensor:
        """(..., 80) candidate features -> (..., action_dim) candidate embeddings."""
        return self.action_encoder(features)

    def candidate_outputs(
        self, state: torch.Tensor, obs: torch.Tensor, actions: torch.Tensor, features: torch.Tensor, owner: torch.Tensor
    ) -> torch.Tensor:
        """The scaled dot product of each candidate's embedding with its state's projection(s)."""
        query = self.state_to_action(state).index_select(0, owner)
        if self.outputs == 1:
            return (actions * query).sum(-1) * self.score_scale
        return (actions.unsqueeze(1) * query.view(len(owner), self.outputs, -1)).sum(-1) * self.score_scale


class PlusNet(PaperNet):
    """The stronger design (``design="plus"``): the paper's, plus a full-rank path for the card sets,
    the own hand size, and an MLP scorer over the state, the candidate and the hand it would leave
    (the module docstring)."""

    design = "plus"
    candidates_read_features = True

    def _build_card_sets(self, cfg: NetworkConfig) -> int:
        """The full-rank path: the six raw 52-card indicators through one linear layer (and ReLU)."""
        self.raw_sets = nn.Linear(_RAW_SETS, cfg.field_dim)
        return cfg.field_dim

    def _build_scorer(self, cfg: NetworkConfig) -> None:
        """score = w . relu(A s + B [a, l] + b) + c, l = relu(L left), with ``scorer_blocks`` residual blocks."""
        self.left_encoder = nn.Linear(NUM_CARDS, cfg.action_dim)
        self.scorer_state = nn.Linear(cfg.state_dim, cfg.scorer_hidden)
        self.scorer_candidate = nn.Linear(2 * cfg.action_dim, cfg.scorer_hidden, bias=False)
        self.scorer_blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
            for width in [cfg.scorer_hidden] * cfg.scorer_blocks
        )
        self.scorer_out = nn.Linear(cfg.scorer_hidden, self.outputs)

    def extra_inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The inputs of ``extra_encoder``: own hand size one-hot, then the extended numbers."""
        size = (obs[:, _HAND] != PAD_CARD).sum(1, keepdim=True).to(obs.dtype)
        parts = [(size == self._count_values).to(obs.dtype)]
        if self.obs_size == EXTENDED_SIZE:
            parts.append(obs[:, _EXTRA])
        return torch.cat(parts, dim=1)

    def card_set_parts(self, obs: torch.Tensor) -> list[torch.Tensor]:
        """The full-rank path over the hand, the trick, the seen cards and each opponent's plays."""
        raw = torch.cat((self.hand_indicator(obs), obs[:, _CARD_SETS[0]], obs[:, _CARD_SETS[1]]), dim=1)
        return [torch.relu(self.raw_sets(raw))]

    def candidate_outputs(
        self, state: torch.Tensor, obs: torch.Tensor, actions: torch.Tensor, features: torch.Tensor, owner: torch.Tensor
    ) -> torch.Tensor:
        """The scorer MLP over the state, the candidate's embedding and the hand it would leave."""
        left = self.hand_indicator(obs).index_select(0, owner) - features[:, :NUM_CARDS]
        candidate = torch.cat((actions, torch.relu(self.left_encoder(left))), dim=1)
        hidden = torch.relu(self.scorer_state(state).index_select(0, owner) + self.scorer_candidate(candidate))
        for block in self.scorer_blocks:
            hidden = torch.relu(hidden + block(hidden))
        out = self.scorer_out(hidden)
        return out.squeeze(-1) if self.outputs == 1 else out


class CharlesworthNet(Big2Net):
    """Charlesworth's network exactly (``design="charlesworth"``): his 412 inputs -> 512 -> 256 ->
    1695 logits, 512 -> 256 -> 1 value, with his baselines' orthogonal initialisation."""

    design = "charlesworth"
    _slot_index: torch.Tensor  # action index of each 13-bit set of hand slots

    def __init__(self, config: NetworkConfig | None = None) -> None:
        super().__init__(config)
        cfg = self.config
        self.trunk = nn.Sequential(nn.Linear(CHARLESWORTH_INPUTS, cfg.mlp_hidden), nn.ReLU())
        self.policy_branch = nn.Sequential(nn.Linear(cfg.mlp_hidden, _CW_BRANCH), nn.ReLU())
        self.action_head = nn.Linear(_CW_BRANCH, NUM_ACTIONS * self.outputs)
        self.register_buffer("_slot_index", torch.from_numpy(SLOT_INDEX.copy()), persistent=False)
        value_layers = (nn.Linear(cfg.mlp_hidden, _CW_BRANCH), nn.Linear(_CW_BRANCH, 1))
        self.value = nn.Sequential(value_layers[0], nn.ReLU(), value_layers[1]) if cfg.value_head else None
        # his baselines fc layers: orthogonal weights (gain sqrt 2; the policy 0.01, the value 1), zero biases
        first, second = self.trunk[0], self.policy_branch[0]
        assert isinstance(first, nn.Linear) and isinstance(second, nn.Linear)
        gains = [(first, math.sqrt(2)), (second, math.sqrt(2)), (self.action_head, 0.01)]
        if self.value is not None:
            gains += [(value_layers[0], math.sqrt(2)), (value_layers[1], 1.0)]
        for layer, gain in gains:
            nn.init.orthogonal_(layer.weight, gain)
            nn.init.zeros_(layer.bias)

    def encode_state(self, obs: torch.Tensor) -> torch.Tensor:
        """His (B, 412) inputs -> (B, mlp_hidden): his shared first layer."""
        self.check_obs(obs)
        return self.trunk(obs)

    def action_indices(self, obs: torch.Tensor, features: torch.Tensor, owner: torch.Tensor) -> torch.Tensor:
        """The 1695-action index of every candidate row (M,): its cards' positions in the owner's
        sorted hand, as the index defines it (pass: 1694)."""
        hand = self.hand_indicator(obs)
        below = (torch.cumsum(hand, dim=1) - hand).index_select(0, owner)  # held cards under each card
        bits = features[:, :NUM_CARDS] > 0.5
        slots = (torch.exp2(below) * bits).sum(1).round().long()  # exact: at most 2^13 in float32
        index = self._slot_index.index_select(0, slots.clamp_(0, self._slot_index.shape[0] - 1))
        return torch.where(features[:, NUM_CARDS] > 0.5, torch.full_like(index, PASS_ACTION), index)

    def candidate_outputs(
        self, state: torch.Tensor, obs: torch.Tensor, actions: torch.Tensor, features: torch.Tensor, owner: torch.Tensor
    ) -> torch.Tensor:
        """Each candidate's output(s) of the 1695-way head, looked up by its action index
        (:meth:`action_indices`). With one output, only the candidates' rows of the head are
        computed: the same logits, a fraction of the work (the head is half his network's weights,
        and a decision has a handful of legal actions)."""
        index = self.action_indices(obs, features, owner)
        hidden = self.policy_branch(state)
        if self.outputs != 1:
            logits = self.action_head(hidden).view(state.shape[0], self.outputs, NUM_ACTIONS)
            return logits.index_select(0, owner).gather(2, index.view(-1, 1, 1).expand(-1, self.outputs, 1)).squeeze(-1)
        weight = self.action_head.weight.index_select(0, index)
        return (hidden.index_select(0, owner) * weight).sum(-1) + self.action_head.bias.index_select(0, index)


NETWORKS: dict[str, type[Big2Net]] = {cls.design: cls for cls in (PaperNet, PlusNet, CharlesworthNet)}
"""The network class of each ``NetworkConfig.design``."""


def network_class(config: NetworkConfig) -> type[Big2Net]:
    """The class that builds ``config``'s design (:data:`NETWORKS`).

    >>> network_class(NetworkConfig(design="plus")).__name__
    'PlusNet'
    """
    try:
        return NETWORKS[config.design]
    except KeyError:
        raise ValueError(f"no network design {config.design!r}; the designs are {sorted(NETWORKS)}") from None


def build_network(config: NetworkConfig | None = None) -> Big2Net:
    """The network of ``config`` (default: the paper's), of the class its design names; the same as
    ``Big2Net(config)``.

    >>> type(build_network(NetworkConfig(design="plus"))).__name__
    'PlusNet'
    """
    return network_class(config or NetworkConfig())(config)


def charlesworth_network(arrays: Sequence[np.ndarray]) -> CharlesworthNet:
    """His network (his ten arrays, :func:`big2_env.players.charlesworth.load_parameters`) as a :class:`Big2Net`
    of his design, weight for weight: the same logits and value as
    :class:`~big2_env.players.charlesworth.CharlesworthNetwork` on his 412 inputs, in torch, where batched
    code such as :class:`~agents.net_search.NetworkRollouts` can play it. His arrays store weights inputs x
    outputs (fc1, fc2, the policy head, fc3, the value head; each weight then its bias)."""
    from big2_env.players.charlesworth import PARAMETER_SHAPES

    if len(arrays) != len(PARAMETER_SHAPES) or [np.shape(a) for a in arrays] != list(PARAMETER_SHAPES):
        raise ValueError(f"his network is ten arrays of shapes {list(PARAMETER_SHAPES)}; got "
                         f"{[np.shape(a) for a in arrays]}")
    model = CharlesworthNet(NetworkConfig(design="charlesworth", observation="charlesworth"))
    value = model.value
    assert isinstance(value, nn.Sequential)
    layers = [model.trunk[0], model.policy_branch[0], model.action_head, value[0], value[2]]
    with torch.no_grad():
        for layer, weight, bias in zip(layers, arrays[0::2], arrays[1::2]):
            assert isinstance(layer, nn.Linear)
            layer.weight.copy_(torch.tensor(np.asarray(weight, dtype=np.float32)).T)
            layer.bias.copy_(torch.tensor(np.asarray(bias, dtype=np.float32)))
    return model.eval()


def pack_candidates(counts: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(owner, slot, K)`` index arrays for states with ``counts`` candidates each (numpy, int64).

    >>> owner, slot, k = pack_candidates([2, 3])
    >>> owner.tolist(), slot.tolist(), k
    ([0, 0, 1, 1, 1], [0, 1, 0, 1, 2], 3)
    """
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    slot = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    return owner, slot, int(counts.max()) if len(counts) else 0


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


MAX_PARAMETERS = 50_000_000
"""The most parameters a :class:`Big2Net` may have (200 MB of float32 weights; the default has about 2.3e5)."""


def parameter_count(config: NetworkConfig) -> int:
    """The parameter count of ``Big2Net(config)``, computed from the config alone (nothing allocated).

    Raises ``ValueError`` when it exceeds :data:`MAX_PARAMETERS`, so that a config file or
    checkpoint asking for a huge model fails at once instead of after allocating gigabytes.
    (``tests/agents/test_agents_network.py`` checks the formula against built networks.)

    >>> parameter_count(NetworkConfig()) == count_parameters(Big2Net(NetworkConfig()))
    True
    """

    def linear(inputs: int, outputs: int) -> int:
        return inputs * outputs + outputs

    c = config
    if c.design == "charlesworth":
        count = linear(CHARLESWORTH_INPUTS, c.mlp_hidden) + linear(c.mlp_hidden, _CW_BRANCH)
        count += linear(_CW_BRANCH, NUM_ACTIONS * (2 if c.win_head else 1))
        if c.value_head:
            count += linear(c.mlp_hidden, _CW_BRANCH) + linear(_CW_BRANCH, 1)
        if count > MAX_PARAMETERS:
            raise ValueError(f"this model config has {count:,} parameters, more than the {MAX_PARAMETERS:,} allowed: {config}")
        return count
    if c.observation == "charlesworth":  # the paper design on his 412 inputs: one layer over them, projected
        count = linear(CHARLESWORTH_INPUTS, c.mlp_hidden) + linear(c.mlp_hidden, c.state_dim) + 2 * c.state_dim
    else:
        count = (NUM_CARDS + 1) * c.card_dim  # card embedding
        count += linear(c.card_dim, 3 * c.card_dim) + linear(c.card_dim, c.card_dim) + 4 * c.card_dim  # attention, norms
        count += linear(c.card_dim, c.hand_ff) + linear(c.hand_ff, c.card_dim)  # hand feed-forward
        count += 3 * linear(c.card_dim, c.field_dim) + linear(_COUNT_INPUT, c.count_dim)  # card-set and count encoders
        count += linear(c.card_dim + 5 * c.field_dim + c.count_dim, c.state_dim) + 2 * c.state_dim  # projection, norm
    count += linear(c.state_dim, c.state_ff) + linear(c.state_ff, c.state_dim)  # residual block
    count += linear(FEATURE_SIZE, c.action_hidden) + linear(c.action_hidden, c.action_dim)  # candidate MLP
    extra = _extra_inputs(c)
    if c.design == "plus":
        count += linear(_RAW_SETS, c.field_dim) + c.field_dim * c.state_dim  # full-rank card sets, their projection
        count += linear(NUM_CARDS, c.action_dim)  # the hand left
        outputs = 2 if c.win_head else 1
        count += linear(c.state_dim, c.scorer_hidden) + 2 * c.action_dim * c.scorer_hidden + linear(c.scorer_hidden, outputs)
        count += c.scorer_blocks * 2 * linear(c.scorer_hidden, c.scorer_hidden)  # residual blocks
    else:
        count += linear(c.state_dim, c.action_dim * (2 if c.win_head else 1))  # state projection(s) of the scorer
    if extra:
        count += linear(extra, c.count_dim) + c.count_dim * c.state_dim  # extra inputs, their projection
    if c.value_head:
        count += linear(c.state_dim, c.value_hidden) + linear(c.value_hidden, 1)
    if count > MAX_PARAMETERS:
        raise ValueError(
            f"this model config has {count:,} parameters, more than the {MAX_PARAMETERS:,} allowed "
            f"(agents.network.MAX_PARAMETERS; the default config has {parameter_count(NetworkConfig()):,}): {config}"
        )
    return count


def _extra_inputs(config: NetworkConfig) -> int:
    """Width of the extra-input encoder: own hand size (plus design), the extended numbers."""
    return (_COUNT_VALUES if config.design == "plus" else 0) + (
        EXTENDED_SIZE - OBS_SIZE if config.observation == "extended" else 0
    )


def masked_log_softmax(scores: torch.Tensor) -> torch.Tensor:
    """log-probabilities over each row's real candidates (``-inf`` entries get ``-inf``)."""
    return torch.log_softmax(scores, dim=-1)


def masked_entropy(scores: torch.Tensor) -> torch.Tensor:
    """Entropy of each row's distribution over its real candidates (padding ignored)."""
    logp = torch.log_softmax(scores, dim=-1)
    p = logp.exp()
    return -(p * logp.masked_fill(torch.isinf(scores), 0.0)).sum(-1)
