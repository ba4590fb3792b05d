#!/usr/bin/env bash
# Regenerates the platforms derived from third-party data in ../shared/data (HDeepRM's examples,
# the MetaCentrum-2013 machine description). The results are committed; tests/cli checks that
# running this again changes nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
sgai=${SGAI:-$root/build/tools/sgai}
shared=${SGAI_SHARED:-$root/../shared}
out=${1:-$here}
hd=$shared/data/platforms/hdeeprm/platform_examples

for p in gaia mc2 learning; do
  "$sgai" platform convert "$hd/$p.json" --out "$out/$p.json" >/dev/null
done
"$sgai" platform import-machines "$shared/data/platforms/machines/mc.config" \
  --processors "$here/sources/metacentrum2013.map.json" --out "$out/metacentrum2013.json" >/dev/null
echo "platforms written to $out"
