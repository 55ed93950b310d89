#!/bin/sh
# gemm_bench.sh - on the GPU machine, in one call: ktune's GEMMs tuned at
# M = N = K in SIZES (FP32: kernels/gemm/gemm-cuda.json; FP16 and BF16:
# gemm-wgmma-{f16,bf16}-cuda.json), each by a random search of a budget of
# configurations (and at most TIME seconds), after a check of each at odd
# shapes; cuBLAS and Triton's autotuned matmul in the same call
# (baselines.py, first), and one table (gemm_table.py).
#
#   make bundle                                   (here)
#   bench/gpu/gemm_bench.sh OUT [DIR]             (there; DIR holds
#                                                  bundle/ and kernels/,
#                                                  default: build/ and .)
# Environment: SIZES (default "1024 2048 4096 8192"), BUDGETS (per size,
# "n:count ...", default "1024:40 2048:40 4096:80 8192:30"), TIME (60),
# SEED (1).
set -u
OUT=$1 DIR=${2:-.}
KT=$DIR/bundle/ktune
[ -x "$KT" ] || KT=build/bundle/ktune
SPECS=$DIR/kernels/gemm
SIZES=${SIZES:-1024 2048 4096 8192}
BUDGETS=${BUDGETS:-1024:40 2048:40 4096:80 8192:30}
SEED=${SEED:-1}
TIME=${TIME:-60}
HERE=$(dirname "$0")
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 "$HERE/baselines.py" $SIZES 2>&1 | grep -v Warning | tee "$OUT/baselines.txt"
budget() { for b in $BUDGETS; do [ "${b%%:*}" = "$1" ] && echo "${b#*:}"; done; }
for dt in f32 f16 bf16; do
    spec=$SPECS/gemm-wgmma-$dt-cuda.json
    [ $dt = f32 ] && spec=$SPECS/gemm-cuda.json
    for shape in M=1000,N=1003,K=517 M=777,N=1024,K=1000; do
        $KT tune "$spec" --problem $shape --strategy random --budget 8 --seed 5 \
            --db "$OUT/check.db" --cache "$OUT/cache" --timeout 20 --jobs 16 --json \
            >"$OUT/check.json" 2>"$OUT/check.err"
        echo "check $dt $shape: rc=$? $(tr -d '\n ' <"$OUT/check.json" | grep -o '"statuses":{[^}]*}')"
    done
    for n in $SIZES; do
        $KT tune "$spec" --problem M=$n,N=$n,K=$n --strategy random --budget "$(budget $n)" \
            --seed "$SEED" --time "$TIME" --db "$OUT/gemm.db" --cache "$OUT/cache" --timeout 30 --jobs 16 \
            --json >"$OUT/tune-$dt-$n.json" 2>"$OUT/tune-$dt-$n.err"
        echo "tuned $dt $n: rc=$?"
    done
done
python3 "$HERE/gemm_table.py" "$OUT" $SIZES | tee "$OUT/table.md"
