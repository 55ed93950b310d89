#!/bin/sh
# map_measured.sh - how many cells of a map along measured energy a run
# fills, on the H100 recording of the wgmma GEMM's whole space with its
# energy (bench/gpu/data/gemm-energy-h100.db: 122 configurations),
# replayed through the shipped spec's space with other behaviour
# dimensions: time and energy, both measured (4 bins each: 16 cells), and
# the spec's own three dimensions with energy in 4 bins.  map_elites, and
# random search's map (--map), at each budget over SEEDS seeds: the median
# cells filled, the least and most in brackets.  docs/SEARCH.md, "Energy
# and the map".
#
#   sh bench/map_measured.sh            (KTUNE=build/ktune SEEDS=20)
set -eu
KTUNE=${KTUNE:-build/ktune}
SEEDS=${SEEDS:-20}
BUDGETS=${BUDGETS:-12 24 48}
TMP=$(mktemp -d /tmp/map_measured.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$KTUNE" db export csv --db bench/gpu/data/gemm-energy-h100.db \
    --kernel gemm-wgmma-f16-cuda >"$TMP/rec.csv"
# spec NAME DIMS: the shipped spec with behaviour dimensions DIMS (Python:
# the list, "spec" for the spec's own), no kernel, as $TMP/NAME.json.
spec() {
    python3 - kernels/gemm/gemm-wgmma-f16-cuda.json "$TMP/$1.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
cs = s["ConfigurationSpace"]
spec = cs["BehaviourDimensions"]
cs["BehaviourDimensions"] = eval(sys.argv[3], {"spec": spec})
s["KernelSpecification"] = {"Language": "None",
                            "KernelName": s["KernelSpecification"]["KernelName"]}
json.dump(s, open(sys.argv[2], "w"))
PY
}
spec time-energy '[{"Name": "time", "Measured": "time"}, {"Name": "energy", "Measured": "energy"}]'
spec spec-energy 'spec + [{"Name": "energy", "Measured": "energy"}]'

# filled MAP STRATEGY BUDGET SEED: the cells the run's map fills, of how
# many the grid has.
filled() {
    "$KTUNE" tune "$TMP/$1.json" --replay "$TMP/rec.csv" --strategy "$2" \
        --budget "$3" --seed "$4" --map --json |
        python3 -c 'import json, sys; m = json.load(sys.stdin)["map"]
print(m["filled"], m["cells"])'
}

for map in time-energy spec-energy; do
    echo "$map: the whole space (brute_force) fills $(filled $map brute_force 122 1 |
        awk '{ print $1 " of " $2 }') cells"
    printf '| %s: cells filled |' "$map"
    for b in $BUDGETS; do printf ' %s evaluations |' "$b"; done
    printf '\n| --- |'
    for b in $BUDGETS; do printf ' --- |'; done
    printf '\n'
    for s in random map_elites; do
        printf '| %s |' "$s"
        for b in $BUDGETS; do
            seed=1
            while [ "$seed" -le "$SEEDS" ]; do
                filled $map "$s" "$b" "$seed" | cut -d' ' -f1
                seed=$((seed + 1))
            done | sort -n | awk '{ v[NR] = $1 } END {
                m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                printf " %g (%d-%d) |", m, v[1], v[NR] }'
        done
        printf '\n'
    done
done
