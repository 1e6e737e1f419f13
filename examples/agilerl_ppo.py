"""AgileRL PPO in one Big 2 seat against three fixed opponents, trained with AgileRL's own rollout code.

    pip install -e ".[agilerl]"                   # its own environment: agilerl needs pettingzoo<1.27
    python examples/agilerl_ppo.py                # about 4 minutes of training against Random on 2 cores
    python examples/agilerl_ppo.py --opponent greedy
    python examples/agilerl_ppo.py --smoke        # 2 tiny updates, for CI

The env is the registered single-agent Gymnasium env, vectorized the way AgileRL's PPO page does it:

    make_vect_envs("Big2-v0", num_envs=4, should_async_vector=False, opponents="random", mask_in_observation=False)

With ``mask_in_observation=False`` the observation is the ``Box`` of 277 numbers, and the mask comes
as ``info["action_mask"]``, where AgileRL's ``collect_rollouts`` looks for it. PPO then samples only
legal moves, its rollout buffer keeps the masks, and ``learn`` applies them again. The loop is the
one from AgileRL's PPO page: ``collect_rollouts`` fills the buffer, then ``agent.learn()``. It passes
the last observation back in, so games run on across updates. The learner holds a random seat each
game. Sync vector envs keep everything in this process, on one core.

Why not AgileRL's multi-agent IPPO on the PettingZoo env? ``big2_env.parallel_env(candidate_view=False,
mask_in_observation=False)`` gives it what it asks for (the ``Box`` observation, the mask in each
agent's info), but AgileRL 2.58 cannot use it. ``IPPO.get_action`` tests ``None in group_masks``
on the masks, and a numpy mask with more than one entry makes that raise ``ValueError: The truth
value of an array with more than one element is ambiguous``. Masks from ``AsyncPettingZooVecEnv``
are always such arrays (and AgileRL's own tests only pass lists). Beyond that, IPPO's ``learn``
re-evaluates the stored actions without the mask. The README has the details.

When training ends, the argmax of the actor's masked logits plays three Random and three Greedy
players via ``big2_env.evaluate`` (a random seat each game).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

import big2_env  # registers "Big2-v0"


@dataclass
class Args:
    opponent: str = "random"  # the three other seats: "random" or "greedy"
    train_seconds: float = 240.0  # stop after the first update that ends past this
    updates: int = 0  # stop after this many updates instead (0: go by train_seconds)
    num_envs: int = 4
    learn_step: int = 2048  # learner decisions (all envs together) per update
    batch_size: int = 256
    epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    hidden: int = 256
    shared_encoder: bool = False  # AgileRL's default shares the actor's encoder with the critic (see build_agent)
    seed: int = 0
    eval_games: int = 200
    threads: int = 1  # torch threads: at most the free cores (more than that slows torch down many times)
    smoke: bool = False  # a tiny run for CI: 2 updates of 128 decisions, 20 eval games
    json: str = ""  # write the training speed and the evaluation to this JSON file

    def __post_init__(self) -> None:
        if self.opponent not in ("random", "greedy"):
            raise ValueError(f"opponent must be 'random' or 'greedy'; got {self.opponent!r}")
        if self.smoke:
            self.updates, self.learn_step, self.batch_size, self.epochs = 2, 128, 64, 1
            self.hidden, self.num_envs, self.eval_games = 64, 2, 20


def make_env(args: Args) -> Any:
    """The vectorized training env: AgileRL's helper around ``gymnasium.make("Big2-v0", ...)``."""
    from agilerl.utils.utils import make_vect_envs

    return make_vect_envs(
        "Big2-v0", num_envs=args.num_envs, should_async_vector=False, opponents=args.opponent, mask_in_observation=False
    )


def build_agent(env: Any, args: Args) -> Any:
    from agilerl.algorithms import PPO

    return PPO(
        env.single_observation_space,
        env.single_action_space,
        num_envs=args.num_envs,
        net_config={"encoder_config": {"hidden_size": [args.hidden]}, "head_config": {"hidden_size": [args.hidden]}},
        batch_size=args.batch_size,
        lr=args.learning_rate,
        learn_step=args.learn_step,
        gamma=1.0,  # a game is short and only its final score counts
        gae_lambda=0.95,
        ent_coef=args.ent_coef,
        update_epochs=args.epochs,
        # A separate critic encoder: the value loss on raw scores (+-13 and more) would otherwise swamp the
        # policy's gradients in the shared one (4 minutes vs Random, 200 games vs Greedy: 26% separate, 17% shared).
        share_encoders=args.shared_encoder,
        device="cpu",
    )


class AgileRLAgent:
    """The learned policy for :func:`big2_env.evaluate`: argmax of the actor's masked logits."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def act_batch(self, observations: Sequence[Any]) -> list[int]:
        obs = torch.as_tensor(np.stack([o["observation"] for o in observations]), dtype=torch.float32)
        mask = np.stack([o["action_mask"] for o in observations])
        with torch.no_grad():
            self.actor(obs, action_mask=mask)
            logits = self.actor.head_net.dist.logits  # the masked logits of that forward pass
        return logits.argmax(dim=-1).tolist()

    def act(self, obs: Any) -> int:
        return self.act_batch([obs])[0]


def train(args: Args) -> tuple[Any, dict[str, float]]:
    """Train with the loop of AgileRL's PPO docs; return the actor and some figures."""
    from agilerl.rollouts.on_policy import collect_rollouts

    env = make_env(args)
    try:
        agent = build_agent(env, args)
        obs, info = env.reset(seed=args.seed)  # seeds the deals, seats and opponents of every env copy
        zeros = np.zeros(args.num_envs)
        last: dict[str, Any] = {"last_obs": obs, "last_done": zeros, "last_scores": zeros.copy(), "last_info": info}
        start, update, decisions, games, wins = time.perf_counter(), 0, 0, 0, 0
        while True:
            agent.set_training_mode(True)
            finished, obs, done, scores, info = collect_rollouts(agent, env, **last)
            last = {"last_obs": obs, "last_done": done, "last_scores": scores, "last_info": info}
            agent.learn()
            update += 1
            decisions += -(agent.learn_step // -args.num_envs) * args.num_envs
            games += len(finished)
            wins += sum(float(s) > 0 for s in finished)  # only the winner scores above 0
            elapsed = time.perf_counter() - start
            recent = f"{np.mean([float(s) for s in finished]):+.2f}" if finished else "n/a"
            print(
                f"update {update}: {decisions} decisions, {games} games, {elapsed:.0f} s, "
                f"{decisions / elapsed:.0f} decisions/s, mean score this update {recent}",
                flush=True,
            )
            if (args.updates and update >= args.updates) or (not args.updates and elapsed >= args.train_seconds):
                break
        elapsed = time.perf_counter() - start
        print(
            f"trained {update} updates, {decisions} learner decisions ({games} games, {wins / max(games, 1):.1%} won "
            f"while training) in {elapsed:.1f} s: {decisions / elapsed:.0f} decisions/s"
        )
        agent.set_training_mode(False)
        return agent.actor, {"updates": update, "decisions": decisions, "seconds": elapsed}
    finally:
        env.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default)
    args = Args(**vars(parser.parse_args(argv)))
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # AgileRL shuffles its minibatches with numpy's global generator
    torch.set_num_threads(args.threads)
    actor, stats = train(args)
    agent = AgileRLAgent(actor)
    record: dict = {**stats, "train_s": stats["seconds"], "steps_per_s": stats["decisions"] / stats["seconds"], "eval": {}}
    for opponent in ("random", "greedy"):
        r = big2_env.evaluate(agent, opponent, n_games=args.eval_games, seed=args.seed + 1)
        record["eval"][opponent] = r.to_dict()
        lo, hi = r.win_rate_ci
        print(
            f"vs 3 x {opponent}: win rate {r.win_rate:.1%} (95% CI {lo:.1%}-{hi:.1%}, chance 25%), "
            f"mean score {r.mean_score:+.2f} over {r.n_games} games"
        )
    if args.json:  # the figures docs/libraries.md quotes
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
