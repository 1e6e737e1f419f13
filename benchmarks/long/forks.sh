#!/usr/bin/env bash
# Why the long run's curve is flat: forks of its latest model (paper rules), each trained 100 more
# batches (51,200 games) with one change, then all evaluated at argmax on the same 1000 deals per
# opponent class (seed 2026), beside the model they started from. Run folders go to $2.
# Usage: bash benchmarks/long/forks.sh /work/runs/long_paper/model.pt /work/runs/forks [schedule|steps]
#   schedule (the default): the learning rate's and the entropy bonus's schedules;
#   steps: more optimiser steps per game (smaller minibatches, more epochs), the trainer's
#          largest difference from Charlesworth's (1280 decisions a batch, 5 epochs of 320).
set -euo pipefail
init="${1:?the model to fork}"; root="${2:?run folder root}"; set_name="${3:-schedule}"
mkdir -p "$root"
common=(--rules paper --init "$init" --batches 100 --games-per-batch 512 --warmup-fraction 0 --seed 1
        --threads "${THREADS:-2}" --eval-every 0 --eval-games 100 --eval-opponents smart --no-progress --no-tensorboard)
fork() { name=$1; shift; [ -f "$root/$name/model.pt" ] || big2 train "${common[@]}" "$@" --out "$root/$name" >"$root/$name.log" 2>&1; }
case "$set_name" in
schedule)
    names=(same_lr lr_to_zero entropy_0.01 both_to_zero)
    fork same_lr        --lr 7.5e-4 --min-lr-fraction 1.0 --entropy 0.05   # the run as it goes (a fresh Adam)
    fork lr_to_zero     --lr 7.5e-4 --min-lr-fraction 0.0 --entropy 0.05   # the learning rate's decay, compressed
    fork entropy_0.01   --lr 7.5e-4 --min-lr-fraction 1.0 --entropy 0.01   # a sharper policy
    fork both_to_zero   --lr 7.5e-4 --min-lr-fraction 0.0 --entropy 0.05 --entropy-anneal 1.0 ;;
steps)
    names=(mb512_ep4_lr3e-4 mb4096_ep4)
    fork mb512_ep4_lr3e-4 --lr 3e-4 --min-lr-fraction 1.0 --minibatch 512 --epochs 4  # 16x the steps
    fork mb4096_ep4       --lr 7.5e-4 --min-lr-fraction 1.0 --minibatch 4096 --epochs 4 ;;  # 2x the epochs
*) echo "unknown set '$set_name': expected schedule or steps" >&2; exit 2 ;;
esac
evaluate() { label=$1; model=$2
    for opponent in greedy smart; do
        printf '%s vs %s: ' "$label" "$opponent"
        big2 eval --agent "$model" --opponent "$opponent" --argmax --games 1000 --seed 2026 --jobs 2 --no-progress | sed -n 2,3p | tr -s " " | paste -sd " "
    done; }
{ evaluate start "$init"
  for name in "${names[@]}"; do evaluate "$name" "$root/$name/model.pt"; done; } | tee "$root/results_$set_name.txt"
