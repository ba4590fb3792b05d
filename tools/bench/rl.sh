#!/usr/bin/env bash
# Benchmark of the learning environment and agents (docs/rl.md): on gaia's first 100 cores with the
# whole KTH-SP2 log (28,467 jobs; `sgai workload swf2json --reference-speed 9.04Gf`):
#   the workload manager alone (sgai batch run, no backfilling), for reference;
#   a uniformly random agent over the 36 pairs through the C++ environment, minimal and normal
#   observation (steps per second, wall);
#   libtorch REINFORCE (3 x 16, minimal) training one whole-log episode, update included;
#   a random agent through the Python module;
# and the thesis' 5.4 scenario: 350 episodes, environment alone and actor-critic training.
# Usage: tools/bench/rl.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
sgai=$build/tools/sgai
data=$root/../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
"$sgai" workload swf2json "$data/swf/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --out "$work/kth.json" >/dev/null
wall() { /usr/bin/time -f %e -o "$work/time" "$@" >"$work/out" 2>/dev/null; cat "$work/time"; }

t=$(wall "$sgai" batch run --platform platforms/gaia.json --workload "$work/kth.json" --max-resources 100 \
  --jobs random --resources random --out "$work/batch")
echo "workload manager alone (random/random, no backfilling): $t s wall"
for obs in minimal normal; do
  "$build/tools/rl_env_bench" platforms/gaia.json "$work/kth.json" $obs 1 - 0.01 100 2>/dev/null |
    awk -v o=$obs '{for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "random agent, C++ environment, %s observation: %d steps in %.2f s wall: %.0f steps/s\n", o, v["steps"], v["wall_s"], v["steps_per_s"] }'
done
if [ -x "$build/tools/sgai-rl" ]; then
  t=$(wall "$sgai" rl train --platform platforms/gaia.json --workload "$work/kth.json" --max-resources 100 \
    --actions pairs --observation minimal --reward slowdown --agent reinforce --episodes 1 --out "$work/train")
  steps=$(sed -n 2p "$work/train/episodes.csv" | cut -d, -f2)
  echo "libtorch REINFORCE (3 x 16, minimal), one whole-log episode with its update: $steps steps in $t s wall:" \
    "$(echo "$steps / $t" | bc) steps/s"
fi
if PYTHONPATH=$build/python /usr/bin/python3 -c "import sgai.rl" 2>/dev/null; then
  PYTHONPATH=$build/python /usr/bin/python3 - "$work/kth.json" <<'PY'
import sys, time
import numpy as np
import sgai.rl
env = sgai.rl.HDeepRMEnv("platforms/gaia.json", sys.argv[1], actions="pairs", observation="minimal", reward="slowdown",
                         max_resources=100)
rng = np.random.default_rng(1)
t0 = time.perf_counter()
obs, info = env.reset(seed=1)
steps, done = 0, False
while not done:
    obs, r, term, trunc, info = env.step(int(rng.integers(36)))
    steps += 1
    done = term or trunc
t = time.perf_counter() - t0
print(f"random agent through the Python module, minimal observation: {steps} steps in {t:.2f} s wall: {steps / t:.0f} steps/s")
PY
fi
d=$data/platforms/hdeeprm
learn=(platforms/learning.json "$d/workload_examples/learning.json")
"$build/tools/rl_env_bench" "${learn[@]}" minimal 350 "$d/thesis_experiments/learning/options.json" 0.05 2>/dev/null |
  awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } printf "5.4, environment alone: 350 episodes in %.2f s wall\n", v["wall_s"] }'
if [ -x "$build/tools/sgai-rl" ]; then
  t=$(wall "$sgai" rl train --platform "${learn[0]}" --workload "${learn[1]}" --actions "$d/thesis_experiments/learning/options.json" \
    --observation minimal --sensitivity 0.05 --reward makespan --agent actor-critic --episodes 350 --out "$work/t54")
  echo "5.4, actor-critic training (libtorch's start included): 350 episodes in $t s wall"
fi
