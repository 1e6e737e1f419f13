#!/usr/bin/env bash
# Why the long run's curve is flat: forks of its latest model (paper rules), each trained 100 more
# batches (51,200 games) with one change, then all evaluated at argmax on the same 1000 deals per
# opponent class (seed 2026), beside the model they started from. Run folders go to $2, the figures to
# $2/results_SET.json (rows as in experiments/results/long/forks.json, which the README's fork tables read).
# Usage: bash experiments/results/long/forks.sh runs/long_paper/model.pt runs/forks [schedule|steps]
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
    names=(same_lr lr_to_zero entropy_1e-2 both_to_zero)
    fork same_lr        --lr 7.5e-4 --min-lr-fraction 1.0 --entropy 0.05   # the run as it goes (a fresh Adam)
    fork lr_to_zero     --lr 7.5e-4 --min-lr-fraction 0.0 --entropy 0.05   # the learning rate's decay, compressed
    fork entropy_1e-2   --lr 7.5e-4 --min-lr-fraction 1.0 --entropy 0.01   # a sharper policy
    fork both_to_zero   --lr 7.5e-4 --min-lr-fraction 0.0 --entropy 0.05 --entropy-anneal 1.0 ;;
steps)
    names=(mb512_ep4_lr3e-4 mb4096_ep4)
    fork mb512_ep4_lr3e-4 --lr 3e-4 --min-lr-fraction 1.0 --minibatch 512 --epochs 4  # 16x the steps
    fork mb4096_ep4       --lr 7.5e-4 --min-lr-fraction 1.0 --minibatch 4096 --epochs 4 ;;  # 2x the epochs
*) echo "unknown set '$set_name': expected schedule or steps" >&2; exit 2 ;;
esac
evaluate() { label=$1; model=$2
    for opponent in greedy smart; do
        big2 eval --agent "$model" --opponent "$opponent" --argmax --games 1000 --seed 2026 --jobs 2 --no-progress \
            --json "$root/eval/${label}_vs_$opponent.json" | sed -n 2,3p
    done; }
mkdir -p "$root/eval"
evaluate start "$init"
for name in "${names[@]}"; do evaluate "$name" "$root/$name/model.pt"; done
# One results file, rows as in experiments/results/long/forks.json (the README's fork tables read that file):
python - "$root" "$set_name" start "${names[@]}" <<'PY'
import json, sys
from pathlib import Path
root, set_name, labels = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
keys = ("games", "seed", "win_rate", "win_rate_ci", "mean_score", "mean_score_ci", "score_std", "command")
rows = [{"fork": label, "opponent": opponent,
         **{k: json.loads((root / "eval" / f"{label}_vs_{opponent}.json").read_text())[k] for k in keys}}
        for label in labels for opponent in ("greedy", "smart")]
out = root / f"results_{set_name}.json"
out.write_text(json.dumps({"rows": rows}, indent=2) + "\n")
print(out)
PY
