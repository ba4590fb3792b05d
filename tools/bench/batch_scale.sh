#!/usr/bin/env bash
# Benchmark: the workload manager on whole real logs and on 100k synthetic jobs.
#   KTH-SP2 (28k jobs, 100 processors): on gaia's first 100 cores (--max-resources 100)
#   SDSC-Par (32k jobs, 400 processors): on gaia's first 400 cores
#     both converted with swf2json at the speed of those cores (9.04 Gflop/s, Xeon L5640) so
#     that run times are the log's when no interference slows them;
#   100k synthetic jobs (sgai workload generate, 1 to 256 cores, run times 1 min to 1 day,
#     offered load 0.7) on MetaCentrum 2013 (8,412 cores, one host per core).
# Each with first-come first-served (no backfilling) and EASY backfilling, HDeepRM's interference
# and the energy plugins on. GNU time gives the wall-clock seconds and the peak resident memory
# of the whole `sgai batch run` (reading the workload, building the platform, writing outputs).
# Usage: tools/bench/batch_scale.sh [build dir] [synthetic jobs]   (defaults: build, 100000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
synthetic=${2:-100000}
data=$root/../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -d "$data/swf" ] || { echo "no $data/swf: the benchmark needs the shared data" >&2; exit 1; }

"$sgai" workload swf2json "$data/swf/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --out "$work/kth.json" >/dev/null
"$sgai" workload swf2json "$data/swf/SDSC-Par-1996-3.1-cln.swf" --reference-speed 9.04Gf --out "$work/sdsc.json" >/dev/null
"$sgai" workload generate --jobs "$synthetic" --max-cores 256 --load 0.7 --cores 8412 --reference-speed 15.7Gf \
  --seed 1 --out "$work/synthetic.json" >/dev/null

run() { # label platform workload max_resources backfill
  local out=$work/out
  rm -rf "$out"
  /usr/bin/time -f "%e %M" -o "$work/time" "$sgai" batch run --platform "$root/platforms/$2" --workload "$3" \
    --max-resources "$4" --backfill "$5" --out "$out" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r wall kb <"$work/time"
  python3 - "$1" "$5" "$wall" "$kb" "$out/schedule.json" <<'PY'
import json, sys
label, backfill, wall, kb, path = sys.argv[1:]
s = json.load(open(path))
wall = float(wall)
print(f"{label:<22} {backfill:<6} {s['jobs']:>7} {s['cores']:>6} {wall:>8.2f} {s['jobs'] / wall:>9.0f} "
      f"{int(kb) / 1024:>8.1f} {s['makespan_s'] / 86400:>9.1f} {s['utilization']:>6.3f} {s['mean_waiting_time_s']:>10.0f}")
PY
}

printf "%-22s %-6s %7s %6s %8s %9s %8s %9s %6s %10s\n" workload bf jobs cores wall_s jobs/s peak_MiB makespan_d util mean_wait_s
for bf in none easy; do
  run "KTH-SP2 (gaia 100)" gaia.json "$work/kth.json" 100 $bf
  run "SDSC-Par (gaia 400)" gaia.json "$work/sdsc.json" 400 $bf
  run "synthetic (MetaCentrum)" metacentrum2013.json "$work/synthetic.json" 0 $bf
done
