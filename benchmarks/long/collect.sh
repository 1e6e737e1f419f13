#!/usr/bin/env bash
# Copy a long run's logs, curves and latest checkpoint into the repository (replacing the last copy),
# so that any machine can continue it: cp -r benchmarks/long/RULES RUN && big2 train --out RUN --resume
# Usage: bash benchmarks/long/collect.sh /work/runs/long_paper paper
set -euo pipefail
run="${1:?run folder}"; name="${2:?name under benchmarks/long}"
here="$(cd "$(dirname "$0")" && pwd)"
big2 plot "$run" >/dev/null
mkdir -p "$here/$name"
for f in args.json metrics.csv train_log.csv learning_curves.png training_health.png checkpoint.pt model.pt; do
    cp "$run/$f" "$here/$name/$f"
done
echo "$here/$name"
