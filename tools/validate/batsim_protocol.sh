#!/usr/bin/env bash
# batsched 1.4 driving sgai's workload manager over Batsim's protocol (--socket-endpoint), against
# Batsim 4.2.1 + the same batsched on medium_late (801 jobs, 32 machines of its energy platform).
# The peers are built outside the repository (docs/batsim-peer.md); PEER_DIR holds one folder per
# Batsim run with its out_jobs.csv and out_schedule.csv, and options.json for the energy settings:
#   easy_check/ (easy_bf) conservative_bf/ fcfs_fast/ filler/ energy_bf_monitoring_inertial/
#   energy_bf_monitoring_inertial_opportunistic/ subpart_frac1.0_opportunistic/ subpart_frac0.5/
# (a missing folder is skipped). For each: jobs with Batsim's starting time (1e-4 s), sgai's energy
# and makespan against Batsim's consumed_joules and makespan.
# Usage: BATSCHED=path/to/batsched tools/validate/batsim_protocol.sh PEER_DIR [build dir]
#        (LD_LIBRARY_PATH as batsched needs it)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peer=${1:?usage: BATSCHED=... tools/validate/batsim_protocol.sh PEER_DIR [build dir]}
sgai=${2:-$root/build}/tools/sgai
bs=${BATSCHED:-$(command -v batsched || true)}
ml=$root/../shared/data/batsim/medium_late
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -n "$bs" ] && [ -x "$bs" ] || { echo "no batsched: set BATSCHED (docs/batsim-peer.md builds one)" >&2; exit 1; }
[ -d "$ml" ] || { echo "no $ml: the comparison needs the shared data" >&2; exit 1; }

printf '%-45s %9s %13s %13s %8s %11s %11s %8s %9s\n' run same_start energy_sgai energy_batsim diff makespan_s \
  makespan_b diff requests
compare() { # name variant [options file]
  local name=$1 variant=$2 opts=()
  [ -f "$peer/$name/out_jobs.csv" ] || return 0
  [ -n "${3:-}" ] && opts=(--variant_options_filepath "$3")
  "$bs" -v "$variant" "${opts[@]}" --verbosity quiet -s "ipc://$work/$name.sock" >"$work/$name.log" 2>&1 &
  "$sgai" batch run --platform "$ml/platform.xml" --workload "$ml/medium_late.json" \
    --socket-endpoint "ipc://$work/$name.sock" --series none --out "$work/$name" >/dev/null 2>&1 \
    || { echo "$name: sgai failed" >&2; exit 1; }
  wait
  /usr/bin/python3 "$root/tools/validate/batsim_compare.py" "$name" "$work/$name" "$peer/$name" --requests
}
compare easy_check easy_bf
compare conservative_bf conservative_bf
compare fcfs_fast fcfs_fast
compare filler filler
for s in energy_bf_monitoring_inertial:energy_bf_monitoring_inertial \
         energy_bf_monitoring_inertial_opportunistic:energy_bf_monitoring_inertial \
         subpart_frac1.0_opportunistic:energy_bf_subpart_sleeper subpart_frac0.5:energy_bf_subpart_sleeper; do
  name=${s%%:*}
  [ -f "$peer/$name/options.json" ] && compare "$name" "${s##*:}" "$peer/$name/options.json"
done
