#!/bin/sh
# map_energy.sh - on the GPU machine, in one call: MAP-Elites along measured
# energy, live: the FP16 TMA GEMM at 4096^3 with its spec's three behaviour
# dimensions and energy per call (4 bins, measured), BUDGET evaluations of
# map_elites and of random search (seed 1, energy read on every row), each
# into its own database; per run the cells filled of the grid's, the
# results not placed, and the map's energy bins (OUT/STRATEGY.json holds the
# whole map).  docs/SEARCH.md, "Energy and the map".
#
#   make bundle                             (here; carry build/bundle)
#   sh bench/gpu/map_energy.sh OUT [BUNDLE]  (there; BUDGET default 96)
set -u
OUT=$1 B=${2:-build/bundle}
export KTUNE_WORKER=$B/ktune-worker LD_LIBRARY_PATH=$B/lib
SPEC=kernels/gemm/gemm-tma-f16-energy-map-cuda.json
mkdir -p "$OUT"
python3 - kernels/gemm/gemm-tma-f16-cuda.json $SPEC <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["ConfigurationSpace"]["BehaviourDimensions"].append(
    {"Name": "energy", "Measured": "energy", "Bins": 4})
s["General"]["BenchmarkName"] += "-energy-map"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for strategy in map_elites random; do
    t0=$(date +%s)
    "$B/ktune" tune $SPEC --problem M=4096,N=4096,K=4096 --strategy $strategy \
        --budget "${BUDGET:-96}" --seed 1 --map --db "$OUT/$strategy.db" \
        --cache /tmp/ktune-map-energy --timeout 20 --json </dev/null \
        >"$OUT/$strategy.json" 2>"$OUT/$strategy.err"
    echo "$strategy: rc=$? $(($(date +%s) - t0)) s"
    python3 - "$OUT/$strategy.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["map"]
print(f"  measured {r['measured']}, statuses"
      f" {dict((k, v) for k, v in r['statuses'].items() if v)}, best {r['best']['key']}")
print(f"  cells filled {m['filled']} of {m['cells']}, unplaced {m['unplaced']}")
for d in m["dimensions"]:
    if d.get("measured"):
        print(f"  {d['name']} (measured) bins: " +
              ", ".join(f"{lo:.4g}-{hi:.4g}" for lo, hi in d["bins"]))
PY
done
rm -f $SPEC
