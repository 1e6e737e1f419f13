"""A critic that sees every hand: PPO's value function during training only ("perfect training,
imperfect execution", PerfectDou).

:class:`FullCritic` estimates a seat's return from what the policy reads (the paper's 277 numbers, or
Charlesworth's 412) **and** the other three hands (next, across, previous: 3 x 52 bits,
:func:`hidden_hands`). ``big2 train --critic full`` computes the advantages from it; the policy
network is unchanged (its own value head still learns the same returns, as an auxiliary task), and
the critic lives in the training checkpoint only: ``model.pt``, the file that plays, never holds it.

Example:
    >>> import numpy as np, torch
    >>> hands = np.array([[0b1, 0b10, 0b100, 0b1000]], dtype=np.int64)   # seat s holds card s
    >>> bits = hidden_hands(hands, np.array([1]))                        # seat 1's opponents: 2, 3, 0
    >>> [int(np.flatnonzero(bits[0, 52 * k : 52 * (k + 1)])[0]) for k in range(3)]
    [2, 3, 0]
    >>> critic = FullCritic(277)
    >>> critic(torch.zeros(1, 277), torch.from_numpy(bits)).shape
    torch.Size([1])
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

__all__ = ["CRITIC_HIDDEN", "FullCritic", "hidden_hands"]

CRITIC_HIDDEN = (512, 256)
"""The full critic's hidden widths (an MLP, ReLU)."""

HIDDEN_SIZE = 3 * 52
"""The other three hands as bits: next, across, previous seat."""


def hidden_hands(hands: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(N, 156) float32: the hands of the seats after ``seat`` (next, across, previous), 52 bits each,
    from ``hands`` (N, 4) int64 card bitmasks in seat order (:meth:`big2_env.envs.vector.Big2VectorEnv.hands`)."""
    hands = np.asarray(hands, dtype=np.int64)
    seat = np.asarray(seat, dtype=np.int64)
    rows = np.arange(len(seat))
    others = np.stack([hands[rows, (seat + k) % 4] for k in (1, 2, 3)], axis=1)  # (N, 3)
    bits = (others[:, :, None] >> np.arange(52, dtype=np.int64)) & 1
    return bits.reshape(len(seat), HIDDEN_SIZE).astype(np.float32)


class FullCritic(nn.Module):
    """V(public state, every hand): an MLP over the policy's inputs and the other three hands."""

    def __init__(self, obs_size: int, hidden: tuple[int, ...] = CRITIC_HIDDEN) -> None:
        super().__init__()
        self.obs_size = obs_size
        layers: list[nn.Module] = []
        width = obs_size + HIDDEN_SIZE
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        """(B, obs_size) public numbers and (B, 156) hidden hands -> (B,) values."""
        if obs.dim() != 2 or obs.shape[1] != self.obs_size or hidden.shape != (obs.shape[0], HIDDEN_SIZE):
            raise ValueError(f"the full critic reads (B, {self.obs_size}) and (B, {HIDDEN_SIZE}); got "
                             f"{tuple(obs.shape)} and {tuple(hidden.shape)}")
        return self.net(torch.cat((obs, hidden), dim=1)).squeeze(-1)

    def values(self, obs: np.ndarray, hands: np.ndarray, seat: np.ndarray, chunk: int = 8192) -> np.ndarray:
        """No-grad values (N,) float32 of numpy rows (obs, hands (N, 4) bitmasks, seat), in chunks."""
        out = np.empty(len(obs), dtype=np.float32)
        device = next(self.parameters()).device
        with torch.inference_mode():
            for start in range(0, len(obs), chunk):
                end = start + chunk
                hidden = torch.from_numpy(hidden_hands(hands[start:end], seat[start:end])).to(device)
                rows = torch.from_numpy(np.ascontiguousarray(obs[start:end], dtype=np.float32)).to(device)
                out[start:end] = self(rows, hidden).cpu().numpy()
        return out
