#!/bin/sh
# tma_side.sh - on the GPU machine, in one call: the TMA GEMM
# (kernels/gemm/gemm_tma.cu, specs gemm-tma-{f16,bf16}-cuda.json) checked
# and timed, beside the wgmma_ws kernel.
#   1. register / shared-memory use and the instruction mix of the cubins
#      in DIR/cubins (nvcc 13.0 on machine A): HGMMA and UTMALDG expected;
#   2. the odd shapes: M=777,N=1024,K=1000 verified (6 random
#      configurations each, FP16 and BF16); M=1000,N=1003,K=517 refused
#      with the reason (TMA's 16-byte row pitch);
#   3. correctness at 4096^3 (6 random configurations, FP16 and BF16);
#   4. brute force over the large-tile subspace (NARROW) at each of SIZES,
#      FP16 (and BF16 with BF16=1), with the wgmma-ws kernel's same-tile
#      configurations beside it (SIDE=1); one table of TFLOP/s.
#
#   bench/gpu/tma_side.sh OUT DIR      (DIR: bundle/, kernels/, cubins/)
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune G=$DIR/kernels/gemm W=/tmp/ktune-tma
SIZES=${SIZES:-4096}
CHECKS=${CHECKS:-1}
NARROW=${NARROW:-BM=128/256,BN=128/256,WGS=2,WN=128/256,STAGES=4,GM=8}
BUDGET=${BUDGET:-40} TIME=${TIME:-150}
mkdir -p "$OUT" "$W"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
sh "$HERE/sass_mix.sh" "$DIR"/cubins/*.cubin | tee "$OUT/sass.txt"

check() { # DT SHAPE BUDGET
    "$KT" tune "$G/gemm-tma-$1-cuda.json" --problem "$2" --strategy random --budget "$3" \
        --seed 5 --db "$W/check.db" --cache "$W/cache" --timeout 20 --jobs 16 \
        --energy-window 0 --json >"$W/check.json" 2>"$W/check.err"
    echo "check tma $1 $2: rc=$? $(tr -d '\n ' <"$W/check.json" | grep -o '"statuses":{[^}]*}')"
    tail -n 2 "$W/check.err"
}
if [ "$CHECKS" = 1 ]; then
    for dt in f16 bf16; do
        check $dt M=777,N=1024,K=1000 6
        check $dt M=1000,N=1003,K=517 1
        check $dt M=4096,N=4096,K=4096 6
    done
    "$KT" db list --db "$W/check.db" | grep -v ' ok ' | cut -c1-240 | head -20
fi

for dt in f16 ${BF16:+bf16}; do
    python3 "$HERE/narrow_spec.py" "$G/gemm-tma-$dt-cuda.json" "$NARROW" > "$G/narrow-tma-$dt.json"
    [ "${SIDE:-0}" = 1 ] && python3 "$HERE/narrow_spec.py" "$G/gemm-wgmma-ws-$dt-cuda.json" \
        "${SIDE_NARROW:-BM=128/256,BN=128/256,WGS=2,WN=128/256,STAGES=4,GM=8}" \
        > "$G/narrow-wgmma-ws-$dt.json"
    for n in $SIZES; do
        for k in tma ${SIDE:+wgmma-ws}; do
            [ -f "$G/narrow-$k-$dt.json" ] || continue
            "$KT" tune "$G/narrow-$k-$dt.json" --problem M=$n,N=$n,K=$n --strategy brute_force \
                --budget "$BUDGET" --time "$TIME" --db "$W/side.db" --cache "$W/cache" --jobs 16 \
                --energy-window 0 --timeout 20 > "$W/side.txt" 2>&1
            echo "side $k $dt $n: rc=$? $(grep -E '^(evaluated|best)' "$W/side.txt" | tr '\n' ' ' | cut -c1-200)"
        done
    done
done
"$KT" db export csv --db "$W/side.db" > "$OUT/side.csv"
"$KT" db list --db "$W/side.db" | grep -v ' ok ' | cut -c1-240 | head -10
python3 - "$OUT/side.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
best = {}
for r in rows:
    if r[6] != "ok":
        continue
    n = int(r[4].split(",")[0][2:])
    tf = 2 * n ** 3 / float(r[7]) / 1e9
    key = (r[2], n)
    if tf > best.get(key, (0, ""))[0]:
        best[key] = (tf, r[5])
    with open(sys.argv[1] + ".tflops.txt", "a") as f:
        print(f"{r[2]} {n} {tf:.1f} {r[5]}", file=f)
print("| spec | size | best TFLOP/s | configuration |")
print("| --- | --- | --- | --- |")
for (spec, n), (tf, cfg) in sorted(best.items()):
    print(f"| {spec} | {n}^3 | {tf:.1f} | `{cfg}` |")
PY
