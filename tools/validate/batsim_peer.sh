#!/usr/bin/env bash
# Compares sgai's workload manager with Batsim 4 + batsched 1.4 runs of Batsim's medium_late
# workload (801 jobs on 32 machines of its energy platform), run by the user outside the repository
# (docs/validation.md says how they were built and run). PEER_DIR holds one folder per run with
# Batsim's out_jobs.csv and out_schedule.csv:
#   easy_check/ (easy_bf) conservative_bf/ energy_bf_monitoring_inertial/
#   energy_bf_monitoring_inertial_opportunistic/ subpart_frac1.0_opportunistic/ subpart_frac0.5/
# (a missing folder is skipped). For each: jobs with the same starting time (1e-4 s), and sgai's
# energy and makespan against Batsim's consumed_joules and makespan.
# Usage: tools/validate/batsim_peer.sh PEER_DIR [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peer=${1:?usage: tools/validate/batsim_peer.sh PEER_DIR [build dir]}
sgai=${2:-$root/build}/tools/sgai
ml=$root/../shared/data/batsim/medium_late
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -d "$ml" ] || { echo "no $ml: the comparison needs the shared data" >&2; exit 1; }

printf '%-45s %9s %13s %13s %8s %11s %11s %8s\n' run same_start energy_sgai energy_batsim diff makespan_s makespan_b diff
compare() { # name backfill [policy options]
  local name=$1 backfill=$2
  shift 2
  [ -f "$peer/$name/out_jobs.csv" ] || return 0
  "$sgai" batch run --platform "$ml/platform.xml" --workload "$ml/medium_late.json" --backfill "$backfill" \
    --series none "$@" --out "$work/$name" >/dev/null 2>&1 || { echo "$name: sgai failed" >&2; exit 1; }
  /usr/bin/python3 "$root/tools/validate/batsim_compare.py" "$name" "$work/$name" "$peer/$name"
}
compare easy_check easy
compare conservative_bf conservative
E="$root/deploy/energy"
compare energy_bf_monitoring_inertial easy --energy-policy energy_bf_monitoring_inertial --energy-options "$E/inertial.json"
compare energy_bf_monitoring_inertial_opportunistic easy --energy-policy energy_bf_monitoring_inertial \
  --energy-options "$E/inertial_opportunistic.json"
compare subpart_frac1.0_opportunistic easy --energy-policy energy_bf_subpart_sleeper \
  --energy-options "$E/opportunistic.json"
compare subpart_frac0.5 easy --energy-policy energy_bf_subpart_sleeper --energy-options "$E/subpart.json"
