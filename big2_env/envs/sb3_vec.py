"""Stable-Baselines3's ``VecEnv`` over the compiled single-agent vector env (needs ``stable-baselines3``).

:func:`sb3_vec_env` makes a :class:`Big2SB3VecEnv`: N games of one learner against Random,
Greedy or Smart, stepped in one compiled call (:mod:`big2_env.envs.vector_opponents`), in
the form SB3's algorithms and sb3-contrib's ``MaskablePPO`` take:

* ``mask_in_observation=False`` (default): the observation is the 277 numbers alone and the
  legal actions come from ``env_method("action_masks")``, which ``MaskablePPO("MlpPolicy",
  venv)`` reads; ``True``: the ``Dict`` of ``"observation"`` and ``"action_mask"`` (for
  ``"MultiInputPolicy"``).
* ``step_wait`` returns SB3's ``(obs, rewards, dones, infos)``: an ended game's ``infos[i]``
  has ``"terminal_observation"``, ``"TimeLimit.truncated"`` (always ``False``: a game always
  ends), ``"winner"``, ``"scores"`` and ``"is_success"``; every ``infos[i]`` has ``"learner_seat"``.
* ``seed(s)`` reseeds the next ``reset`` (the env's one generator takes ``s``, the first of
  SB3's per-env seeds).

Example:
    >>> from big2_env.envs.sb3_vec import sb3_vec_env
    >>> venv = sb3_vec_env(4, opponents="smart")
    >>> obs = venv.reset()
    >>> obs.shape, venv.env_method("action_masks")[0].shape
    ((4, 277), (1695,))
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from .vector_opponents import Big2OpponentsVectorEnv

__all__ = ["Big2SB3VecEnv", "sb3_vec_env"]


class Big2SB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` around a :class:`~big2_env.envs.vector_opponents.Big2OpponentsVectorEnv` (see the module docstring)."""

    render_mode = None

    def __init__(self, venv: Big2OpponentsVectorEnv, mask_in_observation: bool = False) -> None:
        if not isinstance(venv, Big2OpponentsVectorEnv):
            raise TypeError(f"Big2SB3VecEnv wraps a Big2OpponentsVectorEnv; got {venv!r}")
        if not isinstance(mask_in_observation, bool):
            raise ValueError(f"mask_in_observation must be True or False; got {mask_in_observation!r}")
        self.venv = venv
        self.mask_in_observation = mask_in_observation
        space = venv.single_observation_space
        assert isinstance(space, spaces.Dict)
        super().__init__(venv.num_envs, space if mask_in_observation else space["observation"], venv.single_action_space)
        self._actions: np.ndarray | None = None

    def _out(self, obs: dict[str, np.ndarray]) -> Any:
        return obs if self.mask_in_observation else obs["observation"]

    def reset(self) -> Any:
        seed = self._seeds[0]
        obs, infos = self.venv.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{"learner_seat": int(s)} for s in infos["learner_seat"]]
        return self._out(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        if actions.ndim == 2 and actions.shape[1] == 1:  # some SB3 paths give (N, 1)
            actions = actions[:, 0]
        obs, rewards, terminations, truncations, infos = self.venv.step(actions)
        dones = terminations | truncations
        out: list[dict[str, Any]] = [{"learner_seat": int(s)} for s in infos["learner_seat"]]
        if dones.any():
            final = infos["final_info"]
            for g in np.flatnonzero(dones):
                last = infos["final_obs"][g]
                out[g].update(
                    terminal_observation=last if self.mask_in_observation else last["observation"],
                    **{"TimeLimit.truncated": bool(truncations[g])},
                    winner=int(final["winner"][g]),
                    scores=final["scores"][g].tolist(),
                    is_success=bool(final["winner"][g] == final["learner_seat"][g]),
                )
        return self._out(obs), rewards, dones, out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, int8 ``(N, 1695)``, 1 where legal."""
        return self.venv.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices: None | int | Iterable[int]) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def env_method(self, method_name: str, *args: Any, indices: None | int | Iterable[int] = None, **kwargs: Any) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"the games of Big2SB3VecEnv have no method {method_name!r} (only 'action_masks')")

    def get_attr(self, attr_name: str, indices: None | int | Iterable[int] = None) -> list[Any]:
        rows = self._indices(indices)
        if attr_name == "render_mode":
            return [None for _ in rows]
        if attr_name == "action_masks":
            return [self.action_masks for _ in rows]
        value = getattr(self.venv, attr_name)  # the games share the vector env's settings (rules, opponents ...)
        return [value for _ in rows]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("render_mode", "action_masks") or hasattr(self.venv, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: None | int | Iterable[int] = None) -> None:
        raise AttributeError(f"Big2SB3VecEnv's games share one compiled env; set {attr_name!r} when making it")

    def env_is_wrapped(self, wrapper_class: type, indices: None | int | Iterable[int] = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def __repr__(self) -> str:
        return f"Big2SB3VecEnv({self.venv!r}, mask_in_observation={self.mask_in_observation})"


def sb3_vec_env(num_envs: int, mask_in_observation: bool = False, **kwargs: Any) -> Big2SB3VecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` compiled games; ``kwargs`` are
    :class:`~big2_env.envs.vector_opponents.Big2OpponentsVectorEnv`'s (``opponents``,
    ``learner_seat``, ``rules``, ``seed`` ...)."""
    return Big2SB3VecEnv(Big2OpponentsVectorEnv(num_envs, **kwargs), mask_in_observation=mask_in_observation)
