#!/bin/sh
# sgemm_side.sh - on the GPU machine, in one call: FP32 SGEMM kernels side
# by side over the same configurations (brute force over NARROW) at SIZES,
# each checked first at odd shapes.  SPECS: spec names in DIR/kernels/gemm
# (default "gemm-cuda"; a copy of an older kernel can be carried beside it).
#
#   bench/gpu/sgemm_side.sh OUT DIR      (DIR as for run.sh)
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune G=$DIR/kernels/gemm W=/tmp/ktune-sgemm
SPECS=${SPECS:-gemm-cuda}
SIZES=${SIZES:-4096}
NARROW=${NARROW:-BM=128/256,BN=128,BK=32,WM=32/64,WN=32/64,TM=8/16,TN=4/8,STAGES=2/3,GM=8,MINB=1/2}
mkdir -p "$OUT" "$W"
for k in $SPECS; do
    for shape in M=1000,N=1003,K=517 M=777,N=1024,K=1000 M=2000,N=2048,K=1032; do
        "$KT" tune "$G/$k.json" --problem $shape --strategy random --budget 8 --seed 5 \
            --db "$W/check.db" --cache "$W/cache" --timeout 20 --jobs 16 --energy-window 0 \
            --json >"$W/check.json" 2>"$W/check.err"
        echo "check $k $shape: rc=$? $(tr -d '\n ' <"$W/check.json" | grep -o '"statuses":{[^}]*}')"
    done
    python3 "$HERE/narrow_spec.py" "$G/$k.json" "$NARROW" > "$G/narrow-$k.json"
    for n in $SIZES; do
        "$KT" tune "$G/narrow-$k.json" --problem M=$n,N=$n,K=$n --strategy brute_force \
            --db "$W/side.db" --cache "$W/cache" --jobs 16 --energy-window 0 --timeout 20 \
            > "$W/side.txt" 2>&1
        echo "side $k $n: rc=$? $(grep -E '^evaluated' "$W/side.txt" | cut -c1-60)"
    done
done
"$KT" db export csv --db "$W/side.db" > "$OUT/sgemm-side.csv"
python3 - "$OUT/sgemm-side.csv" <<'PY' | tee "$OUT/sgemm-side.md"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))][1:]
table = {}
for r in rows:
    n = int(r[4].split(",")[0][2:])
    tf = 2 * n ** 3 / float(r[7]) / 1e9 if r[6] == "ok" else r[6]
    table.setdefault((n, r[5]), {})[r[2][:-len("-narrow")]] = tf
kinds = sorted({k for v in table.values() for k in v})
print("| size | configuration | " + " | ".join(kinds) + " |")
print("| --- | --- | " + " | ".join("---" for _ in kinds) + " |")
for (n, cfg), v in sorted(table.items(), key=lambda kv: -max(x for x in kv[1].values() if isinstance(x, float))):
    cells = [f"{v[k]:.1f}" if isinstance(v.get(k), float) else str(v.get(k, "")) for k in kinds]
    print(f"| {n}^3 | `{cfg}` | " + " | ".join(cells) + " |")
PY
