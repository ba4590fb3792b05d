#!/usr/bin/env bash
# Fuzzes sgai's parsers and whole commands with libFuzzer (clang, ASan, UBSan); docs/fuzzing.md
# describes every target.
# Usage: tools/fuzz.sh [TARGET] [SECONDS]   one target (default platform_json, 60 s; a plain number
#                                           as the first argument is the seconds)
#        tools/fuzz.sh all [SECONDS]        every target in turn, SECONDS each (default 60), then a
#                                           table of executions/s and coverage; FUZZ_JOBS=N runs N
#                                           targets at a time (one core each)
#        tools/fuzz.sh list                 the targets and their seeds
# The build is build-fuzz/ (clang, -DSGAI_FUZZ=ON), or SGAI_FUZZ_BUILD=DIR, a build already configured
# with clang and -DSGAI_FUZZ=ON (tools/setup.sh test's sanitizer build, build-asan), whose targets are
# then built as it is configured. Corpora grow in DIR/corpus-TARGET, logs go to DIR/logs/TARGET.log.
# Crashing inputs land in DIR/crashes/; once fixed,
# copy them to the target's seeds (tests/fuzz/TARGET_seeds/, or tests/fuzz/regressions/ for
# platform_json) so that the unit tests replay them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fb=${SGAI_FUZZ_BUILD:-build-fuzz}

# name|seed folders (space-separated)|max_len|timeout (s)|what
targets=(
  "platform_json|tests/fixtures/platforms tests/fuzz/regressions|8192|10|platform JSON: parse, expand, XML and hierarchy"
  "chakra_et|tests/fuzz/chakra_seeds ../shared/data/astra-sim/examples/workload/microbenchmarks/all_reduce/4npus_1MB|65536|10|Chakra ET reader and feeder"
  "swf|tests/fuzz/swf_seeds|16384|10|SWF logs, plain and gzip, selection and conversion"
  "batsim|tests/fuzz/batsim_seeds|16384|10|Batsim workload JSON, summary and write-back"
  "batsim_reply|tests/fuzz/batsim_reply_seeds|8192|10|Batsim protocol: a scheduler's replies, interval sets"
  "slurm_conf|tests/fuzz/slurm_conf_seeds|8192|10|slurm.conf and sacctmgr dump files, resolved on 8 nodes"
  "platform_xml|tests/fuzz/platform_xml_seeds|16384|10|SimGrid XML: legacy translation, format sniffing"
  "experiment|tests/fuzz/experiment_seeds|8192|10|experiment files: parse and component options"
  "astra_network|tests/fuzz/astra_network_seeds|4096|10|ASTRA-sim network YAML"
  "astra_system|tests/fuzz/astra_system_seeds|4096|10|ASTRA-sim system JSON"
  "astra_groups|tests/fuzz/astra_groups_seeds|4096|10|ASTRA-sim communicator groups JSON"
  "chakra_json|tests/fuzz/chakra_json_seeds|16384|10|Chakra JSON (dejsonize) and the ET round trip"
  "pytorch_et|tests/fuzz/pytorch_et_seeds|65536|10|PyTorch execution trace + Kineto -> ET"
  "replay_log|tests/fuzz/replay_log_seeds|8192|10|replay log CSV -> Chrome trace"
  "synth_model|tests/fuzz/synth_model_seeds|8192|10|synthesis model JSON, sampling"
  "gpu_trace|tests/fuzz/gpu_trace_seeds|8192|10|GPU-cluster traces: Tiresias, Gavel, Alibaba -> training jobs"
  "kineto|tests/fuzz/kineto_seeds|16384|10|PyTorch profiler (Kineto) traces -> what-if graph, walk, optimizations"
  "aiops|tests/fuzz/aiops_seeds|16384|10|AI-ops model and experiment files, the synthesizer"
  "training|tests/fuzz/training_seeds|4096|10|training descriptions (Megatron-LM's arguments), FLOPs, memory"
  "cmd_platform|tests/fuzz/cmd_platform_seeds|8192|90|forked: sgai platform generate + inspect"
  "cmd_swf2json|tests/fuzz/cmd_swf2json_seeds|8192|60|forked: sgai workload swf2json + stats"
  "cmd_batch|tests/fuzz/cmd_batch_seeds|8192|30|forked: sgai batch run on a tiny platform"
  "cmd_replay|tests/fuzz/cmd_replay_seeds|8192|30|forked: sgai replay on tiny traces"
  "cmd_run|tests/fuzz/cmd_run_seeds|8192|30|forked: sgai run EXPERIMENT"
)

field() { # field LINE INDEX
  local IFS='|'
  read -r -a parts <<<"$1"
  echo "${parts[$2]}"
}

find_target() {
  for t in "${targets[@]}"; do
    if [ "$(field "$t" 0)" = "$1" ]; then
      echo "$t"
      return 0
    fi
  done
  return 1
}

names() {
  for t in "${targets[@]}"; do field "$t" 0; done
}

build() { # build TARGET...
  tools/setup.sh fuzz-packages # clang and libFuzzer's runtime, when missing
  command -v clang++ >/dev/null || { echo "clang++ is needed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
  if [ "$fb" = build-fuzz ]; then
    cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSGAI_FUZZ=ON \
      -DSGAI_BUILD_TESTS=OFF -DSGAI_TORCH=OFF >/dev/null
  elif ! grep -q '^SGAI_FUZZ:BOOL=ON' "$fb/CMakeCache.txt" 2>/dev/null; then
    echo "SGAI_FUZZ_BUILD=$fb is not a build configured with -DSGAI_FUZZ=ON" >&2
    exit 2
  fi
  local list=()
  for n in "$@"; do list+=(--target "${n}_fuzz"); done
  cmake --build "$fb" -j "$(nproc)" "${list[@]}" -- --no-print-directory
}

# fuzz TARGET SECONDS: runs it, keeps the log, prints libFuzzer's final lines; status of libFuzzer
fuzz() {
  local t name seeds max_len timeout
  t=$(find_target "$1")
  name=$(field "$t" 0)
  max_len=$(field "$t" 2)
  timeout=$(field "$t" 3)
  seeds=()
  for d in $(field "$t" 1); do
    [ -d "$d" ] && seeds+=("$d")
  done
  mkdir -p "$fb/corpus-$name" "$fb/crashes" "$fb/logs"
  local log="$fb/logs/$name.log" status=0
  echo "== $name ($2 s)"
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$fb/tests/fuzz/${name}_fuzz" "$fb/corpus-$name" "${seeds[@]}" \
    -max_total_time="$2" -timeout="$timeout" -rss_limit_mb=4096 -max_len="$max_len" \
    -artifact_prefix="$fb/crashes/$name-" -print_final_stats=1 >"$log" 2>&1 || status=$?
  tail -n 12 "$log"
  return $status
}

# summary TARGET: one line of figures from its last log
summary() {
  local log="$fb/logs/$1.log" done execs rate cov ft
  done=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  printf '%-14s %10s %9s %7s %7s\n' "$1" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}"
}

arg=${1:-platform_json}
case "$arg" in
  list)
    for t in "${targets[@]}"; do
      printf '%-14s %s\n%14s seeds: %s\n' "$(field "$t" 0)" "$(field "$t" 4)" "" "$(field "$t" 1)"
    done ;;
  all)
    seconds=${2:-60}
    mapfile -t all < <(names)
    build "${all[@]}"
    failed=()
    jobs_at_once=${FUZZ_JOBS:-1}
    if [ "$jobs_at_once" -gt 1 ]; then
      # N at a time; each one's status is kept in $fb/logs/TARGET.status
      running=0
      for n in "${all[@]}"; do
        if [ "$running" -ge "$jobs_at_once" ]; then
          wait -n || true
          running=$((running - 1))
        fi
        (
          s=0
          fuzz "$n" "$seconds" >/dev/null || s=$?
          echo "$s" >"$fb/logs/$n.status"
        ) &
        running=$((running + 1))
      done
      wait || true
      for n in "${all[@]}"; do
        [ "$(cat "$fb/logs/$n.status" 2>/dev/null || echo 1)" = 0 ] || failed+=("$n")
      done
    else
      for n in "${all[@]}"; do
        fuzz "$n" "$seconds" || failed+=("$n")
      done
    fi
    echo
    printf '%-14s %10s %9s %7s %7s\n' target execs exec/s cov ft
    for n in "${all[@]}"; do summary "$n"; done
    if [ ${#failed[@]} -gt 0 ]; then
      echo "failed: ${failed[*]} (inputs in $fb/crashes/, logs in $fb/logs/)" >&2
      exit 1
    fi ;;
  *)
    if [[ "$arg" =~ ^[0-9]+$ ]]; then
      seconds=$arg
      arg=platform_json
    else
      seconds=${2:-60}
    fi
    if ! find_target "$arg" >/dev/null; then
      echo "unknown fuzz target '$arg' (known: $(names | paste -sd, - | sed 's/,/, /g'); or all, list)" >&2
      exit 2
    fi
    build "$arg"
    status=0
    fuzz "$arg" "$seconds" || status=$?
    summary "$arg"
    exit $status ;;
esac
