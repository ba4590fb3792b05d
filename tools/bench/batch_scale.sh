#!/usr/bin/env bash
# Benchmark: the workload manager on whole real logs and on 100k synthetic jobs.
#   KTH-SP2 (28k jobs, 100 processors): on gaia's first 100 cores (--max-resources 100)
#   SDSC-Par (32k jobs, 400 processors): on gaia's first 400 cores
#     both converted with swf2json at the speed of those cores (9.04 Gflop/s, Xeon L5640) so
#     that run times are the log's when no interference slows them;
#   100k synthetic jobs (sgai workload generate, 1 to 256 cores, run times 1 min to 1 day,
#     offered load 0.7) on MetaCentrum 2013 (8,412 cores): one host per core (the platform file's
#     granularity), and one host per node (--granularity node: 495 hosts, as the machine is built).
#     Jobs ask for cores and take the same cores either way: without interference the schedules are
#     the same and the energy equal to 1e-15 (the per-core power model is linear); with it, a
#     memory-bound processor slows its node's whole host, not only its own cores. A node's host runs
#     one execution per job on it, with as many threads as the job has cores there.
# Each with first-come first-served (no backfilling) and EASY backfilling, HDeepRM's interference
# and the energy plugins on; the synthetic jobs also with EASY and --no-interference. GNU time gives
# the wall-clock seconds, the CPU seconds (user + system) and the peak resident memory of the whole
# `sgai batch run` (reading the workload, building the platform, writing outputs): jobs/cpu_s is
# jobs per CPU-second. The last lines repeat the synthetic EASY figures.
# Usage: tools/bench/batch_scale.sh [build dir] [synthetic jobs] [all|synthetic]
#        (defaults: build, 100000, all; synthetic: only the synthetic workload)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
synthetic=${2:-100000}
only=${3:-all}
data=$root/../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
if [ "$only" = all ]; then
  [ -d "$data/swf" ] || { echo "no $data/swf: the benchmark needs the shared data" >&2; exit 1; }
  "$sgai" workload swf2json "$data/swf/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --out "$work/kth.json" >/dev/null
  "$sgai" workload swf2json "$data/swf/SDSC-Par-1996-3.1-cln.swf" --reference-speed 9.04Gf --out "$work/sdsc.json" >/dev/null
fi
"$sgai" workload generate --jobs "$synthetic" --max-cores 256 --load 0.7 --cores 8412 --reference-speed 15.7Gf \
  --seed 1 --out "$work/synthetic.json" >/dev/null

run() { # label platform workload max_resources backfill [more options]
  local out=$work/out label=$1 platform=$2 workload=$3 max=$4 bf=$5
  shift 5
  rm -rf "$out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$sgai" batch run --platform "$root/platforms/$platform" \
    --workload "$workload" --max-resources "$max" --backfill "$bf" "$@" --out "$out" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  read -r wall user sys kb <"$work/time"
  python3 - "$label" "$bf" "${1:-}" "$wall" "$user" "$sys" "$kb" "$out/schedule.json" <<'PY' | tee -a "$work/lines"
import json, sys
label, backfill, opt, wall, user, sys_, kb, path = sys.argv[1:]
s = json.load(open(path))
wall, cpu = float(wall), float(user) + float(sys_)
interference = "off" if opt == "--no-interference" else "on"
print(f"{label:<24} {backfill:<5} {interference:<4} {s['jobs']:>7} {s['cores']:>6} {wall:>8.2f} {cpu:>8.2f} "
      f"{s['jobs'] / cpu:>10.0f} {int(kb) / 1024:>8.1f} {s['makespan_s'] / 86400:>9.1f} {s['utilization']:>6.3f} "
      f"{s['mean_waiting_time_s']:>10.0f}")
PY
}

printf "%-24s %-5s %-4s %7s %6s %8s %8s %10s %8s %9s %6s %10s\n" workload bf intf jobs cores wall_s cpu_s jobs/cpu_s \
  peak_MiB makespan_d util mean_wait_s
for bf in none easy; do
  if [ "$only" = all ]; then
    run "KTH-SP2 (gaia 100)" gaia.json "$work/kth.json" 100 $bf
    run "SDSC-Par (gaia 400)" gaia.json "$work/sdsc.json" 400 $bf
  fi
  run "synthetic (MC, per core)" metacentrum2013.json "$work/synthetic.json" 0 $bf
done
run "synthetic (MC, per core)" metacentrum2013.json "$work/synthetic.json" 0 easy --no-interference
run "synthetic (MC, per node)" metacentrum2013.json "$work/synthetic.json" 0 easy --granularity node
run "synthetic (MC, per node)" metacentrum2013.json "$work/synthetic.json" 0 easy --no-interference --granularity node
echo
grep "^synthetic.* easy " "$work/lines" | while read -r _ _ _ hosts _ intf jobs _ _ cpu rate mib _; do
  echo "synthetic EASY, one host per ${hosts%)}, interference $intf: $jobs jobs, $rate jobs per CPU-second ($cpu CPU s), peak $mib MiB"
done
