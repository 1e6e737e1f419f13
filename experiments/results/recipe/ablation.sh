#!/usr/bin/env bash
# The learning recipe's ablation: PPO on the compiled vector env at an equal budget of 49,152 games
# (paper rules, current-policy self-play, entropy 0.05, scores / 13, lr floor 0.1 of the peak), each row
# evaluated at argmax on the same 1000 deals per opponent class (seed 2026). Run folders go to $1.
# Usage: bash experiments/results/recipe/ablation.sh runs/ablation
set -euo pipefail
root="${1:?run folder root}"
common=(--algo ppo --env vector --rules paper --entropy 0.05 --reward-scale 0.07692307692307693
        --min-lr-fraction 0.1 --warmup-fraction 0.02 --seed 0 --workers 1 --threads 2
        --eval-every 0 --eval-games 1000 --eval-opponents greedy,smart --eval-seed 2026 --eval-deterministic
        --no-progress --no-tensorboard)
row() { name=$1; shift; [ -f "$root/$name/metrics.csv" ] && grep -q "^[1-9]" "$root/$name/metrics.csv" && return 0
        big2 train "${common[@]}" "$@" --out "$root/$name"; }
row A_lr3e-4_mb256_ep4  --lr 3e-4 --minibatch 256  --epochs 4 --games-per-batch 256 --batches 192
row B_lr3e-4_mb4096_ep4 --lr 3e-4 --minibatch 4096 --epochs 4 --games-per-batch 512 --batches 96
row C_lr1e-3_mb4096_ep4 --lr 1e-3 --minibatch 4096 --epochs 4 --games-per-batch 512 --batches 96
row D_lr1e-3_mb4096_ep2 --lr 1e-3 --minibatch 4096 --epochs 2 --games-per-batch 512 --batches 96
