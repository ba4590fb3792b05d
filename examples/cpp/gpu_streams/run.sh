#!/usr/bin/env bash
# run.sh PROGRAM PREFIX: the example on the HGX H100 node that sgai installs (PREFIX/share/sgai/platforms)
set -euo pipefail
"$1" "$2/share/sgai/platforms/hgx-h100.json" 2>/dev/null
