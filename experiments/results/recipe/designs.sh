#!/usr/bin/env bash
# The network designs at an equal budget, on the recipe the ablation chose (its row D, ablation.sh):
# the paper's design (row D itself), `plus` (a wider residual scorer) and `mlp` (Charlesworth's kind of
# network: two ReLU layers and a fixed 1695-way masked head), 49,152 games each, evaluated at argmax on
# the same 1000 deals per opponent class (seed 2026). Run folders go to $1.
# Usage: bash experiments/results/recipe/designs.sh runs/designs
set -euo pipefail
root="${1:?run folder root}"
common=(--algo ppo --env vector --rules paper --entropy 0.05 --reward-scale 0.07692307692307693
        --min-lr-fraction 0.1 --warmup-fraction 0.02 --seed 0 --workers 1 --threads 1
        --eval-every 0 --eval-games 1000 --eval-opponents greedy,smart --eval-seed 2026 --eval-deterministic
        --no-progress --no-tensorboard --lr 1e-3 --minibatch 4096 --epochs 2 --games-per-batch 512 --batches 96)
row() { name=$1; shift; [ -f "$root/$name/metrics.csv" ] && grep -q "^96," "$root/$name/metrics.csv" && return 0
        big2 train "${common[@]}" "$@" --out "$root/$name"; }
row plus --model design=plus
row mlp  --model design=mlp
for name in plus mlp; do
    echo "$name: $(python -c "import torch; s=torch.load('$root/$name/checkpoint.pt', weights_only=True); print(s['elapsed_s'])") s"
    grep "^96," "$root/$name/metrics.csv"
done | tee "$root/results.txt"
