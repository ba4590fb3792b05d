#!/usr/bin/env bash
# Fuzzes the platform JSON reader with libFuzzer (clang, ASan, UBSan).
# Usage: tools/fuzz.sh [seconds]   (default 60). Crashing inputs land in build-fuzz/crashes/;
# copy them to tests/fuzz/regressions/ once fixed, so the unit tests replay them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
command -v clang++ >/dev/null || { echo "clang++ is needed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSGAI_FUZZ=ON \
  -DSGAI_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target platform_json_fuzz -- --no-print-directory
mkdir -p build-fuzz/corpus build-fuzz/crashes
ASAN_OPTIONS=detect_leaks=0 build-fuzz/tests/fuzz/platform_json_fuzz build-fuzz/corpus tests/fixtures/platforms \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
  -artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 2>&1 | tail -n 12
