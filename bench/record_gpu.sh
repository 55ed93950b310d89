#!/bin/sh
# record_gpu.sh - exhaustive GPU recordings of ktune's own CUDA kernels, the
# development set of docs/SEARCH.md beside the public ones: every valid
# configuration measured once (ktune tune --strategy brute_force, no energy
# window: 0.2-0.3 s a configuration on an H100), then exported as
# bzip2-compressed CSV (`ktune benchmark --replay F` reads it as it is).
#   gemm   kernels/gemm/gemm-cuda.json at M=N=K=2048 (2484 configurations;
#          the device's 9-minute limit per call stopped the recording of
#          2026-11-24 after 2362, in enumeration order)
#   conv   kernels/conv/conv-direct-cuda.json on ResNet-50's res3 3x3 layer
#          (1416 configurations, 7 minutes)
# LIMIT (seconds, default 540) stops a recording that would outrun the call.
#
#   make bundle                       (here)
#   bench/record_gpu.sh OUT [SET...]  (on the GPU machine; default: gemm conv)
set -u
OUT=${1:?usage: bench/record_gpu.sh OUT [gemm|conv]...}
shift
[ $# -gt 0 ] || set -- gemm conv
K=build/bundle/ktune
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader

record() { # record TAG SPEC PROBLEM
    start=$(date -u +%H:%M:%S)
    timeout "${LIMIT:-540}" $K tune "$2" --problem "$3" --strategy brute_force \
        --db "$OUT/$1.db" --cache "$OUT/cache" --timeout 20 --energy-window 0 \
        >"$OUT/$1.txt" 2>"$OUT/$1.err"
    echo "$1 rc=$? $start-$(date -u +%H:%M:%S) $(tail -n 3 "$OUT/$1.txt" | tr '\n' ' ')"
    $K db export csv --db "$OUT/$1.db" | bzip2 -9 >"$OUT/gpu-$1-h100.csv.bz2"
}

for set in "$@"; do
    case $set in
    gemm) record gemm-cuda-2048 kernels/gemm/gemm-cuda.json M=2048,N=2048,K=2048 ;;
    conv) record conv-direct-res3 kernels/conv/conv-direct-cuda.json \
              N=32,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1 ;;
    *) echo "record_gpu.sh: unknown set '$set'" >&2; exit 2 ;;
    esac
done
