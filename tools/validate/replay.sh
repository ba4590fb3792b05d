#!/usr/bin/env bash
# Validation of the trace replay against ASTRA-sim (docs/validation.md):
#   1. ASTRA-sim's regression reference: rt_template (1 MB all-reduce, 8-NPU ring, 50 GB/s, 500 ns)
#      against its published 117,780 ns.
#   2. Every shared microbenchmark (all-reduce, all-gather, reduce-scatter, all-to-all on 4, 8, 16
#      NPUs, 1 MB) on its ring network with the rt_template system and with Ring_4chunks.json.
#   3. An 8-GPU HGX-H100 node (hgx_h100_8gpu.yml: Switch, 400 GB/s, 936.25 ns) with its system
#      JSONs: all-reduce algorithm and bus bandwidth from 8 B to 8 GiB, against the measured peak
#      bus bandwidth the file records (370.67 GB/s).
# Usage: tools/validate/replay.sh [build dir]   (default: build; needs ../shared/data)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${SGAI:-${1:-$root/build}/tools/sgai}
data=$root/../shared/data/astra-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -d "$data" ] || { echo "no $data: validation needs the shared data" >&2; exit 1; }
mb=$data/examples/workload/microbenchmarks
ns() { grep -o 'simulated [0-9]* ns' "$1" | awk '{print $2}'; }

echo "== 1. ASTRA-sim reference (tests/rt_template)"
"$sgai" replay --workload "$mb/all_reduce/8npus_1MB/all_reduce" --system "$data/tests/rt_template/inputs/system_cfg.json" \
  --network "$data/tests/rt_template/inputs/network_cfg.yml" --out "$work/rt" >"$work/rt.txt"
ref=$(grep -o 'Wall time: [0-9]*' "$data/tests/rt_template/refs/stdout.txt" | head -1 | awk '{print $3}')
ours=$(ns "$work/rt.txt")
awk -v o="$ours" -v r="$ref" 'BEGIN { printf "rt_template all-reduce 1 MB, 8 NPUs: sgai %d ns, ASTRA-sim %d ns, difference %+.3f%%\n", o, r, 100 * (o - r) / r }'

echo "== 2. Microbenchmarks (ns)"
printf "%-15s %5s %22s %22s\n" collective npus "rt_template system" "Ring_4chunks.json"
for c in all_reduce all_gather reduce_scatter all_to_all; do
  for n in 4 8 16; do
    row=$(printf "%-15s %5s" "$c" "$n")
    for sys in "$data/tests/rt_template/inputs/system_cfg.json" "$data/examples/system/native_collectives/Ring_4chunks.json"; do
      "$sgai" replay --workload "$mb/$c/${n}npus_1MB/$c" --system "$sys" \
        --network "$data/examples/network/analytical/Ring_${n}npus.yml" --out "$work/mb" >"$work/mb.txt"
      row="$row $(printf "%22s" "$(ns "$work/mb.txt")")"
    done
    echo "$row"
  done
done

echo "== 3. HGX-H100 8-GPU all-reduce sweep (time us, algorithm and bus bandwidth GB/s)"
printf "%12s %36s %36s\n" bytes "hgx_h100_8gpu.json" "HGX-H100-validated.json"
size=8
while [ "$size" -le $((8 << 30)) ]; do
  "$sgai" chakra generate microbenchmark --collective all_reduce --ranks 8 --size "${size}B" --out "$work/hgx" --prefix ar >/dev/null
  row=$(printf "%12s" "$size")
  for sys in "$data/inputs/system/analytical/hgx_h100_8gpu.json" "$data/examples/system/native_collectives/HGX-H100-validated.json"; do
    "$sgai" replay --workload "$work/hgx/ar" --system "$sys" --network "$data/inputs/network/hgx_h100_8gpu.yml" \
      --out "$work/hgxo" >/dev/null
    row="$row $(awk -F, 'NR == 2 { printf "%12.2f %11.2f %11.2f", $9 / 1000, $10, $11 }' "$work/hgxo/collectives.csv")"
  done
  echo "$row"
  size=$((size * 4))
done
echo "measured peak bus bandwidth (hgx_h100_8gpu.yml): 370.67 GB/s"

echo "== 4. PARAM's DLRM (8 x V100, NCCL), converted with its Kineto traces, replayed against its profiled step"
pe=$root/../shared/data/pytorch-et/param
mkdir -p "$work/dlrm"
tar -xzf "$pe/dlrm_pytorch_et.tar.gz" -C "$work/dlrm"
tar -xzf "$pe/dlrm_kineto.tar.gz" -C "$work/dlrm"
for r in 0 1 2 3 4 5 6 7; do
  "$sgai" chakra convert "$work/dlrm/dlrm_pytorch_et/dlrm_eg_$r.json" --kineto "$work"/dlrm/dlrm_kineto/worker${r}_step_*.json \
    --out "$work/dlrm/et/dlrm.$r.et" >/dev/null 2>&1
done
# an assumed network: the 8 GPUs on one switch at NVLink2's 150 GB/s per GPU, 1 us
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 150 ]\nlatency: [ 1000 ]\n' >"$work/v100.yml"
printf '{"all-reduce-implementation": ["ring"], "all-to-all-implementation": ["direct"], "local-mem-bw": 900}\n' >"$work/v100.json"
"$sgai" replay --workload "$work/dlrm/et/dlrm" --system "$work/v100.json" --network "$work/v100.yml" --deps data \
  --out "$work/dlrm/out" >/dev/null
python3 - "$work/dlrm/out/ranks.csv" "$work"/dlrm/dlrm_kineto/*.json <<'PY'
import csv, json, sys
ours = [float(r["wall_time_ns"]) / 1e3 for r in csv.DictReader(open(sys.argv[1]))]
steps = []
for f in sys.argv[2:]:
    ev = json.load(open(f))["traceEvents"]
    steps += [e["dur"] for e in ev if e.get("name", "").startswith("ProfilerStep")]
mean = sum(steps) / len(steps)
print(f"replayed iteration per rank: {min(ours):,.0f} to {max(ours):,.0f} us; profiled step: {min(steps):,} to {max(steps):,} us, mean {mean:,.0f} us; makespan vs mean {100 * (max(ours) - mean) / mean:+.1f}%")
PY
