#!/usr/bin/env bash
# Batsim's 22 SimGrid XML platforms (../shared/data/platforms/batsim/platforms), unchanged, under
# `sgai batch run` with a Batsim delay workload of 4 one-resource jobs of 10 s: each runs (exit 0,
# the 4 jobs completed), or is rejected before the simulation (exit 1, one error line naming the
# file, the line and the reason, no output folder). docs/validation.md lists the outcomes.
# Usage: batsim_platforms_test.sh batsim_platforms.NAME   (NAME: the file without .xml, '/' as '_';
# run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1
shared_or_skip
B=../shared/data/platforms/batsim/platforms

name=${case_name#batsim_platforms.}
file=$B/${name/heterogeneous_/heterogeneous\/}.xml
[ -f "$file" ] || fail "no platform $file for case $case_name"

# The outcome of each file: "runs", or the error line's words after the file name.
declare -A rejected=(
  [energy_platform]="line 22: host 'Venus': 7 P-states (values of speed) but 6 wattage_per_state groups: SimGrid's energy plugin needs one group, idle:all_cores or idle:one_core:all_cores, per P-state (and 1 more like this)"
  [heterogeneous_platform]="line 18: host 'cor_0_example_cpu_0_example_node_0_clu_0': 2 P-states (values of speed) but 5 wattage_per_state groups"
)

# Batsim's JSON, no nb_res: four jobs of one resource, 10 s each.
cat >"$tmp/w.json" <<'EOF'
{"jobs": [{"id": "1", "subtime": 0, "walltime": 100, "res": 1, "profile": "d"},
          {"id": "2", "subtime": 0, "walltime": 100, "res": 1, "profile": "d"},
          {"id": "3", "subtime": 1, "walltime": 100, "res": 1, "profile": "d"},
          {"id": "4", "subtime": 2, "walltime": 100, "res": 1, "profile": "d"}],
 "profiles": {"d": {"type": "delay", "delay": 10}}}
EOF
mkdir "$tmp/t"
# The translated copy of an older file goes to $TMPDIR: it must be gone after the run.
batch() { TMPDIR=$tmp/t run "$SGAI" batch run --platform "$1" --workload "$tmp/w.json" --out "$2"; }

batch "$file" "$tmp/o"
no_backtrace
[ -z "$(ls -A "$tmp/t")" ] || fail "left in TMPDIR: $(ls -A "$tmp/t")"
nothing_left "$tmp"
if [ -n "${rejected[$name]:-}" ]; then
  expect_rc 1
  expect_one_error_line "sgai: error: $(realpath -s "$file"): ${rejected[$name]}"
  grep -q "Running experiment" "$tmp/err" && fail "rejected after the simulation started: $err"
  [ ! -e "$tmp/o" ] || fail "a rejected platform left $tmp/o"
  exit 0
fi
expect_rc 0
grep -q '^sgai: error' "$tmp/err" && fail "an error line: $err"
python3 - "$tmp/o/jobs.csv" <<'PY' || fail "jobs.csv: $(cat "$tmp/o/jobs.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["job_id"] for r in rows) == ["1", "2", "3", "4"], rows
assert all(r["final_state"] == "COMPLETED_SUCCESSFULLY" and float(r["execution_time"]) == 10 for r in rows), rows
PY

# What sgai did to the older files: one line each, the SMPI options ignored, the others honoured.
translated=$(grep -c "translated for SimGrid 3.32" "$tmp/err")
case "$name" in
  energy_platform_homogeneous_no_net_1 | energy_platform_homogeneous_no_net_128 | \
    energy_platform_homogeneous_no_net_256 | energy_platform_homogeneous_no_net_512)
    [ "$translated" -eq 1 ] || fail "expected one translation line: $err"
    grep -qF '<platform version="4"> -> <platform version="4.1">' "$tmp/err" || fail "version 4: $err" ;;
  energy_platform_homogeneous_no_net)
    [ "$translated" -eq 1 ] || fail "expected one translation line: $err"
    grep -qF "dropped the option network/coordinates" "$tmp/err" || fail "network/coordinates: $err" ;;
  graphene)
    [ "$translated" -eq 1 ] || fail "expected one translation line: $err"
    grep -qF "ignored the SMPI options smpi/os, smpi/or (sgai runs no MPI code)" "$tmp/err" || fail "smpi: $err"
    for set in "'network/model' to 'SMPI'" "'host/model' to 'compound'" "'smpi/bw-factor' to '0:0.400976530736138;" \
               "'smpi/lat-factor' to '0:1.35489260823384;" "'network/TCP-gamma' to '4194304'"; do
      grep -qF "Set $set" "$tmp/err" || fail "SimGrid was not given $set: $err"
    done
    grep -qE "Set 'smpi/o[sr]'" "$tmp/err" && fail "smpi/os or smpi/or reached SimGrid: $err"
    # An option SimGrid does not have is still an error, at its line.
    sed 's|<prop id="maxmin/precision"|<prop id="network/no-such-option" value="1"/><prop id="maxmin/precision"|' \
      "$file" >"$tmp/bad.xml"
    batch "$tmp/bad.xml" "$tmp/o2"; expect_rc 1; no_backtrace
    expect_one_error_line "$tmp/bad.xml: line 10: SimGrid cannot load this platform: Bad config key: network/no-such-option"
    [ ! -e "$tmp/o2" ] || fail "a rejected platform left $tmp/o2" ;;
  *)
    [ "$translated" -eq 0 ] || fail "a current file was translated: $err" ;;
esac
