#!/usr/bin/env bash
# Copy a long run's logs, curves and latest checkpoint into the repository (replacing the last copy),
# so that any machine can continue it: cp -r experiments/results/long/RULES RUN && big2 train --out RUN --resume
# A run's checkpoint.pt and model.pt are committed only while it is going on: git rm them when it ends
# (experiments/results/long/README.md gives the git show command that brings each back; tests/test_repo_size.py).
# Usage: bash experiments/results/long/collect.sh runs/long_paper paper
set -euo pipefail
run="${1:?run folder}"; name="${2:?name under experiments/results/long}"
here="$(cd "$(dirname "$0")" && pwd)"
big2 plot "$run" >/dev/null
mkdir -p "$here/$name"
for f in args.json metrics.csv train_log.csv learning_curves.png training_health.png checkpoint.pt model.pt; do
    cp "$run/$f" "$here/$name/$f"
done
echo "$here/$name"
