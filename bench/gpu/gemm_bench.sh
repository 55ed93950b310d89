#!/bin/sh
# gemm_bench.sh - on the GPU machine, in one call: ktune's GEMMs tuned at
# M = N = K in SIZES (FP32: kernels/gemm/gemm-cuda.json; FP16, BF16 and
# FP8 E4M3: gemm-tma-{f16,bf16,f8}-cuda.json), each by the default search
# strategy within a budget of configurations and a time cap, after a check
# of each at odd shapes; then ROUNDS rounds of ktune's chosen configurations (timed
# by ktune and, on the same CUBIN, by the Python harness), cuBLAS (FP32,
# FP16, BF16, FP8) and Triton's autotuned matmul (baselines.py, the fair
# timing of timing.py), and one table of the best of the rounds
# (gemm_table.py).
#
#   make bundle                                   (here)
#   bench/gpu/gemm_bench.sh OUT [DIR]             (there; DIR holds
#                                                  bundle/ and kernels/,
#                                                  default: build/ and .)
# Environment (each "n:value ..." per size): SIZES (default "4096 8192"),
# BUDGETS (default "4096:60 8192:40"; f32 "4096:200 8192:200"), TIMES
# (seconds, default "4096:30 8192:30"; f32 "4096:60 8192:60"), STRATEGY
# (default: ktune's; f32 model_guided), ENERGY (--energy-window, default
# 0: the table is about time; run.sh shows energy), SEED (1), DTYPES
# (default "f32 f16 bf16 f8"), WGMMA (the 16-bit and FP8 specs
# gemm-$WGMMA-{f16,bf16,f8}-cuda.json, default tma: TMA needs K and N
# multiples of 8, so its odd-shape check at K=517 is refused), SPEC_<dtype> (a spec
# for one dtype, e.g. SPEC_f16=kernels/gemm/narrow.json), SIZES_<dtype>,
# BUDGETS_<dtype>, TIMES_<dtype>, STRATEGY_<dtype> (that dtype's own), ROUNDS (3), BASELINES
# (1; 0: skip the rounds and the table).  FP8's odd shapes keep K a
# multiple of 16 (TMA's 16-byte pitch of K-major rows of one byte) and
# leave it off a multiple of the 128-element k-tile.
set -u
OUT=$1 DIR=${2:-.}
KT=$DIR/bundle/ktune
[ -x "$KT" ] || KT=build/bundle/ktune
KT=$(cd "$(dirname "$KT")" && pwd)/$(basename "$KT")
SPECS=$DIR/kernels/gemm
SIZES=${SIZES:-4096 8192}
BUDGETS=${BUDGETS:-4096:60 8192:40}
TIMES=${TIMES:-4096:30 8192:30}
# FP32: gemm-cuda.json keeps 156 configurations at M N >= 4096^2 (its
# conditions; the measurements are in bench/gpu/logs/sgemm-2026-11-24-3.txt).
# model_guided compiles 16 at a time, 150 in 40-53 s there, where the default
# local_search (one at a time, waiting on NVRTC) measured 55 in 61 s
# (run-2026-11-24-6.txt), so 60 s covers nearly all of them.
BUDGETS_f32=${BUDGETS_f32:-4096:200 8192:200}
TIMES_f32=${TIMES_f32:-4096:60 8192:60}
STRATEGY=${STRATEGY:-}
STRATEGY_f32=${STRATEGY_f32:-model_guided}
ENERGY=${ENERGY:-0}
SEED=${SEED:-1}
DTYPES=${DTYPES:-f32 f16 bf16 f8}
WGMMA=${WGMMA:-tma}
ROUNDS=${ROUNDS:-3}
BASELINES=${BASELINES:-1}
HERE=$(dirname "$0")
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
per_size() { for b in $2; do [ "${b%%:*}" = "$1" ] && echo "${b#*:}"; done; }
# VAR_<dtype> if set, else VAR
per_dtype() { v=$(eval echo "\${${1}_$2:-}"); [ -n "$v" ] && echo "$v" || eval echo "\$$1"; }
: >"$OUT/entries.txt"
for dt in $DTYPES; do
    spec=$(eval echo "\${SPEC_$dt:-}")
    [ -n "$spec" ] || spec=$SPECS/gemm-$WGMMA-$dt-cuda.json
    [ $dt = f32 ] && [ -z "$(eval echo "\${SPEC_$dt:-}")" ] && spec=$SPECS/gemm-cuda.json
    shapes="M=1000,N=1003,K=517 M=777,N=1024,K=1000"
    [ $dt = f8 ] && shapes="M=1000,N=1003,K=528 M=777,N=1024,K=1040"
    for shape in $shapes; do
        $KT tune "$spec" --problem $shape --strategy random --budget 6 --seed 5 \
            --db "$OUT/check.db" --cache "$OUT/cache" --timeout 20 --jobs 16 \
            --energy-window 0 --json >"$OUT/check.json" 2>"$OUT/check.err"
        echo "check $dt $shape: rc=$? $(tr -d '\n ' <"$OUT/check.json" | grep -o '"statuses":{[^}]*}')"
    done
    for n in $(per_dtype SIZES $dt); do
        j=$OUT/tune-$dt-$n.json
        st=$(per_dtype STRATEGY $dt)
        $KT tune "$spec" --problem M=$n,N=$n,K=$n ${st:+--strategy $st} \
            --budget "$(per_size $n "$(per_dtype BUDGETS $dt)")" --seed "$SEED" \
            --time "$(per_size $n "$(per_dtype TIMES $dt)")" --energy-window "$ENERGY" \
            --db "$OUT/gemm.db" --cache "$OUT/cache" --timeout 30 --jobs 16 \
            --json >"$j" 2>"$OUT/tune-$dt-$n.err"
        echo "tuned $dt $n: rc=$? $(tr -d '\n ' <"$j" | grep -o '"measured":[0-9]*')"
        key=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1])).get("best"); print(b["key"] if b else "")' "$j" 2>/dev/null)
        name=$(echo $dt | sed 's/^f/fp/')
        [ -n "$key" ] && echo "$name $n $spec M=$n,N=$n,K=$n $key" >>"$OUT/entries.txt"
    done
done
[ "$BASELINES" = 1 ] || exit 0
t0=$(date +%s)
python3 "$HERE/baselines.py" --rounds "$ROUNDS" --entries "$OUT/entries.txt" --ktune "$KT" \
    --work "$OUT/pinned" $SIZES 2>&1 | grep -v Warning | tee "$OUT/baselines.txt"
echo "rounds: $(($(date +%s) - t0)) s"
python3 "$HERE/gemm_table.py" "$OUT" $SIZES | tee "$OUT/table.md"
