#!/usr/bin/env bash
# PPO at its defaults against Deep Monte Carlo (seed 004's recipe where it applies: Monte Carlo returns,
# epsilon 0.01, lr 1e-4, each decision trained once) at equal wall time: both run side by side, one torch
# thread each, for $2 seconds (then SIGTERM: each writes its model), the learning rate constant (no
# warm-up, no decay) so that where the clock stops does not favour either; both on the compiled vector
# env, paper rules, 512 games a batch; then both are evaluated at argmax on the same 1000 deals per
# opponent class (seed 2026). Run folders go to $1.
# Usage: bash experiments/results/recipe/dmc_vs_ppo.sh runs/dmc_vs_ppo 900
set -uo pipefail
root="${1:?run folder root}"; seconds="${2:-900}"
mkdir -p "$root"
common=(--rules paper --batches 100000 --games-per-batch 512 --warmup-fraction 0 --min-lr-fraction 1.0 --seed 0 --threads 1
        --eval-every 0 --eval-games 100 --eval-opponents smart --checkpoint-minutes 2 --no-progress --no-tensorboard)
timeout -s TERM "$seconds" big2 train --algo ppo "${common[@]}" --out "$root/ppo" > "$root/ppo.log" 2>&1 &
timeout -s TERM "$seconds" big2 train --algo dmc --lr 1e-4 --epochs 1 --minibatch 256 "${common[@]}" --out "$root/dmc" \
    > "$root/dmc.log" 2>&1 &
wait
{ for name in ppo dmc; do
    games=$(python -c "import torch; s=torch.load('$root/$name/checkpoint.pt', weights_only=True); print(s['games'], s['decisions'])")
    echo "$name: games, decisions in ${seconds} s: $games"
    for opponent in greedy smart; do
        printf '%s vs %s: ' "$name" "$opponent"
        big2 eval --agent "$root/$name" --opponent "$opponent" --argmax --games 1000 --seed 2026 --jobs 2 --no-progress | sed -n 2,3p | tr -s " " | paste -sd " "
    done
  done; } | tee "$root/results.txt"
