#!/bin/sh
# energy_window.sh - on the GPU machine, in one call: does a longer energy
# window make one reading less noisy?  The first BUDGET configurations of one
# random order (SEED) of SPEC's space at 4096^3 (default: the SGEMM,
# kernels/gemm/gemm-cuda.json, 90 configurations, seed 3), read twice with
# each window of WINDOWS (default "0.3 1.0"), the runs alternating (pass a
# with each window, then pass b), so that a drift of the machine falls on
# every window alike; then each window's retest (energy_retest.py: rms of a
# configuration's two readings, spread, R² ceiling of one reading).
# Compiles are cached after the first run (energy_repeat.sh's --cache).
#
#   sh bench/gpu/energy_window.sh OUT [BUNDLE]       (BUNDLE: default build/bundle)
#   e.g. BUDGET=90 TIME=170 (a cap in seconds on each run)
set -u
OUT=$1 B=${2:-build/bundle}
SEED=${SEED:-3} WINDOWS=${WINDOWS:-0.3 1.0}
export SPEC=${SPEC:-kernels/gemm/gemm-cuda.json} BUDGET=${BUDGET:-90} SEEDS=$SEED
for pass in a b; do
    for w in $WINDOWS; do
        echo "## pass $pass, window $w s: $(date -u +%H:%M:%S) UTC"
        WINDOW=$w sh bench/gpu/energy_repeat.sh "$OUT/$pass-$w" "$B"
    done
done
for w in $WINDOWS; do
    echo "## window $w s: pass a against pass b"
    python3 bench/gpu/energy_retest.py "$B/ktune" "$OUT/a-$w/energy-$SEED.db" \
        "$OUT/b-$w/energy-$SEED.db"
done
