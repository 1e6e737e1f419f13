#!/usr/bin/env bash
# The GPU run of the JAX core and the JAX PPO (docs/jax.md), one script that fits in 10 minutes on a
# machine with one GPU and 16 cores. Run from the repository root:
#
#     OUT=runs/jax_gpu bash benchmarks/jax_gpu.sh [SECONDS] 2>&1 | tee runs/jax_gpu.log
#
# SECONDS (default 580) is the whole script's budget. Three parts, each under its own time limit, each
# writing as it goes (a part stopped by its limit keeps what it measured):
#   1. benchmarks/jax_speed.py: random play with observations and masks in JAX on the GPU, beside the
#      compiled vector env on every core of the machine (NUMBA_NUM_THREADS = the cores), both views;
#   2. the PPO's decisions/s on the GPU at a large batch (16,384 games x 20 decisions an update);
#   3. the PPO at his cadence (64 games x 20 decisions an update) toward 16,000 updates (20.48M decisions,
#      row (c)'s evaluation at batch 16,000), stopped early by the time left (at a multiple of 1,000
#      updates); its policy file is evaluated afterwards with big2 eval, on any machine.
# BIG2_GPU_SMOKE=1 runs the same parts at toy sizes (how the script is checked on a CPU).
set -u
OUT=${OUT:-runs/jax_gpu}
BUDGET=${1:-580}
START=$SECONDS
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
# parts 2 and 3 share programs (the evaluation against Random): compile them once
export JAX_COMPILATION_CACHE_DIR=${JAX_COMPILATION_CACHE_DIR:-/tmp/big2_jax_cache}
PY=${PYTHON:-python3}
CORES=$(nproc)
left() { echo $((BUDGET - (SECONDS - START))); }

if [ "${BIG2_GPU_SMOKE:-0}" = 1 ]; then
    SPEED=(--batches 64 256 --decisions 1024)
    THROUGHPUT=(--num-envs 64 --num-steps 20 --minibatch 320 --updates 4 --eval-every 2 --eval-games 16)
    CADENCE=(--updates 6 --eval-every 2 --eval-games 16)
    SPEED_S=200; THROUGHPUT_S=150
else
    SPEED=(--batches 1024 16384 262144 --decisions 524288 --jax-decisions 67108864)
    THROUGHPUT=(--num-envs 16384 --num-steps 20 --minibatch 81920 --updates 12 --eval-every 4 --eval-games 4096)
    CADENCE=(--updates 16000 --eval-every 1000 --eval-games 4096)
    SPEED_S=200; THROUGHPUT_S=80
fi

{
    date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
    "$PY" -c "import jax, numba, numpy; print('jax', jax.__version__, jax.devices(), 'numba', numba.__version__, 'numpy', numpy.__version__)"
    echo "cores $CORES"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

PARTS=${BIG2_GPU_PARTS:-1 2 3}  # a rerun may leave out parts already measured
if [[ $PARTS == *1* ]]; then
    echo "== 1. random play: JAX beside the compiled vector env on $CORES cores ($(left) s left)"
    NUMBA_NUM_THREADS=$CORES timeout "$SPEED_S" "$PY" benchmarks/jax_speed.py "${SPEED[@]}" --out "$OUT/speed_gpu.json"
fi
if [[ $PARTS == *2* ]]; then
    echo "== 2. the PPO's decisions/s at a large batch ($(left) s left)"
    timeout "$THROUGHPUT_S" "$PY" examples/jax_ppo.py "${THROUGHPUT[@]}" --out "$OUT/ppo_speed"
    rm -f "$OUT/ppo_speed/model.pt"  # its log is the figure; its policy is a few updates old
fi

if [[ $PARTS == *3* ]]; then
    REST=$(left)
    echo "== 3. the PPO at his cadence ($REST s left)"
    timeout $((REST - 5)) "$PY" examples/jax_ppo.py "${CADENCE[@]}" --max-seconds $((REST - 60)) \
        --out "$OUT/ppo_20m"
fi
echo "== done in $((SECONDS - START)) s"
