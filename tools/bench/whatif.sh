#!/usr/bin/env bash
# The what-if engine's speed and memory on the largest shared Kineto trace (HTA's df_index_resolver:
# 216k events, rank 1 of 2 on V100s): graph construction (read + build) and the walk, each printed.
# Targets (issue 24): construction <= 10 s and <= 1.5 GiB, the walk <= 0.1 s on the 2-core CI machine.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SGAI_BUILD_DIR:-$here/build}"
trace="${1:-$here/../shared/data/kineto/hta/df_index_resolver/df_index_resolver.json.gz}"
"$build/tools/whatif_bench" "$trace" 20
