#!/bin/sh
# energy_repeat.sh - on the GPU machine, in one call: a GEMM space at
# 4096^3 measured once per seed of SEEDS (default "1 2"), each time in
# another random order, with the energy window WINDOW (seconds a
# configuration, default 1.0), into OUT/energy-SEED.db: labels for `ktune
# analyze`'s energy model and, with exactly two seeds, their test-retest noise
# (the same configuration's two readings: `ktune db retest`); with two or more seeds, the
# readings' means in OUT/energy-mean.db (`ktune db merge --mean`), the
# labels docs/ANALYSIS.md models.  SPEC and BUDGET default to the
# whole FP16 wgmma space (kernels/gemm/gemm-wgmma-f16-cuda.json, 122).
#
# A seed of the wgmma space takes about 170 s on the H200 (15 s warm-up, then 0.3 s or more of
# energy window a configuration: 2026-11-29), so three seeds fit one 600 s call and four do not.
#
#   sh bench/gpu/energy_repeat.sh OUT [BUNDLE]      (BUNDLE: default build/bundle)
#   e.g. SPEC=kernels/gemm/gemm-tma-f16-cuda.json BUDGET=688 SEEDS=1 WINDOW=0.3 TIME=480
#   (TIME: a cap in seconds on each run, ktune tune's --time; WARMUP: the
#   seconds of --energy-warmup, default ktune's 15: a call that goes on
#   right after another on a warm machine needs less)
# Each run compiles a batch whole before measuring it (--no-overlap; OVERLAP=1: measure
# while compiling), so that no compile keeps the host's cores busy while energy is read:
# a busy host can starve the GPU, and spans where it idled give no power (docs/ANALYSIS.md,
# "How the energy is read").  A batch is four configurations per compile job (64 on the
# H200 machine's 16 cores); the SGEMM's take 15-18 s a batch, about 0.26 s a configuration.
# FROM=DB: a seed's database that does not exist yet starts as a copy of DB, so
# that the run goes on from it (its configurations are answered, not measured
# again: with the same seed, a longer run of the same random order).  With OUT
# kept between calls, a space too large for one call is measured over several.
set -u
OUT=$1 B=${2:-build/bundle}
export KTUNE_WORKER=$B/ktune-worker LD_LIBRARY_PATH=$B/lib
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
    --format=csv,noheader
SEEDS=${SEEDS:-1 2}
for seed in $SEEDS; do
    [ -z "${FROM:-}" ] || [ -e "$OUT/energy-$seed.db" ] || cp "$FROM" "$OUT/energy-$seed.db"
    t0=$(date +%s)
    "$B/ktune" tune "${SPEC:-kernels/gemm/gemm-wgmma-f16-cuda.json}" \
        --problem M=4096,N=4096,K=4096 --strategy random --budget "${BUDGET:-122}" \
        ${TIME:+--time "$TIME"} ${WARMUP:+--energy-warmup "$WARMUP"} \
        --seed $seed --energy-window "${WINDOW:-1.0}" \
        $([ "${OVERLAP:-0}" = 1 ] || echo --no-overlap) \
        --db "$OUT/energy-$seed.db" --cache /tmp/ktune-energy-cache --timeout 20 --json \
        </dev/null >"$OUT/energy-$seed.json" 2>"$OUT/energy-$seed.err"
    rc=$?
    "$B/ktune" db export csv --db "$OUT/energy-$seed.db" >"$OUT/energy-$seed.csv"
    echo "seed $seed: rc=$rc $(($(date +%s) - t0)) s, $(date -u +%H:%M:%S) UTC," \
        "$(nvidia-smi --query-gpu=temperature.gpu --format=csv,noheader) C," \
        "$(($(wc -l <"$OUT/energy-$seed.csv") - 1)) rows"
done
set -- $SEEDS
[ $# -ge 2 ] || exit 0
rm -f "$OUT/energy-mean.db" # each configuration's readings as their mean: the labels to model
"$B/ktune" db merge --mean "$OUT/energy-mean.db" $(for s in $SEEDS; do echo "$OUT/energy-$s.db"; done)
[ $# = 2 ] || exit 0
"$B/ktune" db retest "$OUT/energy-$1.db" "$OUT/energy-$2.db" # noise, offset, R2 ceiling
