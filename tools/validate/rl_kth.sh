#!/usr/bin/env bash
# The learning agents on a real log (issue 23; docs/rl.md): the KTH-SP2 log (28,467 jobs after
# cleaning, `sgai workload swf2json --reference-speed 9.04Gf`) on gaia's first 100 cores; an agent
# trains on the first 70% of its jobs by submission, cut into 20 parts of 997 jobs (each an episode's
# workload, in turn: --and-workload), and is evaluated greedily on the last 30%, which it never saw,
# beside each of the 36 fixed policy pairs and a uniformly random agent; objective: mean bounded
# slowdown (run times under 10 s count as 10 s). Prints the table and checks that the agent beats
# the random agent and the median of the 36 pairs (exit 1 otherwise).
# Usage: tools/validate/rl_kth.sh [build dir] [episodes (default 1000)] [agent (default
#        reinforce-baseline)] [seed (default 3: see docs/rl.md for seeds 1-5)] [reward (default slowdown)] [learning rate (default 0.02)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
episodes=${2:-1000}
agent=${3:-reinforce-baseline}
seed=${4:-3}
reward=${5:-slowdown}
lr=${6:-0.02}
sgai=$build/tools/sgai
work=${RL_KTH_WORK:-$(mktemp -d)}
[ -n "${RL_KTH_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$root"
"$sgai" workload swf2json ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf --reference-speed 9.04Gf \
  --out "$work/kth.json" >/dev/null
# the split: jobs by submission, the first 70% to train on, the rest to evaluate on; each part's
# submissions start at 0
/usr/bin/python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
w = json.load(open(f"{work}/kth.json"))


def write_part(name, jobs):
    """A workload of these jobs, their submissions starting at 0, with the profiles they use."""
    t0 = jobs[0]["subtime"]
    d = dict(w)
    d["jobs"] = [dict(j, subtime=j["subtime"] - t0) for j in jobs]
    used = {j["profile"] for j in jobs}
    d["profiles"] = {k: v for k, v in w["profiles"].items() if k in used}
    with open(f"{work}/{name}.json", "w") as f:
        json.dump(d, f)


jobs = sorted(w["jobs"], key=lambda j: j["subtime"])
cut = int(len(jobs) * 0.7)
write_part("train", jobs[:cut])
write_part("test", jobs[cut:])
print(f"train: {cut} jobs\ntest: {len(jobs) - cut} jobs")
# the training part in 20 parts
size = (cut + 19) // 20
for i in range(20):
    write_part(f"part{i}", jobs[i * size:min((i + 1) * size, cut)])
PY
parts=()
for i in $(seq 1 19); do parts+=(--and-workload "$work/part$i.json"); done
start=$(date +%s)
"$sgai" rl train --platform platforms/gaia.json --workload "$work/part0.json" "${parts[@]}" --max-resources 100 --actions pairs \
  --observation minimal --reward "$reward" --lr "$lr" --agent "$agent" --episodes "$episodes" --seed "$seed" \
  --out "$work/train" | grep -E "^episode" | tail -3
"$sgai" rl evaluate --model "$work/train/model.pt" --platform platforms/gaia.json --workload "$work/test.json" \
  --seed "$seed" --out "$work/eval" >/dev/null
echo "trained $episodes episodes and evaluated in $(($(date +%s) - start)) s"
/usr/bin/python3 - "$work/eval/evaluation.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {r["policy"]: float(r["mean_bounded_slowdown"]) for r in rows}
pairs = sorted((v, k) for k, v in by.items() if "/" in k)
median = statistics.median(v for v, _ in pairs)
print("policy                     mean bounded slowdown (last 30% of KTH-SP2, gaia's first 100 cores)")
for k in ["agent", "random"]:
    print(f"{k:26s} {by[k]:10.3f}")
print(f"{'median of the 36 pairs':26s} {median:10.3f}")
print(f"{'best pair: ' + pairs[0][1]:26s} {pairs[0][0]:10.3f}")
for v, k in pairs:
    print(f"  {k:24s} {v:10.3f}")
ok = by["agent"] < by["random"] and by["agent"] < median
print("agent beats the random agent and the median pair:", "yes" if ok else "NO")
print("agent beats the best pair:", "yes" if by["agent"] < pairs[0][0] else "no")
sys.exit(0 if ok else 1)
PY
