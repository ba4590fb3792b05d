#!/usr/bin/env bash
# Fuzzes sgai's parsers with libFuzzer (clang, ASan, UBSan).
# Usage: tools/fuzz.sh [TARGET] [SECONDS]
#   TARGET: platform_json (the platform JSON reader, seeds: tests/fixtures/platforms) or chakra_et
#   (the Chakra ET reader and feeder, seeds: the shared traces and tests/fuzz/chakra_seeds);
#   default platform_json, 60 s. A plain number as the first argument is the seconds.
# Crashing inputs land in build-fuzz/crashes/; once fixed, copy them to tests/fuzz/regressions/
# (platform JSON) or tests/fuzz/chakra_seeds/ (ET) so the unit tests replay them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${1:-platform_json}
if [[ "$target" =~ ^[0-9]+$ ]]; then
  seconds=$target
  target=platform_json
else
  seconds=${2:-60}
fi
command -v clang++ >/dev/null || { echo "clang++ is needed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
case "$target" in
  platform_json) seeds=(tests/fixtures/platforms); max_len=8192 ;;
  chakra_et)
    seeds=(tests/fuzz/chakra_seeds)
    for d in ../shared/data/astra-sim/examples/workload/microbenchmarks/all_reduce/4npus_1MB \
             ../shared/data/astra-sim/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB; do
      [ -d "$d" ] && seeds+=("$d")
    done
    max_len=65536 ;;
  *) echo "unknown fuzz target '$target' (known: platform_json, chakra_et)" >&2; exit 2 ;;
esac
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSGAI_FUZZ=ON \
  -DSGAI_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${target}_fuzz" -- --no-print-directory
mkdir -p "build-fuzz/corpus-$target" build-fuzz/crashes
ASAN_OPTIONS=detect_leaks=0 "build-fuzz/tests/fuzz/${target}_fuzz" "build-fuzz/corpus-$target" "${seeds[@]}" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len="$max_len" \
  -artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 2>&1 | tail -n 12
