#!/usr/bin/env bash
# Shows that a change of structure changed no behaviour: runs a fixed set of sgai commands and
# compares their outputs, file by file, with those of another commit run from the same checkout path.
#
#   tools/check_unchanged.sh capture DIR [SGAI]   runs the commands with SGAI (default build/tools/sgai)
#                                                 from the repository root, outputs under DIR
#   tools/check_unchanged.sh compare OLD NEW      byte-compares two captures (exit 1 on any difference)
#
# Typical use: capture at the commit before the change, check out the change in the same folder,
# build, capture again, compare. Paths recorded in outputs (the experiment file, the output folder)
# are the same when both captures run from the same checkout into the same DIR name's parent.
#
# The commands: `sgai run` (the default experiment), the README tour's batch runs of medium_late
# (EASY, conservative, EASY with batsched's inertial energy policy), `sgai replay` on ASTRA-sim's
# rt_template, `sgai collective bench` on hgx-h100, `sgai whatif predict` on one HTA trace, a one-week
# `sgai aiops run` and the quickstart campaign (its 12 runs).
#
# Left out of the comparison, because they hold wall-clock readings (two captures with the same
# binary differ there and nowhere else):
#   - CSV columns named in WALLCLOCK_COLUMNS (the campaign's wall_s: each run's wall time)
#   - the wall time sgai replay prints ("Replayed N nodes of R ranks in 0.02 s: simulated ...")
#   - the campaign database (campaign.sqlite: its rows carry run times and stamps), compared through
#     `sgai sweep export` (campaign_runs.csv) and `sgai sweep status` instead
# Everything else is compared byte for byte.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shared=${SGAI_SHARED:-$root/../shared/data}

WALLCLOCK_COLUMNS=wall_s

capture() {
  local out=$1 sgai=${2:-build/tools/sgai}
  [ -x "$sgai" ] || { echo "check_unchanged.sh: no sgai binary at $sgai" >&2; exit 2; }
  sgai=$(cd "$(dirname "$sgai")" && pwd)/$(basename "$sgai")
  rm -rf "$out"
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local ml=$shared/batsim/medium_late A=$shared/astra-sim
  run() { # run NAME COMMAND...: stdout and stderr kept beside the outputs
    local name=$1
    shift
    echo "== $name" >&2
    "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" || { echo "check_unchanged.sh: $name failed (see $out/$name.stderr)" >&2; exit 1; }
  }
  run run "$sgai" run --out "$out/run"
  run ml_easy "$sgai" batch run --platform "$ml/platform.xml" --workload "$ml/medium_late.json" --backfill easy \
    --out "$out/ml_easy"
  run ml_conservative "$sgai" batch run --platform "$ml/platform.xml" --workload "$ml/medium_late.json" \
    --backfill conservative --out "$out/ml_conservative"
  run ml_inertial "$sgai" batch run --platform "$ml/platform.xml" --workload "$ml/medium_late.json" --backfill easy \
    --energy-policy energy_bf_monitoring_inertial --energy-options deploy/energy/inertial.json --out "$out/ml_inertial"
  run replay "$sgai" replay --workload "$A/examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    --system "$A/tests/rt_template/inputs/system_cfg.json" --network "$A/tests/rt_template/inputs/network_cfg.yml" \
    --out "$out/replay"
  run bench "$sgai" collective bench --platform platforms/hgx-h100.json --gpus 8 --sizes 8:8GiB
  run whatif "$sgai" whatif predict "$shared/kineto/hta/ns_resolution_trace" --apply ddp \
    --platform platforms/hgx-h100.json --ranks 8 --out "$out/whatif"
  run aiops "$sgai" aiops run deploy/aiops/health-week.json --out "$out/aiops"
  # the campaign writes beside its file: a copy in the output folder, with links to the shipped
  # experiments, platforms and workloads its relative paths name
  mkdir -p "$out/campaign/campaigns"
  cp deploy/campaigns/quickstart-backfill.json "$out/campaign/campaigns/"
  ln -s "$root/deploy/experiments" "$out/campaign/experiments"
  ln -s "$root/platforms" "$out/platforms"
  ln -s "$root/workloads" "$out/workloads"
  local campaign=$out/campaign/campaigns/quickstart-backfill.json
  run campaign "$sgai" sweep run "$campaign" --jobs 2
  run campaign_status "$sgai" sweep status "$campaign"
  run campaign_export "$sgai" sweep export "$campaign" --out "$out/campaign_runs.csv"
  rm -f "$out/campaign/experiments" "$out/platforms" "$out/workloads"
  echo "captured into $out" >&2
}

# normalized FILE: the file as it is, or a CSV file without its wall-clock columns
normalized() {
  case "$1" in
  *.csv) python3 -c '
import csv, sys
drop = set(sys.argv[2].split(","))
rows = list(csv.reader(open(sys.argv[1], newline="")))
keep = [i for i, name in enumerate(rows[0] if rows else []) if name not in drop]
out = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    out.writerow([r[i] for i in keep if i < len(r)])
' "$1" "$WALLCLOCK_COLUMNS" ;;
  *.stdout) sed -E 's/^(Replayed .* ranks) in [0-9.]+ s: /\1 in (wall time) s: /' "$1" ;;
  *) cat "$1" ;;
  esac
}

compare() {
  local old=$1 new=$2 differ=0 files=0 skipped=0
  [ -d "$old" ] && [ -d "$new" ] || { echo "usage: tools/check_unchanged.sh compare OLD NEW" >&2; exit 2; }
  local list
  list=$( (cd "$old" && find . -type f; cd "$new" && find . -type f) | sort -u)
  while read -r f; do
    case "$f" in
    */campaign.sqlite | */campaign.sqlite-wal | */campaign.sqlite-shm) # compared through its export and status
      skipped=$((skipped + 1))
      continue ;;
    esac
    files=$((files + 1))
    if [ ! -f "$old/$f" ] || [ ! -f "$new/$f" ]; then
      echo "only in one: $f"
      differ=1
      continue
    fi
    if ! cmp -s <(normalized "$old/$f") <(normalized "$new/$f"); then
      echo "differs: $f"
      diff <(normalized "$old/$f") <(normalized "$new/$f") | head -5 || true # (diff exits 1: not an error here)
      differ=1
    fi
  done <<<"$list"
  if [ $differ = 0 ]; then
    echo "unchanged: $files files identical (wall-clock columns left out), the campaign database compared through its export and status"
  fi
  return $differ
}

case "${1:-}" in
capture) shift; capture "$@" ;;
compare) shift; compare "$@" ;;
*)
  echo "usage: tools/check_unchanged.sh capture DIR [SGAI] | compare OLD NEW" >&2
  exit 2 ;;
esac
