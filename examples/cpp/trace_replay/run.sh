#!/usr/bin/env bash
# run.sh PROGRAM PREFIX: the GPT step sgai installs (PREFIX/share/sgai/workloads) on its HGX H100 node
set -euo pipefail
"$1" "$2/share/sgai/platforms/hgx-h100.json" "$2/share/sgai/workloads/chakra/gpt-dp8/gpt" 2>/dev/null
