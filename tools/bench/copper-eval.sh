#!/usr/bin/env bash
# Copper's evaluation (issue 26; docs/validation.md, "Copper's evaluation"): on the four spaces
# (Rosenbrock 4-D, Rastrigin 3-D, Branin, sgai's batch manager on KTH-SP2), each evaluated in full
# once, prints
#   - the runs GRASP + DOE, random and full sweeps need to reach an optimal point;
#   - the runs each simulated analyst needs (insight bad/good/none x confidence 0-100% x learning
#     off/on; the paper's Figure 6);
#   - the best quality within 30, 50 and 100 runs, without and with Copper's SLA suggestion at
#     exploitation 0, 0.33, 0.66 and 1 (analysts of every insight at 50% confidence, learning on;
#     Figures 7-9).
# Means of REPETITIONS (default 500, the paper's) with bootstrap 95% intervals, as markdown tables,
# each followed by its computing time. Deterministic given the seed (1), whatever the threads.
#   tools/bench/copper-eval.sh [REPETITIONS] [SPACES...]   (run from anywhere; default all four)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SGAI_BUILD_DIR:-$here/build}"
reps=${1:-500}
shift || true
spaces=("$@")
[ ${#spaces[@]} -gt 0 ] || spaces=(rosenbrock rastrigin branin batch)
cd "$here" # the batch space's campaign and runs are read relative to the repository's root
for space in "${spaces[@]}"; do
  echo "## $space"
  start=$(date +%s.%N)
  "$build/tools/sgai" sweep evaluate --space "$space" --repetitions "$reps" --seed 1 \
    --table strategies --table analysts
  "$build/tools/sgai" sweep evaluate --space "$space" --repetitions "$reps" --seed 1 \
    --table sla --learning on --sla-confidence 50 | tail -n +2
  end=$(date +%s.%N)
  echo
  echo "($space: $(echo "$end - $start" | bc) s in all)"
  echo
done
