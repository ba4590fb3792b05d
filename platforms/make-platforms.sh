#!/usr/bin/env bash
# Regenerates the platforms derived from third-party data in ../shared/data (HDeepRM's examples,
# the MetaCentrum-2013 machine description) and the generated fabrics (a DGX SuperPOD). The results
# are committed; tests/cli checks that running this again changes nothing.
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
# NVIDIA's DGX SuperPOD reference architecture at 768 nodes (6,144 H100), a NIC per GPU on 8 rails
"$sgai" platform superpod --nodes 768 --catalogue catalogues/accelerators.json \
  --out "$out/dgx-h100-superpod-rails.json" >/dev/null
echo "platforms written to $out"
