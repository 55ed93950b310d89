#!/bin/sh
# energy_gemm.sh - on the GPU machine: a results database with time AND
# energy per call for the H100 GEMMs at 4096^3, for `ktune analyze`'s
# energy model (bench/gpu/logs/energy-history.md, "The recordings"): FP16
# wgmma (its whole space, 122 configurations), FP16 TMA and FP32 SGEMM
# (random search within a time cap), each configuration with a time run's
# default --energy-window (0.3 s).
#
#   bench/gpu/energy_gemm.sh OUT [BUNDLE]     (BUNDLE: default build/bundle)
# Environment: T_WGMMA, T_TMA, T_SGEMM: seconds of each run (75, 65, 85).
set -u
OUT=$1 B=${2:-build/bundle}
K=$B/ktune
DB=$OUT/gemm-energy-h100.db
P=M=4096,N=4096,K=4096
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
    --format=csv,noheader | tee "$OUT/gpu.txt"
date -u +%Y-%m-%dT%H:%M:%SZ | tee -a "$OUT/gpu.txt"
run() { # NAME SPEC STRATEGY SECONDS
    t0=$(date +%s)
    $K tune "kernels/gemm/$2.json" --problem $P --strategy "$3" --time "$4" --seed 7 \
        --db "$DB" --cache /tmp/ktune-energy-cache --timeout 20 --jobs 16 --json \
        </dev/null >"$OUT/$1.json" 2>"$OUT/$1.err"
    echo "$1: rc=$? $(($(date +%s) - t0)) s $(tr -d '\n ' <"$OUT/$1.json" | grep -o '"measured":[0-9]*')"
}
run wgmma-f16 gemm-wgmma-f16-cuda brute_force "${T_WGMMA:-75}"
run tma-f16 gemm-tma-f16-cuda random "${T_TMA:-65}"
run sgemm gemm-cuda random "${T_SGEMM:-85}"
$K db export csv --db "$DB" >"$OUT/gemm-energy-h100.csv"
python3 - "$OUT/gemm-energy-h100.csv" <<'PY'
import csv, sys
n, e = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    n[r["kernel"]] = n.get(r["kernel"], 0) + 1
    e[r["kernel"]] = e.get(r["kernel"], 0) + (r["energy_j"] != "")
for k in n:
    print(f"{k}: {n[k]} rows, {e[k]} with energy")
PY
