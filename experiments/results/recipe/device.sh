#!/usr/bin/env bash
# The trainer on a GPU machine (the project's `device` tool: one H100 or H200, 16 cores), in one call:
# the CUDA test, then benchmarks/trainer_ceiling.py with the learner on CUDA (default batch and 2048
# games a batch) and on the machine's 16 CPU cores. Figures land in $OUT (default: this folder's gpu/).
# Packages the machine lacks travel as wheels in .whl (gymnasium, pettingzoo, farama-notifications).
set -uo pipefail
out="${OUT:-$(dirname "$0")/gpu}"
mkdir -p "$out"
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/device.txt"
nproc | tee -a "$out/device.txt"
python3 -c "import torch, numba, numpy; print('torch', torch.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)" | tee -a "$out/device.txt"
python3 -m pytest -q -p no:cacheprovider tests/test_agents_workers.py -k cuda 2>&1 | tail -3 | tee "$out/cuda_test.txt"
python3 benchmarks/trainer_ceiling.py --device cuda --batches 4 --json "$out/ceiling_cuda.json" 2>&1 | tee "$out/ceiling_cuda.txt"
python3 benchmarks/trainer_ceiling.py --device cuda --batches 3 --games-per-batch 2048 --json "$out/ceiling_cuda_2048.json" 2>&1 | tee "$out/ceiling_cuda_2048.txt"
python3 benchmarks/trainer_ceiling.py --device cpu --batches 3 --json "$out/ceiling_cpu16.json" 2>&1 | tee "$out/ceiling_cpu16.txt"
