#!/usr/bin/env bash
# Benchmark: conservative backfilling on whole logs, against EASY on the same runs.
#   - KTH-SP2 (28,467 jobs) on gaia's first 100 cores and SDSC-Par (32,128 jobs) on its first 400,
#     both converted with `swf2json --reference-speed 9.04Gf` (docs/benchmarks.md), with the
#     memory-bandwidth interference on (so jobs outlive their requested times and the queue is
#     placed again around them);
#   - an Atlas-sized synthetic log: 20,000 jobs of 1 to 8,192 cores at load 0.9, and 8,000 at load
#     1.3 (a queue that grows), on platforms/atlas.json (1,152 x 8 cores);
#   - the LLNL Atlas log itself when ATLAS_SWF names it (converted with `--reference-speed 4.8Gf`,
#     an Atlas core's 2.4 GHz x 2 flops).
# CPU seconds (user + system) and peak resident memory of each `sgai batch run`, from GNU time.
# Usage: [ATLAS_SWF=LLNL-Atlas-2006-2.1-cln.swf] tools/bench/conservative_logs.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
data=$root/../shared/data/swf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }

run() { # name platform workload backfill [extra options...]
  local name=$1 platform=$2 workload=$3 backfill=$4
  shift 4
  rm -rf "$work/out"
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" batch run --platform "$platform" --workload "$workload" \
    --backfill "$backfill" --out "$work/out" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r u s kb <"$work/time"
  printf "%-28s %-13s %8s %9s %s\n" "$name" "$backfill" "$(python3 -c "print(f'{$u + $s:.2f}')")" \
    "$(python3 -c "print(f'{$kb / 1024:.1f}')")" "$(sha256sum "$work/out/jobs.csv" | cut -c1-12)"
}

printf "%-28s %-13s %8s %9s %s\n" log backfill cpu_s peak_MiB jobs.csv
"$sgai" workload swf2json "$data/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --out "$work/kth.json" >/dev/null
"$sgai" workload swf2json "$data/SDSC-Par-1996-3.1-cln.swf" --reference-speed 9.04Gf --out "$work/sdsc.json" >/dev/null
for bf in easy conservative; do
  run "KTH-SP2, 100 cores" "$root/platforms/gaia.json" "$work/kth.json" $bf --max-resources 100
  run "SDSC-Par, 400 cores" "$root/platforms/gaia.json" "$work/sdsc.json" $bf --max-resources 400
done
"$sgai" workload generate --jobs 20000 --max-cores 8192 --load 0.9 --cores 9216 --reference-speed 4.8Gf --seed 5 \
  --mem-bw 0:0 --out "$work/atlas_09.json" >/dev/null
"$sgai" workload generate --jobs 8000 --max-cores 8192 --load 1.3 --cores 9216 --reference-speed 4.8Gf --seed 6 \
  --mem-bw 0:0 --out "$work/atlas_13.json" >/dev/null
for bf in easy conservative; do
  run "Atlas-sized, load 0.9" "$root/platforms/atlas.json" "$work/atlas_09.json" $bf --no-interference
  run "Atlas-sized, load 1.3" "$root/platforms/atlas.json" "$work/atlas_13.json" $bf --no-interference
done
if [ -n "${ATLAS_SWF:-}" ]; then
  "$sgai" workload swf2json "$ATLAS_SWF" --reference-speed 4.8Gf --out "$work/atlas.json" >/dev/null
  for bf in easy conservative; do
    run "LLNL Atlas" "$root/platforms/atlas.json" "$work/atlas.json" $bf --no-interference
  done
fi
