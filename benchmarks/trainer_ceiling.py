"""``big2 train --algo ppo`` at its defaults beside the ceiling its network sets, in one run.

The trainer: whole PPO batches exactly as ``big2 train`` runs them (the same
:class:`agents.train.Trainer`, its default arguments: the compiled vector env, 512 games per
batch, 2 epochs of 4096-decision minibatches, torch threads on the idle cores), no evaluation
or checkpoint writes. Its rate is every move of every game (forced moves included) divided by
the wall time of collection and update.

The ceiling: the network's own forward pass, PPO's loss, backward pass and Adam step, timed on
minibatches of the same size cut from the trainer's last batch (the inputs built beforehand,
so nothing but the network's work is timed). A trainer can do no better than that rate
divided by the epochs and by the share of decisions it trains on (forced moves are played
without the network and never trained), since every trained decision passes through the
network ``epochs`` times: ``ceiling = rate / (epochs x trained share)``.

The two take turns (a trainer batch, then a ceiling measurement) so that both meet the same
machine load; the medians are reported, with the ratio and the time the paper's budget
(5,000 batches of 64 games, 320,000 games) and 3M games would take at the trainer's rate.
``--reference`` also times, in the same turns, the defaults before this recipe (the paper's
settings on the Python engine with two worker processes: ``--preset paper --env engine
--workers 2``), and prints the ratio.

Usage:
    python benchmarks/trainer_ceiling.py [--batches 6] [--threads 0] [--reference] [--json OUT.json] [--device cpu]
        [--games-per-batch N]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.config import TrainArgs
from agents.learners.ppo import PPOLearner, UpdateData, minibatches
from agents.collect.rollout import Rollout, candidate_rows
from agents.train import Trainer, free_cores


def synchronize(device: torch.device) -> None:
    """Wait for the device's queued work (a no-op on the CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def ceiling_rate(trainer: Trainer, rollout: Rollout, steps: int, rng: np.random.Generator) -> float:
    """Trained decisions per second through the learner's forward, loss, backward and Adam step
    alone, on ``steps`` minibatches of the run's size drawn from ``rollout``."""
    model, optimizer = trainer.model, trainer.optimizer
    assert isinstance(trainer.learner, PPOLearner)
    config = trainer.learner.config
    data = UpdateData.from_rollout(rollout, config)
    inputs: list[tuple[Any, ...]] = []
    for index in minibatches(len(rollout), 1, config.minibatch, rng):
        if len(index) < config.minibatch and inputs:
            continue  # a pass's short last minibatch: keep them all full-size
        rows, owner, slot, k = candidate_rows(data.counts, data.offsets, index)
        _, first, inverse = np.unique(data.keys[rows], return_index=True, return_inverse=True)
        inputs.append((
            model.tensor(data.obs[index]), model.tensor(data.features[rows[first]]), model.tensor(owner),
            model.tensor(slot), k, model.tensor(inverse.reshape(-1)), model.tensor(data.choice[index]),
            model.tensor(data.advantages[index]), model.tensor(data.returns[index]), len(index),
        ))
    model.train()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    opt_state = copy.deepcopy(optimizer.state_dict())  # its tensors are the live ones: copy them
    decisions = 0
    synchronize(trainer.device)
    start = time.perf_counter()
    for step in range(steps):
        obs_t, features_t, owner_t, slot_t, k, inverse_t, choice, adv, ret, n = inputs[step % len(inputs)]
        scores, value = model(obs_t, features_t, owner_t, slot_t, k, inverse_t)
        assert value is not None
        logp = torch.log_softmax(scores, dim=-1).gather(1, choice.unsqueeze(1)).squeeze(1)
        loss = -(adv * logp).mean() + 0.5 * (value - ret).square().mean()
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        optimizer.step()
        decisions += n
    synchronize(trainer.device)  # a GPU runs behind the Python that queues its work
    elapsed = time.perf_counter() - start
    model.load_state_dict(state)  # the ceiling's steps never reach the trainer's next batch
    optimizer.load_state_dict(opt_state)
    return decisions / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=6, help="measured trainer batches (after one warm-up)")
    parser.add_argument("--steps", type=int, default=12, help="minibatch steps per ceiling measurement")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: the trainer's default, the idle cores)")
    parser.add_argument("--device", default="cpu", help="the learner's device (cpu, cuda)")
    parser.add_argument("--games-per-batch", type=int, default=None, help="games per batch (default: the trainer's, 512)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--reference", action="store_true",
                        help="also time the former defaults (--preset paper --env engine --workers 2) in the same turns")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as out:
        args = TrainArgs(out=out, threads=options.threads, device=options.device, eval_every=0, progress=False,
                         tensorboard=False, games_per_batch=options.games_per_batch)
        trainer = Trainer(args)
        run = trainer.args
        threads = trainer.update_threads  # the layout the trainer chose (it read the idle cores once)
        torch.set_num_threads(threads)
        rng = np.random.default_rng(0)
        reference = None
        if options.reference:
            reference = Trainer(TrainArgs(out=out, preset="paper", env="engine", workers=2, threads=options.threads,
                                          eval_every=0, progress=False, tensorboard=False))
            reference.train_batch()
        trainer.train_batch()  # warm-up: compilation, allocator, caches
        trainer_rates, ceilings, shares, rollout_rates, update_rates, turns = [], [], [], [], [], []
        reference_rates: list[float] = []
        for _ in range(options.batches):
            if reference is not None:
                reference_rates.append(reference.train_batch()["decisions_per_s"])
                torch.set_num_threads(threads)
            stats = trainer.train_batch()
            trainer_rates.append(stats["decisions_per_s"])
            shares.append(stats["trained_decisions"] / stats["batch_decisions"])
            rollout_rates.append(stats["batch_decisions"] / stats["rollout_s"])
            update_rates.append(stats["batch_decisions"] / stats["update_s"])
            turns.append(stats["mean_game_turns"])
            rollout = trainer.last_rollout
            assert rollout is not None
            ceilings.append(ceiling_rate(trainer, rollout, options.steps, rng))
        if reference is not None:
            reference.close()
    epochs = trainer.learner.config.epochs if isinstance(trainer.learner, PPOLearner) else 1
    share = statistics.median(shares)
    forward_backward = statistics.median(ceilings)
    ceiling = forward_backward / (epochs * share)
    rate = statistics.median(trainer_rates)
    per_game = statistics.median(turns)
    figures: dict[str, Any] = {
        "device": str(trainer.device),
        "torch_threads": threads,
        "free_cores": free_cores(),
        "games_per_batch": run.games_per_batch,
        "minibatch": run.minibatch,
        "epochs": epochs,
        "trained_share": share,
        "decisions_per_game": per_game,
        "forward_backward_decisions_per_s": forward_backward,
        "ceiling_decisions_per_s": ceiling,
        "trainer_decisions_per_s": rate,
        "trainer_over_ceiling": rate / ceiling,
        "collection_decisions_per_s": statistics.median(rollout_rates),
        "update_decisions_per_s": statistics.median(update_rates),
        "paper_budget_minutes": 320_000 * per_game / rate / 60,
        "three_million_games_hours": 3_000_000 * per_game / rate / 3600,
    }
    if reference_rates:
        figures["reference_decisions_per_s"] = statistics.median(reference_rates)
        figures["trainer_over_reference"] = rate / figures["reference_decisions_per_s"]
    print(f"big2 train --algo ppo defaults on {figures['device']} ({threads} torch thread(s), {free_cores()} free cores): "
          f"{run.games_per_batch} games per batch, minibatch {run.minibatch}, {epochs} epochs")
    print(f"  network forward + backward + Adam: {forward_backward:,.0f} trained decisions/s")
    print(f"  ceiling = that / ({epochs} epochs x {share:.3f} trained share): {ceiling:,.0f} decisions/s")
    print(f"  trainer: {rate:,.0f} decisions/s = {rate / ceiling:.1%} of the ceiling "
          f"(collection {figures['collection_decisions_per_s']:,.0f}/s, update {figures['update_decisions_per_s']:,.0f}/s)")
    print(f"  the paper's budget (320k games, {per_game:.1f} decisions a game): {figures['paper_budget_minutes']:.1f} min; "
          f"3M games: {figures['three_million_games_hours']:.2f} h")
    if reference_rates:
        print(f"  the former defaults (--preset paper --env engine --workers 2): "
              f"{figures['reference_decisions_per_s']:,.0f} decisions/s; the trainer is "
              f"{figures['trainer_over_reference']:.2f}x that")
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
