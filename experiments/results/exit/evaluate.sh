cd "$(dirname "$0")/../.."  # the repository
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
: "${PARAMS:?his parameter file (modelParameters136500): PARAMS=PATH bash experiments/results/exit/evaluate.sh}"
D=experiments/results/exit
for k in 0 1 2 3 4; do
  M=runs/exit_iters/iter$k.pt
  taskset -c 0 big2 eval --agent $M --opponent smart --games 500 --argmax --seed 5 --no-progress > $D/net_iter${k}_smart.txt 2>&1 &
  taskset -c 1 python experiments/scripts/search_paired.py --opponent smart --deals 50 --options '{"budget": "0.03s"}' --network $M --network-as prior --json $D/search_prior_iter$k.json > /dev/null 2>&1
  taskset -c 1 python experiments/scripts/search_paired.py --opponent smart --deals 50 --options '{"budget": "0.03s", "value_weight": 0.5}' --network $M --network-as both --json $D/search_both_iter$k.json > /dev/null 2>&1
  wait
done
taskset -c 1 python experiments/scripts/search_paired.py --opponent smart --deals 50 --options '{"budget": "0.03s"}' --json $D/search_plain.json > /dev/null 2>&1 &
taskset -c 0 python benchmarks/charlesworth_duel.py --params "$PARAMS" --agent runs/exit_iters/iter4.pt --deals 100 --json $D/charlesworth_iter4.json > $D/charlesworth_iter4.txt 2>&1
wait
echo done
