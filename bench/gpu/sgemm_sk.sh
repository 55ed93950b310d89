#!/bin/sh
# sgemm_sk.sh - on the GPU machine, in one call (166 s on the H200, 2026-11-28): stream K in the
# SGEMM (gemm-cuda.json's SK) measured against SK=0.
#   1. sgemm_side.sh: 8 random SK=132 configurations verified at each of three shapes where
#      tiles are shared (odd N and K; fewer tiles than 132; 116 tiles left after 3 waves), then
#      the best tile region with SK=0 and SK=132 at 4096^3 and 8192^3 (brute force, 144 a size,
#      ktune's timing), and each size's best timed in three fair rounds beside cuBLAS;
#   2. the 1024 x 1024 x 16384 GEMM (64 tiles of 128 x 128 for 132 multiprocessors): a region
#      with SK=0 and 132, brute force, and cuBLAS at that shape (cublas_shape.py).
# The log of the calls that chose this design: bench/gpu/logs/sgemm-2026-11-28.txt.
# Every set pins NREG=0 (no register cap) and TAIL=0 (stream K): sgemm_nreg.sh measures the
# cap, sgemm_tail.sh the tail split.
#
#   sh bench/gpu/sgemm_sk.sh OUT [BUNDLE]     (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(dirname "$0")
D=/tmp/ktune-sgemm-sk
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
ln -sfn "$(cd "$B" && pwd)" "$D/bundle"
cp -r kernels/gemm "$D/kernels/"
export KTUNE_WORKER=$D/bundle/ktune-worker LD_LIBRARY_PATH=$D/bundle/lib
R="BK=16/32,WM=32/64/128,WN=32/64/128,TM=8/16,TN=8/16,STAGES=2/3/4,GM=8,MINB=1,AT=1,SK=0/132,NREG=0,TAIL=0"
CHECK_SET="SK=132" CHECK_SHAPES="M=3000,N=3001,K=517 M=1000,N=1003,K=9001 M=4096,N=4096,K=260" \
NARROW="BM=128,BN=256,$R;BM=256,BN=128,$R" SIZES="4096 8192" BASELINES=1 ROUNDS=3 \
    sh "$HERE/sgemm_side.sh" "$OUT" "$D"
echo "sgemm_side.sh rc=$?"
S="BM=64/128,BN=64/128/256,BK=16/32,WM=32/64/128,WN=32/64/128,TM=8/16,TN=8/16,STAGES=3"
python3 "$HERE/narrow_spec.py" "$D/kernels/gemm/gemm-cuda.json" "$S,GM=8,MINB=1,AT=1,SK=0/132,NREG=0,TAIL=0" \
    > "$D/kernels/gemm/skinny.json"
p=M=1024,N=1024,K=16384
"$D/bundle/ktune" tune "$D/kernels/gemm/skinny.json" --problem $p --strategy brute_force \
    --db "$D/skinny.db" --cache "$D/cache" --jobs 16 --energy-window 0 --timeout 20 \
    </dev/null >"$D/skinny.txt" 2>&1
echo "skinny $p: rc=$? $(grep -E '^evaluated' "$D/skinny.txt" | cut -c1-60)"
"$D/bundle/ktune" db export csv --db "$D/skinny.db" >"$OUT/skinny.csv"
python3 - "$OUT/skinny.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
for sk in ("SK=0", "SK=132"):
    ok = sorted((r for r in rows if sk in r["config"].split(",")),
                key=lambda r: float(r["time_ms"]))
    if ok:
        ms = float(ok[0]["time_ms"])
        print(f"best {sk}: {ms:.4f} ms, {2 * 1024 * 1024 * 16384 / ms / 1e9:.1f} TFLOP/s,"
              f" {ok[0]['config']} ({len(ok)} verified)")
PY
python3 "$HERE/cublas_shape.py" 1024 1024 16384 2>&1 | grep -v Warning
