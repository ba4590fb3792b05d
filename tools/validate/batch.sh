#!/usr/bin/env bash
# Validation of the workload manager against published results (docs/validation.md):
#   1. Batsim equivalence: medium_late (800 jobs, 32 machines) with EASY backfilling, compared with
#      Batsim's own out_jobs.csv (starting times, makespan, energy).
#   2. HDeepRM's learning scenario: the GFLOP/s in use right after the decision and the makespan
#      for the three policy pairs of the thesis.
#   3. HDeepRM's consolidation (highest FLOP/s) versus spreading (most free memory bandwidth), on
#      gaia with shortest-job selection and the first 100 jobs of four real SWF logs.
# Usage: tools/validate/batch.sh [build dir]   (default: build; needs ../shared/data)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${SGAI:-${1:-$root/build}/tools/sgai}
data=$root/../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -d "$data" ] || { echo "no $data: validation needs the shared data" >&2; exit 1; }

echo "== 1. Batsim equivalence: medium_late, EASY backfilling, 32 machines"
"$sgai" batch run --platform "$data/batsim/medium_late/platform.xml" --workload "$data/batsim/medium_late/medium_late.json" \
  --backfill easy --max-resources 32 --out "$work/ml" >/dev/null 2>&1
python3 - "$work/ml/jobs.csv" "$data/batsim/medium_late/easy/out_jobs.csv" "$work/ml/schedule.json" <<'PY'
import csv, json, sys
ours = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
theirs = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2]))}
same = sum(abs(float(ours[j]["starting_time"]) - float(t["starting_time"])) < 1e-4 for j, t in theirs.items())
mk_o = max(float(r["finish_time"]) for r in ours.values())
mk_t = max(float(r["finish_time"]) for r in theirs.values())
e_o = sum(float(r["consumed_energy"]) for r in ours.values())
e_t = sum(float(r["consumed_energy"]) for r in theirs.values())
same_e = sum(abs(float(ours[j]["consumed_energy"]) - float(t["consumed_energy"])) <= 1e-6 * max(1, float(t["consumed_energy"]))
             for j, t in theirs.items())
print(f"  jobs {len(theirs)}; same starting time: {same} ({100 * same / len(theirs):.2f}%)")
print(f"  makespan: sgai {mk_o:.6f} s, Batsim {mk_t:.6f} s (difference {100 * (mk_o - mk_t) / mk_t:+.4f}%)")
print(f"  jobs' energy: sgai {e_o:.1f} J, Batsim {e_t:.1f} J; same per-job energy (1e-6): {same_e}")
PY

echo "== 2. HDeepRM learning scenario (platforms/learning, shortest job first)"
printf "  %-12s %-28s %14s %12s\n" resources "thesis reward (GFLOP/s)" "sgai reward" "makespan s"
for pair in "low_power 6" "high_gflops 6.6" "high_mem_bw 8.4"; do
  read -r res thesis <<<"$pair"
  "$sgai" batch run --platform "$root/platforms/learning.json" \
    --workload "$data/platforms/hdeeprm/workload_examples/learning.json" --jobs shortest --resources "$res" \
    --series machine_states --out "$work/l-$res" >/dev/null 2>&1
  python3 - "$res" "$thesis" "$work/l-$res" <<'PY'
import csv, json, sys
res, thesis, out = sys.argv[1:]
first = next(csv.DictReader(open(out + "/machine_states.csv")))
s = json.load(open(out + "/schedule.json"))
print(f"  {res:<12} {thesis:<28} {float(first['flops_in_use']) / 1e9:>14.4g} {s['makespan_s']:>12.4f}")
PY
done

echo "== 3. Consolidation (high_gflops) vs spreading (high_mem_bw): gaia, shortest first, first 100 jobs"
printf "  %-10s %14s %14s %9s %12s %12s %9s\n" log "E consol. MJ" "E spread MJ" "dE" "T consol. s" "T spread s" "dT"
for log in KTH-SP2-1996-2.1-cln.swf SDSC-Par-1996-3.1-cln.swf NASA-iPSC-1993-3.1-cln.swf.gz hpc2n.swf; do
  "$sgai" workload swf2json "$data/swf/$log" --first 100 --seed 1 --out "$work/w.json" >/dev/null
  for res in high_gflops high_mem_bw; do
    "$sgai" batch run --platform "$root/platforms/gaia.json" --workload "$work/w.json" --jobs shortest \
      --resources "$res" --out "$work/c-$res" >/dev/null 2>&1
  done
  python3 - "${log%%-*}" "$work/c-high_gflops/schedule.json" "$work/c-high_mem_bw/schedule.json" <<'PY'
import json, sys
name, a, b = sys.argv[1:]
c, s = json.load(open(a)), json.load(open(b))
de = 100 * (c["energy_j"] - s["energy_j"]) / s["energy_j"]
dt = 100 * (c["makespan_s"] - s["makespan_s"]) / s["makespan_s"]
print(f"  {name.split('.')[0]:<10} {c['energy_j'] / 1e6:>14.1f} {s['energy_j'] / 1e6:>14.1f} {de:>+8.1f}% "
      f"{c['makespan_s']:>12.0f} {s['makespan_s']:>12.0f} {dt:>+8.1f}%")
PY
done
echo "  (HDeepRM thesis, Gaia's own log: consolidation about 43% less energy, about 20% longer makespan)"
