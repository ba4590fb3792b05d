#!/usr/bin/env bash
# Benchmark: what a job's width and the number of jobs running at once cost the workload manager.
#   1. 10,000 synthetic jobs of 1 to 8,192 cores (offered load 0.9) on an LLNL-Atlas-like platform
#      (platforms/atlas.json: 1,152 nodes x 8 cores, one host per node), EASY backfilling.
#   2. Cost per job by width: 2,000 jobs of W cores (W = 1 ... 8,192), one at a time (each runs
#      100 s, one submitted every 200 s), EASY, with a computing profile (an execution per host) and
#      with Batsim's delay profile; CPU per job, the cost of an empty run taken out.
#   3. Events per CPU-second with about K jobs running at once (K = 100, 1,000, 10,000): 10 K or
#      2 K one-core jobs of 1 to 2 hours submitted at once on K cores (so K run at a time), EASY and
#      conservative backfilling. Events: a submission and a completion per job.
# CPU seconds (user + system) and peak resident memory of the whole `sgai batch run`, from GNU time.
# Usage: tools/bench/batch_width.sh [build dir] [largest K for conservative]   (defaults: build, 10000)
#   (conservative backfilling considers every waiting job again at each end: 9 K waiting jobs at
#   each of 10 K ends; the second argument leaves out the 10 K-job runs of larger K)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
conservative_max=${2:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }

run() { # platform workload backfill -> prints "cpu_s peak_MiB"
  rm -rf "$work/out"
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" batch run --platform "$1" --workload "$2" --backfill "$3" \
    --no-interference --out "$work/out" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r u s kb <"$work/time"
  python3 -c "print(f'{$u + $s:.2f} {$kb / 1024:.1f}')"
}

echo "== 1. 10,000 jobs of 1 to 8,192 cores on 1,152 x 8 cores (Atlas-like), EASY"
"$sgai" workload generate --jobs 10000 --max-cores 8192 --load 0.9 --cores 9216 --reference-speed 4.8Gf --seed 3 \
  --mem-bw 0:0 --out "$work/atlas.json" >/dev/null
read -r cpu mib < <(run "$root/platforms/atlas.json" "$work/atlas.json" easy)
echo "cpu_s $cpu  peak_MiB $mib  jobs/cpu_s $(python3 -c "print(round(10000 / $cpu))")"

echo
echo "== 2. cost per job by width (2,000 jobs of W cores, one at a time, 100 s each), EASY"
echo "   parallel: Batsim's parallel_homogeneous without communication (one execution per host);"
echo "   delay: Batsim's delay profile (no execution). ms/job: CPU per job (the process's start,"
echo "   an empty run's, taken out); x1: against the one-core job of the same profile"
width_workload() { # W FILE PROFILE-TYPE
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
w, path, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if kind == "delay":
    profiles = {"p": {"type": "delay", "delay": 100}}
else:
    profiles = {"p": {"type": "parallel_homogeneous", "cpu": 4.8e9 * 100, "com": 0}}
n = 2000 if w > 0 else 1
jobs = [{"id": str(i), "subtime": 200 * i, "walltime": 150, "res": max(w, 1), "profile": "p"} for i in range(n)]
json.dump({"nb_res": 9216, "profiles": profiles, "jobs": jobs}, open(path, "w"))
PY
}
width_workload 0 "$work/w0.json" delay
read -r empty _ < <(run "$root/platforms/atlas.json" "$work/w0.json" easy)
printf "%8s %-9s %8s %8s %6s %9s\n" cores profile cpu_s ms/job x1 peak_MiB
for kind in parallel delay; do
  one=""
  for w in 1 8 64 512 4096 8192; do
    width_workload $w "$work/w$w.json" $kind
    read -r cpu mib < <(run "$root/platforms/atlas.json" "$work/w$w.json" easy)
    per=$(python3 -c "print(max(1e-6, ($cpu - $empty) / 2000 * 1000))")
    [ -z "$one" ] && one=$per
    printf "%8s %-9s %8s %8s %6s %9s\n" $w $kind "$cpu" "$(python3 -c "print(f'{$per:.3f}')")" \
      "$(python3 -c "print(f'{$per / $one:.1f}')")" "$mib"
  done
done

echo
echo "== 3. events per CPU-second with K jobs running at once (one-core jobs of 1 to 2 hours on K cores,"
echo "   all submitted at once: 10 K jobs, 9 K of them waiting at first, or 2 K jobs, K waiting)"
printf "%8s %8s %-13s %8s %12s %9s\n" running jobs backfill cpu_s events/cpu_s peak_MiB
for k in 100 1000 10000; do
  nodes=$(((k + 7) / 8))
  python3 - "$root/platforms/atlas.json" "$nodes" "$work/p$k.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = "atlas_part"
p["clusters"][0]["nodes"][0]["number"] = int(sys.argv[2])
json.dump(p, open(sys.argv[3], "w"))
PY
  for m in 2 10; do
    python3 - "$k" "$m" "$work/k$k.json" <<'PY'
import json, random, sys
k, m, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(7)
profiles, jobs = {}, []
for i in range(m * k):
    d = rng.uniform(3600, 7200)
    profiles[str(i)] = {"type": "delay", "delay": round(d, 3)}
    jobs.append({"id": str(i), "subtime": 0, "walltime": 7200, "res": 1, "profile": str(i)})
json.dump({"nb_res": k, "profiles": profiles, "jobs": jobs}, open(path, "w"))
PY
    for bf in easy conservative; do
      if [ $bf = conservative ] && [ $m = 10 ] && [ "$k" -gt "$conservative_max" ]; then
        printf "%8s %8s %-13s %8s %12s %9s\n" $k $((m * k)) $bf - skipped -
        continue
      fi
      read -r cpu mib < <(run "$work/p$k.json" "$work/k$k.json" $bf)
      printf "%8s %8s %-13s %8s %12s %9s\n" $k $((m * k)) $bf "$cpu" "$(python3 -c "print(round(2 * $m * $k / $cpu))")" "$mib"
    done
  done
done
