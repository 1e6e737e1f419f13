"""CleanRL-style PPO self-play on the PettingZoo AEC env, in one readable file.

One shared policy plays all four seats. Each seat's moves form their own trajectory, and
the seat's final score (the env's reward at the end, / 13) is credited to its own last
move; advantages are GAE over that seat's moves alone (gamma 1: a game is short).
Masked logits keep every sampled action legal. At the end the greedy (argmax) policy is
evaluated against three Random and three Greedy players with ``big2_env.evaluate``.

    python examples/cleanrl_ppo_selfplay.py                      # about 4 minutes on 2 cores
    python examples/cleanrl_ppo_selfplay.py --total-steps 2000 --smoke
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

import big2_env
from big2_env import NUM_ACTIONS, OBS_SIZE


@dataclass
class Args:
    total_steps: int = 250_000  # decisions, all seats together
    num_envs: int = 16  # games played side by side (one forward pass for all)
    batch_steps: int = 4096  # decisions per PPO update
    learning_rate: float = 3e-4
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatch_size: int = 1024
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    seed: int = 0
    eval_games: int = 200
    threads: int = 1  # torch threads: at most the free cores
    smoke: bool = False  # a tiny run for CI
    json: str = ""  # write the training speed and the evaluation to this JSON file


class Agent(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, NUM_ACTIONS)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.distributions.Categorical, torch.Tensor]:
        h = self.body(obs / 52.0)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits), self.critic(h).squeeze(-1)


class ArgmaxPlayer:
    """The trained agent as a policy for ``big2_env.evaluate``: the most likely legal action."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act(self, obs) -> int:
        with torch.no_grad():
            o = torch.as_tensor(np.asarray(obs["observation"])[None], dtype=torch.float32)
            m = torch.as_tensor(np.asarray(obs["action_mask"])[None], dtype=torch.bool)
            dist, _ = self.agent(o, m)
        return int(dist.probs.argmax())


def collect(envs, agent: Agent, args: Args, pending: list[dict], steps: int) -> list[dict]:
    """Play until ``steps`` decisions are finished; returns finished seat trajectories."""
    done_trajectories, taken = [], 0
    while taken < steps:
        obs = [e.observe(e.agent_selection) for e in envs]
        o = torch.as_tensor(np.stack([x["observation"] for x in obs]), dtype=torch.float32)
        m = torch.as_tensor(np.stack([x["action_mask"] for x in obs]), dtype=torch.bool)
        with torch.no_grad():
            dist, value = agent(o, m)
            action = dist.sample()
            logprob = dist.log_prob(action)
        for i, e in enumerate(envs):
            seat = e.agent_selection
            pending[i].setdefault(seat, []).append((o[i], m[i], action[i], logprob[i], value[i]))
            e.step(int(action[i]))
            taken += 1
            if all(e.terminations.values()):  # game over: every seat's score goes to its own last move
                for s, moves in pending[i].items():
                    done_trajectories.append({"moves": moves, "score": e.rewards[s] / 13.0})
                pending[i] = {}
                e.reset()
    return done_trajectories


def to_batch(trajectories: list[dict], gae_lambda: float) -> dict[str, torch.Tensor]:
    obs, masks, actions, logprobs, advantages, returns = [], [], [], [], [], []
    for t in trajectories:
        values = torch.stack([mv[4] for mv in t["moves"]])
        rewards = torch.zeros(len(values))
        rewards[-1] = t["score"]
        next_values = torch.cat([values[1:], torch.zeros(1)])
        deltas = rewards + next_values - values
        adv, running = torch.zeros_like(values), 0.0
        for k in reversed(range(len(values))):
            running = deltas[k] + gae_lambda * running
            adv[k] = running
        obs += [mv[0] for mv in t["moves"]]
        masks += [mv[1] for mv in t["moves"]]
        actions += [mv[2] for mv in t["moves"]]
        logprobs += [mv[3] for mv in t["moves"]]
        advantages.append(adv)
        returns.append(adv + values)
    return {
        "obs": torch.stack(obs), "masks": torch.stack(masks), "actions": torch.stack(actions),
        "logprobs": torch.stack(logprobs), "advantages": torch.cat(advantages), "returns": torch.cat(returns),
    }


def update(agent: Agent, optimizer: torch.optim.Optimizer, b: dict[str, torch.Tensor], args: Args) -> float:
    n = len(b["actions"])
    advantages = (b["advantages"] - b["advantages"].mean()) / (b["advantages"].std() + 1e-8)  # over the whole batch
    for _ in range(args.update_epochs):
        order = torch.randperm(n)
        for start in range(0, n, args.minibatch_size):
            idx = order[start : start + args.minibatch_size]
            dist, value = agent(b["obs"][idx], b["masks"][idx])
            ratio = (dist.log_prob(b["actions"][idx]) - b["logprobs"][idx]).exp()
            adv = advantages[idx]
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_loss = 0.5 * ((value - b["returns"][idx]) ** 2).mean()
            loss = pg_loss + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
    return float(loss.detach())


def train(args: Args) -> tuple[Agent, int, float]:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    envs = [big2_env.env(candidate_view=False) for _ in range(args.num_envs)]
    for i, e in enumerate(envs):
        e.reset(seed=args.seed * 1000 + i)
    agent = Agent(args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    pending: list[dict] = [{} for _ in envs]
    steps, started = 0, time.perf_counter()
    while steps < args.total_steps:
        trajectories = collect(envs, agent, args, pending, args.batch_steps)
        steps += args.batch_steps
        if trajectories:
            loss = update(agent, optimizer, to_batch(trajectories, args.gae_lambda), args)
            rate = steps / (time.perf_counter() - started)
            print(f"steps {steps:>8}  games {len(trajectories) // 4:>4}  loss {loss:+.3f}  {rate:,.0f} steps/s", flush=True)
    return agent, steps, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default)
    args = Args(**vars(parser.parse_args()))
    if args.smoke:
        args = dataclasses.replace(args, total_steps=min(args.total_steps, 1024), num_envs=4, batch_steps=512, eval_games=8)
    agent, steps, seconds = train(args)
    print(f"trained {steps} steps in {seconds:.0f} s ({steps / seconds:,.0f} steps/s)")
    player = ArgmaxPlayer(agent)
    record: dict = {"steps": steps, "train_s": seconds, "steps_per_s": steps / seconds, "eval": {}}
    for opponent in ("random", "greedy"):
        result = big2_env.evaluate(player, opponent, n_games=args.eval_games, seed=args.seed + 1)
        record["eval"][opponent] = result.to_dict()
        lo, hi = result.win_rate_ci
        print(f"vs 3 x {opponent}: win rate {result.win_rate:.1%} (95% CI {lo:.1%}-{hi:.1%}, chance 25%), "
              f"mean score {result.mean_score:+.2f}")
    if args.json:  # the figures docs/libraries.md quotes
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
