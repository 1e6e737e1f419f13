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
#
# BIG2_GPU_REGIME=a or b runs, instead of the three parts, one spell of a long PPO run (docs/jax.md, "Long
# runs on a GPU, in spells"): (a) his recipe at his cadence to 3 times his budget, (b) large batches to
# 1 billion decisions. The spell starts the regime's run, or resumes it from BIG2_GPU_FROM (a folder
# holding the run's checkpoint.npz, carried to the machine), and stops at a chunk's end before SECONDS
# (default 580) run out; it writes $OUT/ppo_REGIME: checkpoint.npz (to carry to the next spell),
# log.json and snapshots/model_DECISIONS.pt (the policy files the curve is measured on). BIG2_GPU_UPDATES
# stops this spell at that many updates in all (the schedule still runs over the regime's horizon).
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

if [ -n "${BIG2_GPU_REGIME:-}" ]; then
    case "$BIG2_GPU_REGIME:${BIG2_GPU_SMOKE:-0}" in
        # his recipe and cadence (the default Args); chunks of 2,000 updates (2.56M decisions), a policy file every 12 chunks
        a:0) TARGET=410000; RUN=(--eval-every 2000 --eval-games 4096 --snapshot-every 30720000) ;;
        # Pgx's MinAtar PPO batch (524,288 decisions an update, minibatches of 4,096, 3 epochs, Adam at 3e-4),
        # the learning rate and the clip falling linearly over the run's 1,908 updates
        b:0) TARGET=1908; RUN=(--num-envs 8192 --num-steps 64 --minibatch 4096 --epochs 3 --lr 3e-4 --horizon 1908
                  --eval-every 53 --eval-games 4096 --snapshot-every 166723584) ;;
        a:1) TARGET=6; RUN=(--num-envs 8 --num-steps 8 --minibatch 32 --eval-every 2 --eval-games 8 --snapshot-every 128) ;;
        b:1) TARGET=6; RUN=(--num-envs 16 --num-steps 8 --minibatch 32 --epochs 3 --lr 3e-4 --horizon 6
                  --eval-every 2 --eval-games 8 --snapshot-every 256) ;;
        *) echo "BIG2_GPU_REGIME must be a or b; got '$BIG2_GPU_REGIME'"; exit 2 ;;
    esac
    DIR="$OUT/ppo_$BIG2_GPU_REGIME"
    mkdir -p "$DIR"
    "$PY" -c "import jax; print('jax', jax.__version__, jax.devices())"
    nvidia-smi --query-gpu=name,memory.total --format=csv 2>&1
    if [ -n "${BIG2_GPU_FROM:-}" ]; then
        # resume: the checkpoint's arguments are the run's (a changed one is refused); the spell may only end sooner
        [ "$(cd "$BIG2_GPU_FROM" && pwd)" = "$(cd "$DIR" && pwd)" ] || cp "$BIG2_GPU_FROM/checkpoint.npz" "$DIR/" || exit 1
        RUN=(--resume "$DIR")
    fi
    RUN+=(--updates "${BIG2_GPU_UPDATES:-$TARGET}")
    REST=$(left)
    echo "== spell of regime ($BIG2_GPU_REGIME) ($REST s left): examples/jax_ppo.py ${RUN[*]}"
    timeout $((REST - 5)) "$PY" examples/jax_ppo.py "${RUN[@]}" --max-seconds $((REST - 60)) --out "$DIR"
    CODE=$?
    # what comes back from the machine is at most 8 files: the checkpoint holds the latest parameters and
    # the last snapshot is the run's end, so the latest policy file stays behind
    rm -f "$DIR/model.pt" "$DIR/checkpoint.npz.tmp"
    echo "== spell done in $((SECONDS - START)) s (exit $CODE)"; ls -l "$DIR" "$DIR/snapshots" 2>&1
    exit $CODE
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
