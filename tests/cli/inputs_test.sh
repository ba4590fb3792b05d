#!/usr/bin/env bash
# Bad inputs and option values of the chakra, workload and replay commands: exit status (2 for
# what is wrong on the command line alone, 1 for bad input files), one 'sgai: error:' line naming
# the option or file, the place and the value, and no output left behind.
# Usage: inputs_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1

# The sgai error is exactly one line holding each argument, and SimGrid did not abort.
expect_error_parts() {
  local s
  expect_one_error_line "$1"
  for s in "$@"; do
    grep '^sgai: error:' "$tmp/err" | grep -qF -- "$s" || fail "error line lacks '$s': $err"
  done
  no_backtrace
}
# usage ERROR_PARTS... -- CMD...: exit 2, one error line with every part
usage() {
  local parts=()
  while [ "$1" != -- ]; do parts+=("$1"); shift; done
  shift
  run "$@"; expect_rc 2; expect_error_parts "${parts[@]}"
}
# bad_input ERROR_PARTS... -- CMD...: exit 1, one error line with every part
bad_input() {
  local parts=()
  while [ "$1" != -- ]; do parts+=("$1"); shift; done
  shift
  run "$@"; expect_rc 1; expect_error_parts "${parts[@]}"
}
# nothing DIR: DIR holds nothing (or does not exist), and no temporary is left beside it
nothing() {
  [ -z "$(ls -A "$1" 2>/dev/null)" ] || fail "files left in $1: $(ls -A "$1")"
  nothing_left "$tmp"
}
# bad_deployment DEPLOYMENT.xml ERROR_PART: `sgai run platform.xml` of it in $tmp exits 1 with one
# error line holding ERROR_PART, no SimGrid abort, and no results/ left
bad_deployment() {
  rm -rf "$tmp/results"
  (cd "$tmp" && "$SGAI" run platform.xml "$1" >out 2>err)
  rc=$?
  err=$(cat "$tmp/err")
  expect_rc 1
  expect_one_error_line "$2"
  no_backtrace
  [ ! -e "$tmp/results" ] || fail "outputs left after: $2"
}
# et FILE ID ATTR VALUE: a one-node ET (COMP_NODE) whose int64 attribute ATTR is VALUE, written
# byte by byte (sgai's own writers refuse negative num_ops and comm_size)
et() {
  python3 - "$@" <<'PY'
import sys
def varint(v):
    v &= (1 << 64) - 1
    out = b''
    while True:
        b, v = v & 0x7f, v >> 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])
def field(num, wire, payload):
    key = varint((num << 3) | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else payload)
def message(m):
    return varint(len(m)) + m
attr = field(1, 2, sys.argv[3].encode()) + field(9, 0, varint(int(sys.argv[4])))
node = field(1, 0, varint(int(sys.argv[2]))) + field(2, 2, b'x') + field(3, 0, varint(4)) + field(10, 2, attr)
open(sys.argv[1], 'wb').write(message(field(1, 2, b'0.0.4')) + message(node))
PY
}

o=$tmp/o
case "$case_name" in
  chakra_bounds)
    # a bare whole number of bytes is bytes: the same traces as with the unit
    run "$SGAI" chakra generate microbenchmark --collective all_gather --ranks 4 --size 65536 --out "$tmp/mb1" --prefix ag
    expect_rc 0
    run "$SGAI" chakra generate microbenchmark --collective all_gather --ranks 4 --size 64KiB --out "$tmp/mb2" --prefix ag
    expect_rc 0
    cmp -s "$tmp/mb1/ag.3.et" "$tmp/mb2/ag.3.et" || fail "--size 65536 and --size 64KiB differ"
    # chained collectives (--count), bounded with the rank count
    run "$SGAI" chakra generate microbenchmark --collective all_reduce --ranks 4 --count 3 --out "$tmp/mb4" --prefix ar
    expect_rc 0
    run "$SGAI" chakra stats "$tmp/mb4/ar"; expect_rc 0
    grep -q "ALL_REDUCE: 3 collectives" "$tmp/out" || fail "--count 3: $out"
    usage "--ranks x --count" "65536 x 1000000" -- "$SGAI" chakra generate microbenchmark --ranks 65536 --count 1000000 \
      --out "$tmp/mb5"
    usage "--size" "'65536x'" -- "$SGAI" chakra generate microbenchmark --collective all_gather --ranks 4 --size 65536x \
      --out "$tmp/mb3"
    usage "--nodes" "'1000000000000'" "100,000,000" -- "$SGAI" chakra generate dag --nodes 1000000000000 --out "$o/d.et"
    usage "--width" "'0'" -- "$SGAI" chakra generate dag --width 0 --out "$o/d.et"
    usage "--seed" "'99999999999999999999'" -- "$SGAI" chakra generate dag --seed 99999999999999999999 --out "$o/d.et"
    usage "--seed" "'-1'" -- "$SGAI" chakra generate dag --seed -1 --out "$o/d.et"
    usage "--nodes" "'1e3'" "not a whole number" -- "$SGAI" chakra generate dag --nodes 1e3 --out "$o/d.et"
    usage "--layers" "'100000000'" "4,096" -- "$SGAI" chakra generate training --layers 100000000 --out "$o"
    usage "--hidden" "'0'" -- "$SGAI" chakra generate training --hidden 0 --out "$o"
    usage "--dp, --tp, --pp" "131,072 ranks" "65,536" -- "$SGAI" chakra generate training --dp 256 --tp 256 --pp 2 --out "$o"
    usage "--microbatches" "536,870,913 trace nodes" "2,000,000" -- \
      "$SGAI" chakra generate training --layers 4096 --microbatches 65536 --out "$o"
    usage "--hidden, --seq, --batch" "hidden 65536, sequence 1048576" "1e18" -- \
      "$SGAI" chakra generate training --hidden 65536 --seq 1048576 --out "$o"
    usage "--pp" "1 layers for 2 pipeline stages" -- "$SGAI" chakra generate training --layers 1 --pp 2 --out "$o"
    usage "--bucket" "'abc'" "not a size" -- "$SGAI" chakra generate training --bucket abc --out "$o"
    usage "--bucket" "'0B'" "1B to 1TiB" -- "$SGAI" chakra generate training --bucket 0B --out "$o"
    usage "--size" "'2TiB'" "1B to 1TiB" -- "$SGAI" chakra generate microbenchmark --size 2TiB --out "$o"
    usage "--size" "'1.5B'" "whole number of bytes" -- "$SGAI" chakra generate microbenchmark --size 1.5B --out "$o"
    usage "--size" "'-1MiB'" -- "$SGAI" chakra generate microbenchmark --size -1MiB --out "$o"
    usage "--ranks" "'70000'" "65,536" -- "$SGAI" chakra generate microbenchmark --ranks 70000 --out "$o"
    usage "--collective" "'allreduce'" -- "$SGAI" chakra generate microbenchmark --collective allreduce --out "$o"
    usage "--ranks" "'0'" -- "$SGAI" chakra synth --model x.json --ranks 0 --out "$o"
    usage "--group-size" "a group size of 4 does not divide 6 ranks" -- \
      "$SGAI" chakra synth --model x.json --ranks 6 --group-size 4 --out "$o"
    usage "--max-components" "'17'" -- "$SGAI" chakra synth --model x.json --max-components 17 --out "$o"
    # a prefix names files: a plain name
    for p in "" ".." "../x" "a/b" "/abs" ".hidden"; do
      usage "--prefix" "'$p'" -- "$SGAI" chakra generate microbenchmark --prefix "$p" --out "$o"
    done
    usage "--prefix" "'../x'" "may not choose a folder" -- "$SGAI" chakra generate training --prefix ../x --out "$o"
    usage "--prefix" "'/abs'" -- "$SGAI" chakra synth --model x.json --prefix /abs --out "$o"
    usage "--bytes" "'3'" "1, 2, 4, 8 or 16" -- "$SGAI" chakra generate training --bytes 3 --out "$o"
    # the node count comes from the options, before any work (64 layers: 1,622,016 nodes, accepted)
    usage "--microbatches" "2,932,736 trace nodes" "2,000,000" -- \
      "$SGAI" chakra generate training --dp 256 --tp 16 --pp 16 --layers 128 --out "$o"
    usage "--window" "'0'" -- "$SGAI" chakra stats x.et --window 0
    usage "--window" "'99999999'" "4,194,304" -- "$SGAI" chakra stats x.et --window 99999999
    usage "--max-nodes" "'1000000'" "100,000" -- "$SGAI" chakra visualize x.et --max-nodes 1000000 --out "$o/v.dot"
    usage "--deps" "auto" -- "$SGAI" chakra stats x.et --deps none
    nothing "$o"
    # the help states the bounds
    run "$SGAI" chakra generate dag --help; expect_rc 0
    grep -q "(1 to 100,000,000)" "$tmp/out" || fail "dag --help lacks the bound of --nodes: $out"
    run "$SGAI" chakra generate training --help; expect_rc 0
    grep -q "(1B to 1TiB)" "$tmp/out" || fail "training --help lacks the bound of --bucket: $out" ;;
  workload_bounds)
    usage "--jobs" "'1000000000000'" "1,000,000" -- "$SGAI" workload generate --jobs 1000000000000 --out "$o/g.json"
    usage "--seed" "'99999999999999999999'" -- "$SGAI" workload generate --jobs 10 --seed 99999999999999999999 --out "$o/g.json"
    usage "--serial-fraction" "'1.5'" -- "$SGAI" workload generate --jobs 10 --serial-fraction 1.5 --out "$o/g.json"
    usage "--interarrival" "'2d'" "0s to 1d" -- "$SGAI" workload generate --jobs 10 --interarrival 2d --out "$o/g.json"
    usage "--interarrival" "'fast'" "not a time" -- "$SGAI" workload generate --jobs 10 --interarrival fast --out "$o/g.json"
    usage "--run-time" "'0:10'" -- "$SGAI" workload generate --jobs 10 --run-time 0:10 --out "$o/g.json"
    usage "--run-time" "'1s:2e12'" "1e12" -- "$SGAI" workload generate --jobs 10 --run-time 1s:2e12 --out "$o/g.json"
    usage "--overestimate" "'1s:1e12'" "3e+12 s" -- \
      "$SGAI" workload generate --jobs 10 --run-time 1s:1e12 --overestimate 3 --out "$o/g.json"
    usage "--load" "0.001" "above 1 day" -- \
      "$SGAI" workload generate --jobs 10 --load 0.001 --cores 1 --run-time 1d:1d --out "$o/g.json"
    usage "--load" "--cores" -- "$SGAI" workload generate --jobs 10 --load 0.5 --out "$o/g.json"
    usage "--interarrival" "--load" -- "$SGAI" workload generate --jobs 10 --load 0.5 --cores 8 --interarrival 1m --out "$o/g.json"
    usage "--reference-speed" "'abc'" "not a speed" -- "$SGAI" workload generate --jobs 10 --reference-speed abc --out "$o/g.json"
    usage "--reference-speed" "'2Ef'" "1f to 1Ef" -- "$SGAI" workload generate --jobs 10 --reference-speed 2Ef --out "$o/g.json"
    usage "--mem" "'1:1e10'" -- "$SGAI" workload generate --jobs 10 --mem 1:1e10 --out "$o/g.json"
    usage "--mem-bw" "'inf:inf'" -- "$SGAI" workload generate --jobs 10 --mem-bw inf:inf --out "$o/g.json"
    usage "--reference-speed" "1e+24 flop" "1e21 flop" -- \
      "$SGAI" workload generate --jobs 10 --run-time 1s:1e6 --overestimate 1 --reference-speed 1Ef --out "$o/g.json"
    usage "--mem-bw-values" "--mem-bw" "excludes" -- \
      "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --mem-bw 1:2 --mem-bw-values 4,8 --out "$o/w.json"
    usage "--first" "'0'" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --first 0 --out "$o/w.json"
    usage "--offset" "'-1'" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --offset -1 --out "$o/w.json"
    usage "--mem-bw-values" "'4,x'" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --mem-bw-values 4,x --out "$o/w.json"
    usage "--default-mem" "'-1'" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --default-mem -1 --out "$o/w.json"
    usage "--out" "empty path" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --out ""
    usage "workload" "empty path" -- "$SGAI" workload stats "" size
    nothing "$o"
    run "$SGAI" workload generate --help; expect_rc 0
    grep -q "(1 to 1,000,000)" "$tmp/out" || fail "generate --help lacks the bound of --jobs: $out" ;;
  swf_values)
    d=tests/fixtures/workloads
    for x in "bogus_processors.swf:line 3: field 5 (allocated processors) '10000000000'" \
             "bogus_processors_fraction.swf:line 3: field 5 (allocated processors) '2.5'" \
             "bogus_run_time.swf:line 3: field 4 (run time) '1e300' is above 1e12 s" \
             "bogus_requested_time.swf:line 2: field 9 (requested time) '2e12'" \
             "bogus_submit_time.swf:line 2: field 2 (submit time) '1e13'" \
             "bogus_max_procs.swf:line 1: header MaxProcs '-5'" \
             "bogus_empty.swf: no job"; do
      f=${x%%:*}; msg=${x#*:}
      bad_input "$d/$f:" "$msg" -- "$SGAI" workload swf2json "$d/$f" --out "$o/w.json"
      bad_input "$d/$f:" "$msg" -- "$SGAI" batch run --platform platforms/learning.json --workload "$d/$f" --out "$o/b"
      nothing "$o"
    done
    # no job left after cleaning or the offset: an error, not an empty workload
    bad_input "tiny.swf" "no job to convert" -- "$SGAI" workload swf2json $d/tiny.swf --offset 10 --out "$o/w.json"
    nothing "$o"
    # -1 means unknown: kept by --no-clean as the readers take them, never written as what they reject
    printf '; MaxProcs: -1\n 1 -1 0 -1 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n 2 100 0 -5 0 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1\n 3 50 0 -1359980917 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n 4 70 0 30 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n' >"$tmp/unknown.swf"
    run "$SGAI" workload swf2json "$tmp/unknown.swf" --no-clean --walltime --out "$tmp/unknown.json"; expect_rc 0
    grep -q "dropped 1: non-positive processor count" "$tmp/out" || fail "job without processors: $out"
    grep -q "2 jobs without a positive run time" "$tmp/out" || fail "unknown run times: $out"
    grep -q '"cpu": -' "$tmp/unknown.json" && fail "negative cpu written: $(cat "$tmp/unknown.json")"
    grep -q '"res": 0' "$tmp/unknown.json" && fail "res 0 written: $(cat "$tmp/unknown.json")"
    run "$SGAI" workload stats "$tmp/unknown.json" size; expect_rc 0
    grep -q "size over 3 of 3 jobs" "$tmp/out" || fail "stats of the converted workload: $out"
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload "$tmp/unknown.json" --out "$tmp/b"; expect_rc 0 ;;
  json_times)
    d=tests/fixtures/workloads
    for x in "bogus_huge_subtime.json:at /jobs/0/subtime: submission time 1e+308 is above 1e18 s" \
             "bogus_huge_walltime.json:at /jobs/0/walltime: walltime" \
             "bogus_huge_delay.json:at /profiles/d/delay: delay 1e+300 is above 1e12 s" \
             "bogus_huge_req_time.json:at /profiles/p/req_time: req_time"; do
      f=${x%%:*}; msg=${x#*:}
      bad_input "$d/$f:" "$msg" -- "$SGAI" batch run --platform platforms/learning.json --workload "$d/$f" --out "$o"
      bad_input "$d/$f:" "$msg" -- "$SGAI" workload stats "$d/$f" size
      nothing "$o"
    done
    # the longest time taken runs: no SimGrid failure, finite energy
    cat >"$tmp/long.json" <<'JSON'
{ "nb_res": 4, "jobs": [ { "id": 1, "subtime": 1e12, "res": 1, "walltime": 1e12, "profile": "d" } ],
  "profiles": { "d": { "type": "delay", "delay": 1e12 } } }
JSON
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload "$tmp/long.json" --out "$tmp/b"; expect_rc 0
    grep -q '"energy_j": null' "$tmp/b/summary.json" && fail "energy overflowed: $(cat "$tmp/b/summary.json")"
    # amounts of work are bounded (1e21 flop or bytes), ids are strings or whole numbers, and a
    # profile takes the keys of its type only
    w() { printf '{ "nb_res": 4, "jobs": [ { "id": %s, "subtime": 0, "res": 1, "profile": "p" } ],\n  "profiles": { "p": %s } }\n' "$1" "$2" >"$tmp/$3.json"; }
    w 1 '{ "type": "parallel_homogeneous", "cpu": 1e30, "com": 0 }' cpu
    bad_input "cpu.json: at /profiles/p/cpu: cpu 1e+30 is above 1e21 flop" -- "$SGAI" workload stats "$tmp/cpu.json" size
    w 1 '{ "type": "parallel", "cpu": [1], "com": [1e300] }' com
    bad_input "com.json: at /profiles/p/com/0: com 1e+300 is above 1e21 bytes" -- "$SGAI" workload stats "$tmp/com.json" size
    w 0.5 '{ "type": "delay", "delay": 1 }' frac
    bad_input "frac.json: at /jobs/0/id: job id 0.5 must be a string or a whole number" -- "$SGAI" workload stats "$tmp/frac.json" size
    w 1e308 '{ "type": "delay", "delay": 1 }' huge
    bad_input "huge.json: at /jobs/0/id: job id 1e+308" -- "$SGAI" workload stats "$tmp/huge.json" size
    w 1 '{ "type": "delay", "delay": 1, "cpu": 5 }' key
    bad_input "key.json: at /profiles/p/cpu: unknown key 'cpu'" -- "$SGAI" workload stats "$tmp/key.json" size
    w 1 '{ "type": "delay", "delay": 1, "command": "sleep 1", "np": 1, "runtime": 1 }' kept
    run "$SGAI" workload stats "$tmp/kept.json" size; expect_rc 0
    true ;;
  chakra_values)
    et "$tmp/neg.0.et" 7 num_ops -5
    bad_input "$tmp/neg.0.et: byte 8: node 7: num_ops -5 is negative" -- "$SGAI" chakra stats "$tmp/neg.0.et"
    bad_input "node 7: num_ops -5" -- "$SGAI" chakra jsonize "$tmp/neg.0.et" --out "$o/n.json"
    bad_input "node 7: num_ops -5" -- "$SGAI" chakra visualize "$tmp/neg.0.et" --out "$o/n.dot"
    et "$tmp/size.0.et" 3 comm_size -4096
    bad_input "$tmp/size.0.et: byte 8: node 3: comm_size -4096 is negative" -- "$SGAI" chakra stats "$tmp/size.0.et"
    nothing "$o"
    # the same values in JSON: dejsonize names the node
    "$SGAI" chakra generate microbenchmark --ranks 2 --out "$tmp/mb" >/dev/null || fail "microbenchmark"
    "$SGAI" chakra jsonize "$tmp/mb/all_reduce.0.et" --out "$tmp/a.json" >/dev/null || fail "jsonize"
    sed 's/"name": "comm_size", "int64_val": [0-9]*/"name": "comm_size", "int64_val": -5/' "$tmp/a.json" >"$tmp/neg.json"
    bad_input "$tmp/neg.json: at /nodes/0/attr: node 0: comm_size -5 is negative" -- "$SGAI" chakra dejsonize "$tmp/neg.json" --out "$o/n.0.et"
    sed 's/"name": "comm_size", "int64_val": [0-9]*/"name": "num_ops", "double_val": -1.5/' "$tmp/a.json" >"$tmp/ops.json"
    bad_input "at /nodes/0/attr: node 0: num_ops -1.5 is negative" -- "$SGAI" chakra dejsonize "$tmp/ops.json" --out "$o/n.0.et"
    nothing "$o"
    # NUL bytes are no ET: an empty GlobalMetadata, empty node records
    head -c 40 /dev/zero >"$tmp/nul.0.et"
    bad_input "nul.0.et: byte 0: the first message is empty" -- "$SGAI" chakra jsonize "$tmp/nul.0.et" --out "$o/n.json"
    bad_input "nul.0.et: byte 0: the first message is empty" -- "$SGAI" chakra visualize "$tmp/nul.0.et" --out "$o/n.dot"
    printf '\x07\x0a\x050.0.4\x00' >"$tmp/empty_node.0.et"
    bad_input "empty_node.0.et: byte 8: node record #1 is empty" -- "$SGAI" chakra stats "$tmp/empty_node.0.et"
    printf '\x07\x0a\x050.0.4' >"$tmp/no_node.0.et"
    bad_input "no_node.0.et: byte 8: no node after the GlobalMetadata" -- "$SGAI" chakra stats "$tmp/no_node.0.et"
    # what dejsonize needs: a metadata version, nodes, names, values; data dependencies in the file
    j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1; json.dump(d, open(sys.argv[2], 'w'))" "$tmp/a.json" "$tmp/$2.json"; }
    j 'd["metadata"] = {}' meta
    bad_input "meta.json: at /metadata: missing field 'version'" -- "$SGAI" chakra dejsonize "$tmp/meta.json" --out "$o/n.0.et"
    j 'd["metadata"]["version"] = None' version
    bad_input "version.json: at /metadata/version: null" -- "$SGAI" chakra dejsonize "$tmp/version.json" --out "$o/n.0.et"
    j 'd["nodes"] = []' nodes
    bad_input "nodes.json: at /nodes: no node" -- "$SGAI" chakra dejsonize "$tmp/nodes.json" --out "$o/n.0.et"
    j 'del d["nodes"][0]["name"]' name
    bad_input "name.json: at /nodes/0: missing field 'name'" -- "$SGAI" chakra dejsonize "$tmp/name.json" --out "$o/n.0.et"
    j 'd["nodes"][0]["attr"] = None' attr
    bad_input "attr.json: at /nodes/0/attr: null" -- "$SGAI" chakra dejsonize "$tmp/attr.json" --out "$o/n.0.et"
    j 'd["nodes"][0]["attr"][0] = {"name": "x"}' value
    bad_input "value.json: at /nodes/0/attr/0: attribute 'x' has no value" -- "$SGAI" chakra dejsonize "$tmp/value.json" --out "$o/n.0.et"
    j 'd["nodes"][0]["data_deps"] = [999]' dangling
    bad_input "dangling.json: at /nodes/0/data_deps/0: node 0 depends on node 999, which is not in the file" -- \
      "$SGAI" chakra dejsonize "$tmp/dangling.json" --out "$o/n.0.et"
    nothing "$o"
    # a replay log's errors name the file and the line
    h="rank,node_id,event,time_us,type,name"
    printf '%s\n0,1,issue,3,COMP_NODE,x\n' "$h" >"$tmp/open.csv"
    bad_input "open.csv: line 2: rank 0: node 1 was issued but never called back" -- "$SGAI" chakra timeline "$tmp/open.csv" --out "$o/t.json"
    printf '%s\n0,1,issue,999999999999999999999999999999,COMP_NODE,x\n' "$h" >"$tmp/late.csv"
    bad_input "late.csv: line 2: time_us '999999999999999999999999999999' is above 1e18 us" -- "$SGAI" chakra timeline "$tmp/late.csv" --out "$o/t.json"
    printf '%s\n0,1,issue,3,COMP_NODE,x\0y\n' "$h" >"$tmp/nul.csv"
    bad_input "nul.csv: line 2: a NUL byte" -- "$SGAI" chakra timeline "$tmp/nul.csv" --out "$o/t.json"
    nothing "$o" ;;
  chakra_usage)
    "$SGAI" chakra generate microbenchmark --ranks 2 --out "$tmp/mb" >/dev/null || fail "microbenchmark"
    e=$tmp/mb/all_reduce.0.et
    usage "--ids" "'5:1'" -- "$SGAI" chakra visualize "$e" --ids 5:1 --out "$o/v.dot"
    usage "--ids" "'a:b'" -- "$SGAI" chakra visualize "$e" --ids a:b --out "$o/v.dot"
    usage "--out" "'.bmp'" ".dot, .svg, .pdf or .png" -- "$SGAI" chakra visualize "$e" --out "$o/v.bmp"
    usage "--out" "no extension" -- "$SGAI" chakra visualize "$e" --out "$o/v"
    usage "--type" "'COMPUTE'" -- "$SGAI" chakra visualize "$e" --type COMPUTE --out "$o/v.dot"
    usage "--out" "empty path" -- "$SGAI" chakra jsonize "$e" --out ""
    usage "--out" "empty path" -- "$SGAI" chakra generate training --out ""
    usage "--out" "ending in .et" -- "$SGAI" chakra generate dag --out "$o/d.txt"
    usage "--replay-log" "also the --json file" -- "$SGAI" chakra stats "$e" --json "$o/s" --replay-log "$o/s"
    nothing "$o"
    # an output that is an input, or a folder, is refused before any work
    "$SGAI" chakra jsonize "$e" --out "$tmp/a.json" >/dev/null || fail "jsonize"
    cp "$tmp/a.json" "$tmp/a.copy"
    bad_input "--out" "is the input file" -- "$SGAI" chakra dejsonize "$tmp/a.json" --out "$tmp/a.json"
    cmp -s "$tmp/a.json" "$tmp/a.copy" || fail "dejsonize overwrote its input"
    bad_input "--out" "is the input file" -- "$SGAI" chakra jsonize "$e" --out "$e"
    bad_input "--out" "is the input file" -- "$SGAI" chakra visualize "$e" --out "$e" --format dot
    bad_input "--json" "is the input file" -- "$SGAI" chakra stats "$tmp/mb/all_reduce" --json "$tmp/mb/all_reduce.1.et"
    bad_input "--out" "is the input file" -- "$SGAI" chakra convert "$tmp/a.json" --out "$tmp/a.json"
    printf 'rank,node_id,event,time_us,type,name\n' >"$tmp/log.csv"
    bad_input "--out" "is the input file" -- "$SGAI" chakra timeline "$tmp/log.csv" --out "$tmp/log.csv"
    bad_input "--out" "is the input file" -- "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --out tests/fixtures/workloads/tiny.swf
    mkdir "$tmp/d.et"
    bad_input "--out" "is a folder" -- "$SGAI" chakra generate dag --out "$tmp/d.et" --nodes 5
    bad_input "--out" "is a folder" -- "$SGAI" workload generate --jobs 5 --out "$tmp/mb"
    touch "$tmp/file"
    bad_input "--out" "is a file" -- "$SGAI" chakra generate microbenchmark --out "$tmp/file"
    bad_input "--out" "is a file" -- "$SGAI" chakra generate training --layers 2 --out "$tmp/file"
    cmp -s "$tmp/a.json" "$tmp/a.copy" || fail "an input changed" ;;
  pytorch_deps)
    shared_or_skip
    ml=../shared/data/chakra/mlcommons-chakra.0.et
    run "$SGAI" chakra stats "$ml"; expect_rc 0
    [ "$(grep -c 'converted from PyTorch' "$tmp/out")" -eq 1 ] || fail "one line should say data dependencies are followed: $out"
    grep -q "ALL_REDUCE: 5 collectives, 97.492 MiB" "$tmp/out" || fail "$out"
    grep -q "critical path 46140 us" "$tmp/out" || fail "$out"
    run "$SGAI" chakra stats "$ml" --deps data; expect_rc 0
    grep -q "converted from PyTorch" "$tmp/out" && fail "--deps data needs no note: $out"
    bad_input "$ml: node 3317: dependency cycle: 3317 -> 3318 -> 3317 (through control dependencies" -- \
      "$SGAI" chakra stats "$ml" --deps all
    # Chakra's other converters write a schema too: their traces keep every dependency
    a=../shared/data/astra-sim/examples/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce
    for x in "$a" $(ls ../shared/data/astra-sim/examples/workload/*/custom_allreduce.0.et 2>/dev/null | head -1); do
      run "$SGAI" chakra stats "$x"; expect_rc 0; grep -v "Read and resolved" "$tmp/out" >"$tmp/auto"
      grep -q "converted from PyTorch" "$tmp/auto" && fail "$x is not from PyTorch: $out"
      run "$SGAI" chakra stats "$x" --deps all; expect_rc 0; grep -v "Read and resolved" "$tmp/out" >"$tmp/all"
      cmp -s "$tmp/auto" "$tmp/all" || fail "$x: auto differs from all: $(diff "$tmp/auto" "$tmp/all")"
    done
    # the replay follows the same rule
    printf 'topology: [ Ring ]\nnpus_count: [ 1 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/ring1.yml"
    printf '{"preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"]}\n' >"$tmp/sys.json"
    run "$SGAI" replay --workload "$ml" --system "$tmp/sys.json" --network "$tmp/ring1.yml" --out "$tmp/r"; expect_rc 0
    [ "$(grep -c 'converted from PyTorch' "$tmp/out")" -eq 1 ] || fail "replay: one line should say so: $out"
    grep -q "Replayed 3664 nodes" "$tmp/out" || fail "replay: $out"
    bad_input "$ml: rank 0, node 3317: dependency cycle" -- \
      "$SGAI" replay --workload "$ml" --system "$tmp/sys.json" --network "$tmp/ring1.yml" --out "$o" --deps all
    nothing "$o" ;;
  replay_messages)
    "$SGAI" chakra generate microbenchmark --ranks 4 --out "$tmp/mb" >/dev/null || fail "microbenchmark"
    printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/ring4.yml"
    printf '{"preferred-dataset-splits": 2, "all-reduce-implementation": ["ring"]}\n' >"$tmp/sys.json"
    "$SGAI" chakra jsonize "$tmp/mb/all_reduce.0.et" --out "$tmp/a.json" >/dev/null || fail "jsonize"
    replay_bad() { # ETs edited from rank 0's JSON by sed expression $1; error parts follow
      local expr=$1; shift
      rm -rf "$tmp/bad" && mkdir "$tmp/bad" && cp "$tmp"/mb/all_reduce.[123].et "$tmp/bad/"
      sed "$expr" "$tmp/a.json" >"$tmp/e.json"
      "$SGAI" chakra dejsonize "$tmp/e.json" --out "$tmp/bad/all_reduce.0.et" >/dev/null || fail "dejsonize $expr"
      bad_input "$@" -- "$SGAI" replay --workload "$tmp/bad/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$o"
      [ "$(grep -o "$tmp/bad/all_reduce.0.et" "$tmp/err" | wc -l)" -eq 1 ] || fail "the file is named more than once: $err"
      grep -q ': $' "$tmp/err" && fail "the error ends with ': ': $err"
      nothing "$o"
    }
    # a dangling data dependency: dejsonize refuses to write one, so the node's bytes get it
    # (field 5, data_deps, varint 77) after the GlobalMetadata
    rm -rf "$tmp/bad" && mkdir "$tmp/bad" && cp "$tmp"/mb/all_reduce.[123].et "$tmp/bad/"
    python3 - "$tmp/mb/all_reduce.0.et" "$tmp/bad/all_reduce.0.et" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
def message(at):  # (start of the body, its length); lengths below 128 here
    assert data[at] < 128
    return at + 1, data[at]
start, n = message(0)
nstart, nn = message(start + n)
node = data[nstart:nstart + nn] + bytes([5 << 3, 77])
open(sys.argv[2], 'wb').write(data[:start + n] + bytes([len(node)]) + node + data[nstart + nn:])
PY
    bad_input "$tmp/bad/all_reduce.0.et: rank 0, node 0: node 0 depends on node 77, which is not in the trace" -- \
      "$SGAI" replay --workload "$tmp/bad/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$o"
    nothing "$o"
    replay_bad 's/, {"name": "comm_size", "int64_val": [0-9]*}//' "$tmp/bad/all_reduce.0.et: rank 0, node 0: ALL_REDUCE without a comm_size"
    replay_bad 's/"name": "comm_size", "int64_val": [0-9]*/"name": "comm_size", "string_val": "1MiB"/' \
      "rank 0, node 0: ALL_REDUCE with a comm_size of kind string_val: expected a whole number of bytes"
    # a negative comm_size is refused where the trace is read, with the node's id
    rm -rf "$tmp/bad" && mkdir "$tmp/bad" && cp "$tmp"/mb/all_reduce.[123].et "$tmp/bad/"
    et "$tmp/bad/all_reduce.0.et" 0 comm_size -5
    bad_input "$tmp/bad/all_reduce.0.et: rank 0, byte 8: node 0: comm_size -5 is negative" -- \
      "$SGAI" replay --workload "$tmp/bad/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$o"
    nothing "$o"
    # communicator groups naming a rank the job lacks: the groups file is named, with the group
    printf '{"0": [0, 1, 2, 9]}\n' >"$tmp/groups.json"
    bad_input "$tmp/groups.json: group '0': rank 9 does not exist (the job has 4 ranks)" -- "$SGAI" replay \
      --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --comm-group "$tmp/groups.json" --out "$o"
    nothing "$o"
    usage "--deps" "none" -- "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$o" --deps none
    nothing "$o" ;;
  nb_res)
    # A Batsim workload runs on its first nb_res cores (Batsim's machines are one-core hosts);
    # tiny_flat has 10 cores
    p=tests/fixtures/platforms/tiny_flat.json
    wl() { printf '{ "nb_res": %s, "jobs": [ { "id": 1, "subtime": 0, "res": 1, "profile": "d" } ],\n  "profiles": { "d": { "type": "DelayProfile", "delay": 1 } } }\n' "$1" >"$tmp/$2.json"; }
    wl 11 big
    bad_input "$tmp/big.json: at /nb_res: nb_res 11 is more than the 10 cores of the platform" "tiny_flat.json" -- \
      "$SGAI" batch run --platform $p --workload "$tmp/big.json" --out "$o"
    grep -q "Running experiment" "$tmp/err" && fail "checked after the simulation started: $err"
    nothing "$o"
    # max_resources overrides it, with one warning naming both
    run "$SGAI" batch run --platform $p --workload "$tmp/big.json" --max-resources 10 --out "$tmp/b1"; expect_rc 0
    [ "$(grep -c 'overrides the nb_res' "$tmp/err")" -eq 1 ] || fail "one warning expected: $err"
    grep -qF "max_resources 10 overrides the nb_res 11 of workload $tmp/big.json: the run uses the first 10 cores" \
      "$tmp/err" || fail "the warning: $err"
    grep -q '"cores": 10,' "$tmp/b1/summary.json" || fail "10 cores: $(cat "$tmp/b1/summary.json")"
    # without the option, nb_res cores and no warning; the same count given again: no warning either
    wl 3 three
    run "$SGAI" batch run --platform $p --workload "$tmp/three.json" --out "$tmp/b2"; expect_rc 0
    grep -q '"cores": 3,' "$tmp/b2/summary.json" || fail "3 cores: $(cat "$tmp/b2/summary.json")"
    grep -q 'WARN' "$tmp/err" && fail "no warning expected: $err"
    run "$SGAI" batch run --platform $p --workload "$tmp/three.json" --max-resources 3 --out "$tmp/b3"; expect_rc 0
    grep -q 'overrides' "$tmp/err" && fail "no warning expected for the same count: $err"
    # HDeepRM's workloads (job_limits: swf2json, generate, SWF logs) run on the whole platform:
    # their nb_res is the size of the log's machine (tiny.swf: MaxProcs 8)
    "$SGAI" workload swf2json tests/fixtures/workloads/tiny.swf --out "$tmp/swf.json" >/dev/null || fail "swf2json"
    grep -q '"nb_res": 8' "$tmp/swf.json" || fail "nb_res 8: $(head -3 "$tmp/swf.json")"
    run "$SGAI" batch run --platform $p --workload "$tmp/swf.json" --out "$tmp/b4"; expect_rc 0
    grep -q '"cores": 10,' "$tmp/b4/summary.json" || fail "the whole platform: $(cat "$tmp/b4/summary.json")"
    # Batsim's medium_late (nb_res 32) on its 128-machine platform: 32 machines without the option
    if [ -d ../shared/data/batsim/medium_late ]; then
      run "$SGAI" batch run --platform ../shared/data/batsim/medium_late/platform.xml \
        --workload ../shared/data/batsim/medium_late/medium_late.json --backfill easy --out "$tmp/b5"; expect_rc 0
      grep -q '"cores": 32,' "$tmp/b5/summary.json" || fail "medium_late on 32: $(cat "$tmp/b5/summary.json")"
    fi ;;
  energy_policies)
    # batsched's energy variants: checked before the simulation, naming a host or the option
    shared_or_skip
    ml=../shared/data/batsim/medium_late
    B=../shared/data/platforms/batsim/platforms
    pol=(--energy-policy energy_bf_monitoring_inertial --energy-options deploy/energy/inertial.json)
    # a platform without wattage (cluster512.xml) or without sleep P-states (gaia.json)
    bad_input "$(realpath -s $B/cluster512.xml): host 'a0': no wattage_per_state, and the energy policy switches" -- \
      "$SGAI" batch run --platform $B/cluster512.xml --workload $ml/medium_late.json --backfill easy "${pol[@]}" --out "$o"
    grep -q "Running experiment" "$tmp/err" && fail "checked after the simulation started: $err"
    nothing "$o"
    bad_input "no sleep_pstates property (Batsim's \"sleep:off:on\" P-states), and the energy policy" "gaia.json: host '" -- \
      "$SGAI" batch run --platform platforms/gaia.json --workload $ml/medium_late.json --backfill easy "${pol[@]}" \
      --out "$o"
    nothing "$o"
    # EASY backfilling only, as batsched's variants
    bad_input "inertial.json: the energy policy energy_bf_monitoring_inertial runs with EASY backfilling" -- \
      "$SGAI" batch run --platform $ml/platform.xml --workload $ml/medium_late.json --backfill conservative \
      "${pol[@]}" --out "$o"
    nothing "$o"
    # the variant and its options go together; unknown variants are usage errors
    usage "--energy-policy and --energy-options go together" -- \
      "$SGAI" batch run --platform $ml/platform.xml --workload $ml/medium_late.json --backfill easy \
      --energy-policy energy_bf_subpart_sleeper --out "$o"
    usage "--energy-policy" -- "$SGAI" batch run --platform $ml/platform.xml --workload $ml/medium_late.json \
      --energy-policy energy_bf_dicho --energy-options deploy/energy/inertial.json --out "$o"
    # a bad options file: its file, pointer and value
    sed 's/"monitoring_period": 60/"monitoring_period": -60/' deploy/energy/inertial.json >"$tmp/neg.json"
    bad_input "neg.json: at /monitoring_period: " "-60" -- "$SGAI" batch run --platform $ml/platform.xml \
      --workload $ml/medium_late.json --backfill easy --energy-policy energy_bf_monitoring_inertial \
      --energy-options "$tmp/neg.json" --out "$o"
    nothing "$o"
    # a run: machines slept, the same jobs done, Batsim's machine columns written
    run "$SGAI" batch run --platform $ml/platform.xml --workload $ml/medium_late.json --backfill easy \
      --energy-policy energy_bf_subpart_sleeper --energy-options deploy/energy/opportunistic.json --series machine_states \
      --out "$tmp/e1"
    expect_rc 0
    python3 - "$tmp/e1" <<'PY' || fail "energy policy run: $(cat "$tmp/e1/schedule.csv")"
import csv, json, sys
d = json.load(open(sys.argv[1] + "/schedule.json"))
assert d["jobs_success"] == 801 and d["nb_machine_switches"] > 0 and d["time_sleeping"] > 0, d
assert d["energy_j"] < 0.8 * 48909070.4, d["energy_j"]
rows = list(csv.DictReader(open(sys.argv[1] + "/machine_states.csv")))
assert max(int(r["nb_sleeping"]) for r in rows) > 0
assert all(sum(int(r[k]) for k in ("nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle",
                                    "nb_computing")) == 32 for r in rows)
PY
    ;;
  series)
    # the time series on request: none (the default), a list, all; unknown names are usage errors
    p=tests/fixtures/platforms/tiny_flat.json
    wl=tests/fixtures/workloads/tiny.json
    run "$SGAI" batch run --platform $p --workload $wl --out "$tmp/s0"; expect_rc 0
    for f in machine_states energy pstate_changes overutilization; do
      [ ! -e "$tmp/s0/$f.csv" ] || fail "the default (none) wrote $f.csv"
    done
    [ -s "$tmp/s0/jobs.csv" ] && [ -s "$tmp/s0/schedule.json" ] || fail "jobs.csv and schedule.json are always written"
    run "$SGAI" batch run --platform $p --workload $wl --series energy,machine_states --out "$tmp/s1"; expect_rc 0
    [ -s "$tmp/s1/energy.csv" ] && [ -s "$tmp/s1/machine_states.csv" ] || fail "the series asked for"
    [ ! -e "$tmp/s1/pstate_changes.csv" ] || fail "pstate_changes.csv was not asked for"
    run "$SGAI" batch run --platform $p --workload $wl --series all --out "$tmp/s2"; expect_rc 0
    for f in machine_states energy pstate_changes overutilization; do
      [ -s "$tmp/s2/$f.csv" ] || fail "--series all writes $f.csv"
    done
    # the same rows whether streamed (here) or not: machine_states of s1 and s2 agree
    cmp -s "$tmp/s1/machine_states.csv" "$tmp/s2/machine_states.csv" || fail "machine_states differ"
    usage "unknown time series 'bogus'" -- "$SGAI" batch run --platform $p --workload $wl --series energy,bogus \
      --out "$tmp/s3"
    [ ! -e "$tmp/s3" ] || fail "a usage error left $tmp/s3" ;;
  deployment)
    # a SimGrid deployment file starting sgai's workload manager (examples/cpp/batch_deployment's
    # files, with a policy sgai ships): the schedule hand-checked in that example's README
    ex=examples/cpp/batch_deployment
    cp $ex/platform.xml $ex/workload.json "$tmp"
    sed 's/longest_first/shortest/' $ex/deployment.xml >"$tmp/d.xml"
    (cd "$tmp" && "$SGAI" run platform.xml d.xml >out 2>err) || fail "sgai run platform.xml d.xml: $(cat "$tmp/err")"
    grep -q "^Simulated 110 s" "$tmp/out" || fail "simulated time: $(cat "$tmp/out")"
    python3 - "$tmp/results/jobs.csv" <<'PY' || fail "the schedule of the deployed manager"
import csv, sys
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
starts = {j: float(r["starting_time"]) for j, r in rows.items()}
assert starts == {"a": 0, "b": 50, "c": 60, "d": 3}, starts
assert float(rows["a"]["consumed_energy"]) == 3 * 50 * 190, rows["a"]["consumed_energy"]
PY
    # bad arguments and inputs: one error line naming the actor and the value, exit 1, no outputs
    for bad in 's/backfill=easy/backfill=eazy/|eazy' 's/workload=workload.json/workload=none.json/|none.json' \
               's/out=results/outt=results/|outt' 's/job_policy=shortest/job_policy=nobody/|nobody' \
               's/sgai_workload_manager/sgai_nothing/|sgai_nothing' 's/master_host/nohost/|nohost'; do
      sed "${bad%|*}" "$tmp/d.xml" >"$tmp/bad.xml"
      bad_deployment bad.xml "${bad#*|}"
    done
    run "$SGAI" run $ex/platform.xml "$tmp/none.xml"; expect_rc 1; expect_one_error_line "no such deployment file"
    run "$SGAI" run $ex/platform.xml $ex/deployment.xml --seed 3; expect_rc 2
    expect_one_error_line "a deployment file's actors take theirs as arguments" ;;
  deployment_submitters)
    # jobs from sgai_job_submitter actors: batch_deployment's workload split in two files, each
    # with its submitter, give the same schedule as the one file (its README: with shortest, a at
    # 0, d at 3, b at 50, c at 60), jobs.csv naming each job's workload; the manager's own
    # workload and one submitter together, likewise
    ex=examples/cpp/batch_deployment
    cp $ex/platform.xml "$tmp"
    python3 - $ex/workload.json "$tmp" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
for name, ids in (("s1", "ac"), ("s2", "bd")):
    jobs = [j for j in w["jobs"] if j["id"] in ids]
    profiles = {j["profile"]: w["profiles"][j["profile"]] for j in jobs}
    json.dump({"jobs": jobs, "profiles": profiles}, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
    manager() { # ARGUMENTS...
      echo '<actor host="master_host" function="sgai_workload_manager"><argument value="out=results"/>'
      echo '<argument value="job_policy=shortest"/><argument value="max_resources=4"/>'
      for a in "$@"; do echo "<argument value=\"$a\"/>"; done
      echo '</actor>'
    }
    submitter() { # WORKLOAD [MANAGER]
      echo "<actor host=\"master_host\" function=\"sgai_job_submitter\"><argument value=\"workload=$1\"/>"
      [ $# -lt 2 ] || echo "<argument value=\"manager=$2\"/>"
      echo '</actor>'
    }
    deployment() { # ACTORS (XML)
      echo '<?xml version="1.0"?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd"><platform version="4.1">'
      echo "$1"
      echo '</platform>'
    }
    check_schedule() { # WORKLOAD-NAMES (a b c d)
      python3 - "$tmp/results/jobs.csv" "$@" <<'PY' || fail "the schedule with submitters ($*)"
import csv, sys
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
starts = {j: float(r["starting_time"]) for j, r in rows.items()}
assert starts == {"a": 0, "b": 50, "c": 60, "d": 3}, starts
subs = {j: float(r["submission_time"]) for j, r in rows.items()}
assert subs == {"a": 0, "b": 1, "c": 2, "d": 3}, subs
names = [rows[j]["workload_name"] for j in "abcd"]
assert names == sys.argv[2:], names
PY
    }
    # the submitters first, the manager between them, or last: the same run
    for order in 'S1 M S2' 'M S1 S2' 'S1 S2 M'; do
      actors=""
      for a in $order; do
        case $a in
          M) actors+=$(manager submitters=2) ;;
          S1) actors+=$(submitter s1.json) ;;
          S2) actors+=$(submitter s2.json) ;;
        esac
      done
      deployment "$actors" >"$tmp/d.xml"
      rm -rf "$tmp/results"
      (cd "$tmp" && "$SGAI" run platform.xml d.xml >out 2>err) || fail "sgai run ($order): $(cat "$tmp/err")"
      check_schedule s1 s2 s1 s2
    done
    cp $ex/workload.json "$tmp/own.json"
    python3 - "$tmp/own.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["jobs"] = [j for j in w["jobs"] if j["id"] in "ac"]
json.dump(w, open(sys.argv[1], "w"))
PY
    deployment "$(manager submitters=1 workload=own.json)$(submitter s2.json)" >"$tmp/d.xml"
    rm -rf "$tmp/results"
    (cd "$tmp" && "$SGAI" run platform.xml d.xml >out 2>err) || fail "sgai run (own workload): $(cat "$tmp/err")"
    check_schedule own s2 own s2
    # mistakes: one error line naming them, exit 1, no outputs, no SimGrid deadlock report
    for bad in "$(manager submitters=3)$(submitter s1.json)$(submitter s2.json)|waits for 1 of its 3 submitters" \
               "$(manager submitters=2)$(submitter s1.json wm)$(submitter s2.json)|no workload manager named 'wm'" \
               "$(manager workload=own.json)$(submitter s2.json)|takes no submissions" \
               "$(manager submitters=1)$(submitter s1.json)$(submitter s2.json)|every submitter of this workload manager has ended" \
               "$(manager submitters=1)$(submitter none.json)|none.json" \
               "$(manager submitters=1 name=m)$(manager submitters=1 name=m)$(submitter s1.json m)|named 'm' is deployed already"; do
      deployment "${bad%|*}" >"$tmp/bad.xml"
      bad_deployment bad.xml "${bad##*|}"
    done ;;
  deployment_replay)
    # sgai_collective and sgai_trace_replay side by side on the generated HGX H100 node: the
    # collective's time equals the one sgai::collectives gives alone (examples/cpp/allreduce_hgx's
    # expected output: 4.739125 ms for 1 GB by ring) while it runs alone, is longer when the
    # replay's all-reduces share the NVLinks, and the replay's ranks all end
    g=hgx-n0-gpu0,hgx-n0-gpu1,hgx-n0-gpu2,hgx-n0-gpu3,hgx-n0-gpu4,hgx-n0-gpu5,hgx-n0-gpu6,hgx-n0-gpu7
    deployment() { # ACTOR-ARGUMENTS... (each "function|key=value,...")
      echo '<?xml version="1.0"?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd"><platform version="4.1">'
      for a in "$@"; do
        echo "<actor host=\"hgx-n0-p0\" function=\"${a%%|*}\">"
        local rest=${a#*|}
        while [ -n "$rest" ]; do
          echo "<argument value=\"${rest%%;*}\"/>"
          [ "$rest" = "${rest#*;}" ] && break
          rest=${rest#*;}
        done
        echo "</actor>"
      done
      echo '</platform>'
    }
    deployment "sgai_collective|hosts=$g;bytes=1GB;repeat=2;out=$tmp/c.csv" >"$tmp/d.xml"
    run "$SGAI" run platforms/hgx-h100.json "$tmp/d.xml"; expect_rc 0
    python3 - "$tmp/c.csv" <<'PY' || fail "the collective's rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 and all(r["ranks"] == "8" and r["algorithm"] == "ring" for r in rows), rows
assert abs(float(rows[0]["time_s"]) - 4.739125e-3) < 1e-9, rows[0]["time_s"]
assert abs(float(rows[1]["start_s"]) - float(rows[0]["end_s"])) < 1e-12
PY
    deployment "sgai_trace_replay|trace=workloads/chakra/gpt-dp8/gpt;hosts=$g;out=$tmp/r" \
      "sgai_collective|hosts=$g;bytes=1GB;repeat=5;out=$tmp/c2.csv" >"$tmp/d2.xml"
    run "$SGAI" run platforms/hgx-h100.json "$tmp/d2.xml"; expect_rc 0
    [ "$(tail -n +2 "$tmp/r/ranks.csv" | wc -l)" -eq 8 ] || fail "ranks.csv: $(cat "$tmp/r/ranks.csv")"
    python3 - "$tmp/c.csv" "$tmp/c2.csv" <<'PY' || fail "the collective beside the replay shares the links"
import csv, sys
# the replay's all-reduces begin at 16.25 ms: the 4th and 5th collectives meet them
alone = float(next(csv.DictReader(open(sys.argv[1])))["time_s"])
shared = [float(r["time_s"]) for r in csv.DictReader(open(sys.argv[2]))]
assert abs(shared[0] - alone) < 1e-12 and max(shared) > alone * 1.01, (alone, shared)
PY
    # bad arguments: one error line naming the value, exit 1
    for bad in "sgai_collective|hosts=$g;bytes=-3|bytes" "sgai_collective|hosts=$g,nohost;bytes=1MB|nohost" \
               "sgai_collective|hosts=$g;bytes=1MB;algorithm=rign|rign" "sgai_collective|hosts=$g;bytes=1MB;type=gather|gather" \
               "sgai_collective|hosts=$g|bytes= is missing" \
               "sgai_trace_replay|trace=workloads/chakra/gpt-dp8/gpt;hosts=hgx-n0-gpu0|8 ranks" \
               "sgai_trace_replay|trace=$tmp/none;hosts=$g|none"; do
      deployment "${bad%|*}" >"$tmp/bad.xml"
      run "$SGAI" run platforms/hgx-h100.json "$tmp/bad.xml"; expect_rc 1
      expect_one_error_line "${bad##*|}"; no_backtrace
    done
    # sgai platform generate --deployment writes such files for its platform
    run "$SGAI" platform generate platforms/hgx-h100.json --deployment sgai_collective --deployment-arg bytes=64MB \
      --deployment-arg out=$tmp/gen.csv --out "$tmp/gen"; expect_rc 0
    grep -q "hosts=$g" "$tmp/gen/hgx-h100.deployment.xml" || fail "$(cat "$tmp/gen/hgx-h100.deployment.xml")"
    run "$SGAI" run "$tmp/gen/hgx-h100.xml" "$tmp/gen/hgx-h100.deployment.xml"; expect_rc 0
    [ "$(tail -n +2 "$tmp/gen.csv" | cut -d, -f1-4)" = "all_reduce,ring,8,6.4e+07" ] || fail "$(cat "$tmp/gen.csv")"
    usage "needs trace=" -- "$SGAI" platform generate platforms/hgx-h100.json --deployment sgai_trace_replay \
      --out "$tmp/gen2"
    [ ! -e "$tmp/gen2" ] || fail "a usage error left $tmp/gen2"
    usage "--deployment-arg is for sgai's actor functions" -- "$SGAI" platform generate platforms/hgx-h100.json \
      --deployment my_actor --deployment-arg x=1 --out "$tmp/gen3"
    usage "bytes is given twice" -- "$SGAI" platform generate platforms/hgx-h100.json --deployment sgai_collective \
      --deployment-arg bytes=1 --deployment-arg bytes=2 --out "$tmp/gen4"
    # sgai's GPU plugin checks the GPU hosts' figures when the platform is created
    deployment "sgai_collective|hosts=gpu0,gpu1;bytes=1MB" | sed 's/hgx-n0-p0/gpu0/' >"$tmp/g.xml"
    run "$SGAI" run tests/fixtures/platforms/bogus_gpu_property.xml "$tmp/g.xml"; expect_rc 1
    expect_one_error_line "bogus_gpu_property.xml"
    grep -q "host gpu0: property sgai_peak_flops_bf16='lots' is not a positive number" "$tmp/err" || fail "$err"
    no_backtrace ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
