#!/usr/bin/env bash
# Benchmark: Slurm's kind on the KTH-SP2 log (28,467 jobs) on gaia's first 100 cores, converted
# with `swf2json --reference-speed 9.04Gf` as tools/bench/conservative_logs.sh converts it, run
# without interference (run times are the log's: a Slurm site's jobs end within their limits),
# under a site-like configuration: 5 partitions (batch, the default, short and large over the
# whole machine, long over 80 cores, debug over 10), the multifactor priority (age, job size,
# partition, Fair Tree fair-share with a 7-day half-life) and Slurm's default backfill parameters.
# The accounts are the log's groups (SWF field 13), each user under the groups it submitted from.
# Jobs go to a partition by their requested time and cores (debug: <= 15 min and <= 10 cores;
# short: <= 1 h and <= 50; large: > 60 cores; long: the rest above an hour; batch: the others).
# CPU seconds (user + system) and peak resident memory of `sgai batch run`, from GNU time, beside
# EASY and conservative on the same workload, and Slurm with one partition and FIFO priority.
# Usage: tools/bench/slurm_logs.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
data=$root/../shared/data/swf
work=${KEEP:-$(mktemp -d)}
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }

"$sgai" workload swf2json "$data/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --out "$work/kth.json" >/dev/null
"$sgai" platform generate "$root/platforms/gaia.json" --out "$work/gaia" >/dev/null
/usr/bin/python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
hosts = re.findall(r'<host id="([^"]+)"', open(f"{work}/gaia/gaia.xml").read())[:100]
w = json.load(open(f"{work}/kth.json"))
req = {name: p.get("req_time", 0) for name, p in w["profiles"].items()}
groups = {}
for j in w["jobs"]:
    t, n = req[j["profile"]], j["res"]
    j["partition"] = ("debug" if t <= 900 and n <= 10 else "short" if t <= 3600 and n <= 50 else
                      "large" if n > 60 else "long" if t > 3600 else "batch")
    groups.setdefault(j.get("group", "none"), set()).add(j.get("user", "none"))
json.dump(w, open(f"{work}/kth.json", "w"))
conf = f"""ClusterName=kth
SchedulerType=sched/backfill
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityDecayHalfLife=7-0
PriorityMaxAge=7-0
PartitionName=DEFAULT State=UP MaxTime=INFINITE
PartitionName=batch Nodes={",".join(hosts)} Default=YES PriorityJobFactor=1
PartitionName=debug Nodes={",".join(hosts[90:])} MaxTime=30 PriorityJobFactor=100
PartitionName=short Nodes={",".join(hosts)} MaxTime=1:00:00 PriorityJobFactor=10
PartitionName=long Nodes={",".join(hosts[:80])} PriorityJobFactor=1
PartitionName=large Nodes={",".join(hosts)} PriorityJobFactor=5
"""
open(f"{work}/slurm.conf", "w").write(conf)
lines = ["Cluster - 'kth':Fairshare=1", "Parent - 'root'"]
for g in sorted(groups):
    lines.append(f"Account - 'g{g}':Fairshare=1")
for g in sorted(groups):
    lines.append(f"Parent - 'g{g}'")
    for u in sorted(groups[g]):
        lines.append(f"User - '{u}':DefaultAccount='g{g}':Fairshare=1")
open(f"{work}/assoc.cfg", "w").write("\n".join(lines) + "\n")
PY
# the jobs' group names their account
sed -i 's/"group": *"\([^"]*\)"/"group": "g\1"/g' "$work/kth.json"

run() { # name backfill [extra options...]
  local name=$1 backfill=$2
  shift 2
  rm -rf "$work/out"
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" batch run --platform "$root/platforms/gaia.json" \
    --workload "$work/kth.json" --max-resources 100 --no-interference --backfill "$backfill" --out "$work/out" "$@" \
    >/dev/null \
    2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r u s kb <"$work/time"
  printf "%-34s %-13s %8s %9s %s\n" "$name" "$backfill" "$(python3 -c "print(f'{$u + $s:.2f}')")" \
    "$(python3 -c "print(f'{$kb / 1024:.1f}')")" "$(sha256sum "$work/out/jobs.csv" | cut -c1-12)"
}
printf "%-34s %-13s %8s %9s %s\n" log backfill cpu_s peak_MiB jobs.csv
run "KTH-SP2, 100 cores" easy
run "KTH-SP2, 100 cores" conservative
run "KTH-SP2, 5 partitions, fair-share" slurm --slurm-conf "$work/slurm.conf" --slurm-associations "$work/assoc.cfg"
printf 'SchedulerParameters=bf_interval=30\nPartitionName=all Nodes=ALL Default=YES\n' >"$work/one.conf"
sed -i 's/"partition": *"[a-z]*", *//g; s/, *"partition": *"[a-z]*"//g' "$work/kth.json"
run "KTH-SP2, one partition, FIFO" slurm --slurm-conf "$work/one.conf"
