#!/usr/bin/env bash
# CLI tests of the hardening policies: exit codes (0, 1 bad input, 2 usage, 130/143 signals),
# SimGrid options checked before SimGrid, platforms without power models, output paths checked
# first, names that never choose a folder, interrupted runs that leave nothing behind.
# Usage: hardening_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1
F=tests/fixtures
B=../shared/data/platforms/batsim/platforms
batch() { run "$SGAI" batch run --platform "$1" --workload $F/workloads/tiny.json --out "$2" "${@:3}"; }

case "$case_name" in
  cfg_checks)
    for bad in --cfg=bogus --cfg=:x --cfg=network/model: --cfg=network/model --cfg=network/crosstraffic:maybe \
               --cfg=contexts/factory:bogus --cfg=no/such:key --cfg=network/latency-factor:abc; do
      batch $F/platforms/tiny_flat.json "$tmp/o" "$bad"; expect_rc 2; expect_one_error_line "$bad"; no_backtrace
    done
    [ ! -e "$tmp/o" ] || fail "a rejected option left $tmp/o"
    nothing_left "$tmp"
    run "$SGAI" --cfg=help; expect_rc 0; grep -q "network/model" "$tmp/out" || fail "--cfg=help lists no options"
    run "$SGAI" batch run --cfg=help; expect_rc 0; grep -q "contexts/factory" "$tmp/out" || fail "--cfg=help after a command"
    run "$SGAI" run $F/experiments/bogus_cfg.json --out "$tmp/e"; expect_rc 1
    expect_one_error_line "bogus_cfg.json: at /simgrid/cfg/1: SimGrid option 'bogus'"
    for bad in --log=foo.thres:debug --log=sgai.thres:loud --log=junk; do
      batch $F/platforms/tiny_flat.json "$tmp/o" "$bad"; expect_rc 2; expect_one_error_line "bad --log setting"; no_backtrace
    done ;;
  energyless)
    batch $F/platforms/nopower.xml "$tmp/np"; expect_rc 0; no_backtrace
    grep -qx "Note: no energy figures: 4 hosts that run jobs have no wattage_per_state (first: h0)." "$tmp/out" \
      || fail "the summary line: $out"
    [ "$(grep -c 'no energy figures' "$tmp/out" "$tmp/err" | awk -F: '{s+=$2} END {print s}')" -eq 1 ] \
      || fail "said more than once: $out $err"
    grep -q wattage_per_state "$tmp/err" && fail "per-host warnings: $err"
    # energy columns stay, empty; null in JSON
    head -1 "$tmp/np/jobs.csv" | grep -q consumed_energy || fail "jobs.csv lost its energy column"
    awk -F, 'NR > 1 && $16 != "" { exit 1 }' "$tmp/np/jobs.csv" || fail "jobs.csv has energy figures"
    grep -qx "h0," "$tmp/np/energy_hosts.csv" || fail "energy_hosts.csv: $(cat "$tmp/np/energy_hosts.csv")"
    python3 - "$tmp/np/summary.json" <<'PY' || fail "summary.json energy"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["energy"]["hosts_j"] is None and "4 hosts" in s["energy"]["note"], s["energy"]
assert s["components"]["batch"]["energy_j"] is None, s["components"]["batch"]
PY
    shared_or_skip
    batch $B/cluster512.xml "$tmp/c512"; expect_rc 0; no_backtrace
    grep -q "Note: no energy figures: 512 hosts that run jobs have no wattage_per_state (first: a0)." "$tmp/out" \
      || fail "cluster512: $out"
    [ "$(wc -l <"$tmp/err")" -lt 10 ] || fail "cluster512 printed $(wc -l <"$tmp/err") lines on stderr"
    nothing_left "$tmp"
    batch $B/small_platform_dvfs.xml "$tmp/dvfs"; expect_rc 0; no_backtrace
    grep -q "no energy figures" "$tmp/out" && fail "small_platform_dvfs: its master host counted: $out"
    for h in a b c d; do grep -qE "^$h,[0-9.e+]+$" "$tmp/dvfs/energy_hosts.csv" || fail "no energy for $h"; done
    grep -qx "master_host," "$tmp/dvfs/energy_hosts.csv" || fail "master_host should have no figure"
    awk -F, 'NR > 1 && $7 == 1 && $16 == "" { exit 1 }' "$tmp/dvfs/jobs.csv" || fail "jobs without energy" ;;
  max_resources)
    batch $F/platforms/tiny_flat.json "$tmp/o" --max-resources 11; expect_rc 1
    expect_one_error_line "command line: --max-resources: max_resources 11 is more than the 10 cores of the platform"
    grep -q "Running experiment" "$tmp/err" && fail "checked after the simulation started"
    [ ! -e "$tmp/o" ] || fail "left $tmp/o"; nothing_left "$tmp"
    batch $F/platforms/tiny_flat.json "$tmp/o" --max-resources 10; expect_rc 0
    for bad in -1 abc 1.5 99999999999999999999; do
      batch $F/platforms/tiny_flat.json "$tmp/o2" --max-resources "$bad"; expect_rc 2; expect_one_error_line "--max-resources"
    done ;;
  signals)
    [ -f ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf ] || { echo "no KTH log: skipped"; exit 77; }
    for sig in INT TERM; do
      # (about 5 CPU s on 100 cores: the signal comes half a second after the simulation started)
      "$SGAI" batch run --platform platforms/metacentrum2013.json --workload ../shared/data/swf/KTH-SP2-1996-2.1-cln.swf \
        --jobs shortest --backfill conservative --max-resources 100 --out "$tmp/s$sig" >"$tmp/out" 2>"$tmp/err" &
      pid=$!
      for _ in $(seq 100); do grep -q "Running experiment" "$tmp/err" && break; sleep 0.1; done
      sleep 0.5
      kill -$sig $pid
      wait $pid; rc=$?; err=$(cat "$tmp/err")
      [ $sig = INT ] && expect_rc 130 || expect_rc 143
      grep -qx "sgai: interrupted by SIG$sig: run stopped, partial outputs removed" "$tmp/err" || fail "the line: $err"
      no_backtrace
      [ ! -e "$tmp/s$sig" ] || fail "SIG$sig left $tmp/s$sig"
      nothing_left "$tmp"
    done
    # sgai run: the replay child is signalled and waited for, and leaves nothing either
    for delay in 0.05 0.15 0.25; do
      SGAI_HOME=$PWD "$SGAI" run --out "$tmp/q" >"$tmp/out" 2>"$tmp/err" &
      pid=$!
      sleep $delay
      kill -TERM $pid
      wait $pid; rc=$?
      [ $rc -eq 143 ] || [ $rc -eq 0 ] || fail "sgai run after SIGTERM: exit $rc"
      sleep 0.5
      pgrep -f -- "--out $tmp/q/replay" >/dev/null && fail "the replay child outlived its parent"
      nothing_left "$tmp"
      # (a replay that had finished just before the signal is there whole: it is published by one rename)
      [ $rc -eq 143 ] && [ -e "$tmp/q/replay" ] && [ ! -e "$tmp/q/replay/summary.json" ] &&
        fail "an interrupted replay left a partial $tmp/q/replay"
      rm -rf "$tmp/q"
    done
    true ;;
  stale_staging)
    mkdir -p "$tmp/res/.o.sgai-tmp-999999999" "$tmp/res/.o.sgai-tmp-1"
    touch "$tmp/res/.o.sgai-tmp-999999999/jobs.csv"
    batch $F/platforms/tiny_flat.json "$tmp/res/o"; expect_rc 0
    [ ! -e "$tmp/res/.o.sgai-tmp-999999999" ] || fail "the staging folder of a gone process stays"
    [ -e "$tmp/res/.o.sgai-tmp-1" ] || fail "removed the folder of a live process (pid 1)" ;;
  output_paths)
    touch "$tmp/file"
    batch $F/platforms/tiny_flat.json "$tmp/file"; expect_rc 1; expect_one_error_line "--out: '$tmp/file' is a file, not a folder"
    batch $F/platforms/tiny_flat.json "$tmp/file/sub"; expect_rc 1; expect_one_error_line "is a file"
    batch $F/platforms/tiny_flat.json /proc/sgai-x; expect_rc 1; expect_one_error_line "'/proc/sgai-x' cannot be created"
    batch $F/platforms/tiny_flat.json ""; expect_rc 2; expect_one_error_line "--out: an empty path"
    grep -q "sgai-tmp" "$tmp/err" && fail "names the staging path: $err"
    run "$SGAI" platform generate $F/platforms/tiny_flat.json --out "$tmp/file"; expect_rc 1; expect_one_error_line "is a file"
    run "$SGAI" platform convert $F/platforms/tiny_flat.json --out $F/platforms/tiny_flat.json; expect_rc 1
    expect_one_error_line "is the input file"
    run "$SGAI" run $F/experiments/batch_and_replay.json --out "$tmp/file"; expect_rc 1; expect_one_error_line "is a file"
    mknod "$tmp/dev" c 1 3 2>/dev/null && {
      run "$SGAI" platform convert $F/platforms/tiny_flat.json --out "$tmp/dev"; expect_rc 1
      expect_one_error_line "is not a regular file"; [ -c "$tmp/dev" ] || fail "the device was replaced"; }
    run "$SGAI" run ""; expect_rc 2; expect_one_error_line "an empty path"
    nothing_left "$tmp" ;;
  experiment_places)
    # files an experiment names: their error also names the experiment and the place
    printf '{ "sgai_experiment": 1, "name": "x", "platform": { "file": "%s/%s/platforms/tiny_flat.json" },
      "components": [ { "type": "batch", "options": { "workload": "/dev/null" } } ] }' "$PWD" $F >"$tmp/e.json"
    run "$SGAI" run "$tmp/e.json" --out "$tmp/o"; expect_rc 1
    expect_one_error_line "/dev/null: line 1, column 1: invalid JSON"
    expect_one_error_line "(the workload of $tmp/e.json at /components/0/options/workload)"
    sed 's/"components"/"simgrid": { "log": [ "junk" ] }, "components"/' "$tmp/e.json" >"$tmp/l.json"
    run "$SGAI" run "$tmp/l.json" --out "$tmp/o"; expect_rc 1; expect_one_error_line "l.json: at /simgrid/log/0: bad --log setting 'junk'"
    run "$SGAI" batch run --platform $F/platforms/bogus_empty_platform.xml --workload $F/workloads/tiny.json --out "$tmp/o"
    expect_rc 1; expect_one_error_line "bogus_empty_platform.xml: no host here can run jobs"
    python3 -c "print('<?xml version=\'1.0\'?><platform version=\'4.1\'>' + '<zone id=\'z%d\' routing=\'Full\'>' * 3000 + '</zone>' * 3000 + '</platform>')" >"$tmp/deep.xml"
    run "$SGAI" platform inspect "$tmp/deep.xml"; expect_rc 1; expect_one_error_line "deep.xml: line 1: elements nested more than 200 deep"
    no_backtrace
    run "$SGAI" platform inspect "$tmp/no
such.json"; expect_rc 1; expect_one_error_line 'no\nsuch.json: no such platform file' ;;
  name_escapes)
    for f in $F/platforms/bogus_name_escape.json $F/platforms/bogus_name_absolute.json; do
      mkdir -p "$tmp/deep/er"
      run "$SGAI" platform generate "$f" --out "$tmp/deep/er/gen"; expect_rc 1; expect_one_error_line "$f: at /name"
      [ -z "$(find "$tmp" -name '*escaped*')" ] || fail "$f wrote outside its folder"
      [ ! -e /tmp/sgai-escaped.xml ] || fail "$f wrote /tmp/sgai-escaped.xml"
    done
    (cd "$tmp" && "$SGAI" run "$OLDPWD/$F/experiments/bogus_name.json" >out 2>err); rc=$?; err=$(cat "$tmp/err")
    expect_rc 1; grep -q "at /name" "$tmp/err" || fail "experiment name: $err"
    [ ! -e "$tmp/escaped" ] || fail "the experiment name chose a folder" ;;
  components)
    # several components: each in its own folder, named as in the summary
    run "$SGAI" run $F/experiments/batch_and_replay.json --out "$tmp/two"; expect_rc 0
    [ -s "$tmp/two/batch/jobs.csv" ] || fail "no batch/jobs.csv"
    [ -s "$tmp/two/replay/ranks.csv" ] || fail "no replay/ranks.csv"
    [ ! -e "$tmp/two/jobs.csv" ] || fail "a component wrote into the top folder"
    python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['components']; assert list(c)==['batch','replay'], c" \
      "$tmp/two/summary.json" || fail "summary components"
    # two managers on the same cores would each count them and their energy as their own
    run "$SGAI" run $F/experiments/bogus_shared_hosts.json --out "$tmp/b"; expect_rc 1
    expect_one_error_line "at /components/1: components 'batch-1' and 'batch-2' both run jobs on host 'alpha-n0-p0-c0'"
    no_backtrace; [ ! -e "$tmp/b" ] || fail "left $tmp/b"; nothing_left "$tmp"
    run "$SGAI" run $F/experiments/bogus_component_names.json --out "$tmp/b"; expect_rc 1
    expect_one_error_line "at /components/1/name: two components are named 'same'"
    # the workload manager's switches, energy policy and time series, checked before the run
    for b in switches energy_variant series congestion sends channels protocol algorithm_key gpu_order \
      gpu_measure_error gpu_pinned gpu_restart_cost power_series socket_policy training_settings training_list training_gpus \
      training_empty training_null training_algorithm training_nvls; do
      run "$SGAI" run $F/experiments/bogus_$b.json --out "$tmp/b"; expect_rc 1; no_backtrace
      case $b in
        congestion) expect_one_error_line "at /components/0/options/congestion: unknown value 'partial'" ;;
        sends) expect_one_error_line "at /components/0/options/sends: unknown value 'nic-queue'" ;;
        channels) expect_one_error_line "at /components/0/options/channels: " ;;
        protocol) expect_one_error_line "at /components/0/options/protocol: unknown value 'LL64'" ;;
        training_algorithm) expect_one_error_line "at /components/0/options/algorithm: unknown value 'Rings'" ;;
        training_nvls) expect_one_error_line "at /components/0/options/algorithm: NCCL_ALGO nvls: sgai's model of NCCL has no such algorithm/protocol for the all-gather of 8 ranks on 1 node" ;;
        algorithm_key) expect_one_error_line "at /components/0/options/algorithm/all_to_all: unknown key 'all_to_all'" ;;
        switches) expect_one_error_line "tiny_flat.json: host 'alpha-n0-p0-c0': no sleep_pstates property" ;;
        energy_variant) expect_one_error_line "at /components/0/options/energy_policy/variant: unknown value 'energy_bf_dicho'" ;;
        series) expect_one_error_line "at /components/0/options/series: unknown time series 'gantt'" ;;
        socket_policy) expect_one_error_line "at /components/0/options/backfill: an external scheduler (socket_endpoint) decides alone: backfill cannot be given with it" ;;
        power_series) expect_one_error_line "at /simgrid/power_series: power_series is the period of the power time series: it must be positive" ;;
        gpu_order) expect_one_error_line "at /components/0/options/order: unknown value 'lifo' (expected one of: 'fifo', 'sjf', 'smallest', 'las')" ;;
        gpu_measure_error) expect_one_error_line "at /components/0/options/measure_error: measure_error 1.5 must be a fraction from 0 to 1" ;;
        gpu_pinned) expect_one_error_line "bogus_gpu_pinned.json: pinned: job '1' asks for 8 GPUs: give as many distinct GPU indexes below 8" ;;
        gpu_restart_cost) expect_one_error_line "at /components/0/options/restart_cost: restart_cost -3 must be a time from 0 to 1e9 s" ;;
        training_settings) expect_one_error_line "at /components/0/options/settings/tensor-model-parallel-size: tensor-model-parallel-size '3': does not divide num-attention-heads 64" ;;
        training_list) expect_one_error_line "at /components/0/options/settings/micro-batch-size: 'micro-batch-size' must be a single value, not a list, an object or null" ;;
        training_null) expect_one_error_line "at /components/0/options/settings/micro-batch-size: 'micro-batch-size' must be a single value, not a list, an object or null" ;;
        training_gpus) expect_one_error_line "at /components/0/options/gpus: the platform has 6144 GPUs, the run asks 10000" ;;
        training_empty) expect_one_error_line "at /components/0/options: a training component needs a \"description\" or \"settings\"" ;;
      esac
      [ ! -e "$tmp/b" ] || fail "bogus_$b left $tmp/b"
    done
    nothing_left "$tmp" ;;
  option_bounds)
    for v in -1 abc 1e3 0x10 99999999999999999999; do
      batch $F/platforms/tiny_flat.json "$tmp/o" --seed "$v"; expect_rc 2; expect_one_error_line "--seed: '$v'"
    done
    batch $F/platforms/tiny_flat.json "$tmp/o" --seed 9223372036854775807; expect_rc 0
    grep -q '"seed": 9223372036854775807' "$tmp/o/config.json" || fail "the largest seed is not recorded as given"
    for o in --peak-tflops --gpu-idle-w --link-busy-w; do
      for v in abc -1 nan inf 1e999 1e7; do
        run "$SGAI" replay --workload x --system y --network z --out "$tmp/r" $o "$v"; expect_rc 2; expect_one_error_line "$o: '$v'"
      done
    done
    run "$SGAI" replay --workload x --system y --network z --out "$tmp/r" --pstate 3; expect_rc 2
    expect_one_error_line "--pstate: '3' is above 2"
    run "$SGAI" run --seed -5; expect_rc 2; expect_one_error_line "--seed: '-5' is below 0"
    run "$SGAI" run --out ""; expect_rc 2; expect_one_error_line "--out" ;;
  *)
    echo "unknown case $case_name" >&2
    exit 2 ;;
esac
