#!/bin/sh
# gemm_bench.sh - on the GPU machine, in one call: ktune's GEMMs tuned at
# M = N = K in SIZES (FP32: kernels/gemm/gemm-cuda.json; FP16 and BF16:
# gemm-wgmma-{f16,bf16}-cuda.json), each by the default search strategy
# within a budget of configurations and a time cap, after a check of each
# at odd shapes; cuBLAS and Triton's autotuned matmul in the same call
# (baselines.py, first), and one table (gemm_table.py).
#
#   make bundle                                   (here)
#   bench/gpu/gemm_bench.sh OUT [DIR]             (there; DIR holds
#                                                  bundle/ and kernels/,
#                                                  default: build/ and .)
# Environment (each "n:value ..." per size): SIZES (default
# "1024 2048 4096 8192"), BUDGETS (default "1024:40 2048:40 4096:60
# 8192:40"), TIMES (seconds, default "1024:15 2048:20 4096:35 8192:35"),
# STRATEGY (default: ktune's), ENERGY (--energy-window, default 0: the
# table is about time; run.sh shows energy), SEED (1), DTYPES (default
# "f32 f16 bf16"), WGMMA (the 16-bit specs gemm-$WGMMA-{f16,bf16}-cuda.json,
# default wgmma), BASELINES (1; 0: skip cuBLAS and Triton).
set -u
OUT=$1 DIR=${2:-.}
KT=$DIR/bundle/ktune
[ -x "$KT" ] || KT=build/bundle/ktune
SPECS=$DIR/kernels/gemm
SIZES=${SIZES:-1024 2048 4096 8192}
BUDGETS=${BUDGETS:-1024:40 2048:40 4096:60 8192:40}
TIMES=${TIMES:-1024:15 2048:20 4096:35 8192:35}
STRATEGY=${STRATEGY:-}
ENERGY=${ENERGY:-0}
SEED=${SEED:-1}
DTYPES=${DTYPES:-f32 f16 bf16}
WGMMA=${WGMMA:-wgmma}
BASELINES=${BASELINES:-1}
HERE=$(dirname "$0")
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
t0=$(date +%s)
[ "$BASELINES" = 1 ] &&
    python3 "$HERE/baselines.py" $SIZES 2>&1 | grep -v Warning | tee "$OUT/baselines.txt"
echo "baselines: $(($(date +%s) - t0)) s"
per_size() { for b in $2; do [ "${b%%:*}" = "$1" ] && echo "${b#*:}"; done; }
strategy=${STRATEGY:+--strategy $STRATEGY}
for dt in $DTYPES; do
    spec=$SPECS/gemm-$WGMMA-$dt-cuda.json
    [ $dt = f32 ] && spec=$SPECS/gemm-cuda.json
    for shape in M=1000,N=1003,K=517 M=777,N=1024,K=1000; do
        $KT tune "$spec" --problem $shape --strategy random --budget 6 --seed 5 \
            --db "$OUT/check.db" --cache "$OUT/cache" --timeout 20 --jobs 16 \
            --energy-window 0 --json >"$OUT/check.json" 2>"$OUT/check.err"
        echo "check $dt $shape: rc=$? $(tr -d '\n ' <"$OUT/check.json" | grep -o '"statuses":{[^}]*}')"
    done
    for n in $SIZES; do
        $KT tune "$spec" --problem M=$n,N=$n,K=$n $strategy --budget "$(per_size $n "$BUDGETS")" \
            --seed "$SEED" --time "$(per_size $n "$TIMES")" --energy-window "$ENERGY" \
            --db "$OUT/gemm.db" --cache "$OUT/cache" --timeout 30 --jobs 16 \
            --json >"$OUT/tune-$dt-$n.json" 2>"$OUT/tune-$dt-$n.err"
        echo "tuned $dt $n: rc=$? $(tr -d '\n ' <"$OUT/tune-$dt-$n.json" | grep -o '"measured":[0-9]*')"
    done
done
python3 "$HERE/gemm_table.py" "$OUT" $SIZES | tee "$OUT/table.md"
