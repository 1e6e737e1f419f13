cd "$(dirname "$0")/../.."  # the repository
export OMP_NUM_THREADS=1
R=runs/exit1
mkdir -p runs/exit_iters
cp runs/distill_nested/model.pt runs/exit_iters/iter0.pt
big2 train --algo exit --teacher search --init runs/distill_nested/model.pt --soft-targets 1 --replay 4 --lr 1e-4 \
  --batches 40 --games-per-batch 64 --workers 2 --eval-every 1000 --eval-games 20 --eval-opponents smart --seed 2 --no-progress --out $R --stop-after 10
cp $R/model.pt runs/exit_iters/iter1.pt
for k in 2 3 4; do
  big2 train --resume --out $R --stop-after $((k*10)) --no-progress
  cp $R/model.pt runs/exit_iters/iter$k.pt
done
echo done
