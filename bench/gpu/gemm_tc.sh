#!/bin/sh
# gemm_tc.sh - on the GPU machine, in one call: the tensor-core GEMM
# (kernels/gemm/gemm_tc.cu, FP16 and BF16) checked at odd shapes, tuned at
# the given sizes with a random search of BUDGET configurations, and
# cuBLAS / Triton measured beside it (bench/gpu/baselines.py).
#
#   make bundle                                   (here)
#   bench/gpu/gemm_tc.sh OUT BUDGET SIZE...       (there)
set -u
OUT=$1 BUDGET=$2
shift 2
K=build/bundle/ktune
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for dt in f16 bf16; do
    spec=kernels/gemm/gemm-$dt-cuda.json
    for shape in M=1000,N=1003,K=517 M=777,N=1024,K=1000; do
        $K tune $spec --problem $shape --strategy random --budget 12 --seed 5 \
            --db "$OUT/check.db" --cache "$OUT/cache" --timeout 20 --jobs 16 --json \
            >"$OUT/check.json" 2>"$OUT/check.err"
        echo "$dt $shape: rc=$? $(grep -A8 '"statuses"' "$OUT/check.json" | tr -d '\n ')"
    done
    for n in "$@"; do
        t0=$(date +%s)
        $K tune $spec --problem M=$n,N=$n,K=$n --strategy random --budget "$BUDGET" \
            --seed 1 --db "$OUT/tc.db" --cache "$OUT/cache" --timeout 20 --jobs 16 --json \
            >"$OUT/tune-$dt-$n.json" 2>"$OUT/tune-$dt-$n.err"
        rc=$? t1=$(date +%s)
        best=$(tr -d '\n ' <"$OUT/tune-$dt-$n.json" | sed -n 's/.*"best":{\([^}]*\)}.*/\1/p')
        echo "ktune $dt $n rc=$rc seconds=$((t1 - t0)) best: $best"
    done
done
python3 bench/gpu/baselines.py "$@" 2>&1 | grep -v Warning
