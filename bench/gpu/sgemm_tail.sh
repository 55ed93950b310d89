#!/bin/sh
# sgemm_tail.sh - on the GPU machine, in one call (about 3 minutes on the H200, 2026-11-29):
# the SGEMM's tail split (gemm-cuda.json's TAIL=1 with SK=132, gemm.cu's tail_split) measured
# against a block a tile (SK=0) and stream K (SK=132, TAIL=0).
#   1. sgemm_side.sh: 8 random tail-split configurations verified at each of three odd shapes,
#      then the best tile region (BM=128, BN=256, BK=32, STAGES=3, 12 warp and thread tilings)
#      with SK=0, stream K and the tail split, each with the caps 0, 216 and 228, at 4096^3
#      and 8192^3 (brute force, ktune's timing); for each, the best and the median ratio to the
#      same configuration with SK=0;
#   2. ROUNDS (5) fair rounds beside cuBLAS (baselines.py) of, at each size, the SK=0 choice of
#      2026-11-28 (NREG=216), the tail split with caps 216 and 228, and the size's best of step 1.
# Log: bench/gpu/logs/sgemm-tail-2026-11-29.txt.
#
#   sh bench/gpu/sgemm_tail.sh OUT [BUNDLE]     (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(dirname "$0")
ROUNDS=${ROUNDS:-5}
D=/tmp/ktune-sgemm-tail
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
ln -sfn "$(cd "$B" && pwd)" "$D/bundle"
cp -r kernels/gemm "$D/kernels/"
R="BK=32,WM=32/64/128,WN=32/64/128,TM=8/16,TN=8/16,STAGES=3,GM=8,MINB=1,AT=1"
CHECK_SET="SK=132,TAIL=1,NREG=0/216/228" \
CHECK_SHAPES="M=3000,N=3001,K=517 M=1000,N=1003,K=9001 M=4096,N=4096,K=260" \
NARROW="BM=128,BN=256,$R,SK=0/132,TAIL=0/1,NREG=0/216/228" SIZES="4096 8192" BASELINES=0 \
    sh "$HERE/sgemm_side.sh" "$OUT" "$D"
echo "sgemm_side.sh rc=$?"
python3 "$HERE/sgemm_compare.py" "$OUT/sgemm-side.csv" SK,TAIL 0,0 # SK=132: TAIL 0 stream K, 1 the split
G=$D/kernels/gemm/gemm-cuda.json
T=BM=128,BN=256,BK=32,WM=32,WN=128,TM=8,TN=16,STAGES=3,GM=8,MINB=1,AT=1
: >"$OUT/entries.txt"
for n in 4096 8192; do
    best=$(python3 - "$OUT/sgemm-side.csv" "M=$n,N=$n,K=$n" <<'PY'
import csv, sys
ok = [r for r in csv.DictReader(open(sys.argv[1]))
      if r["problem"] == sys.argv[2] and r["status"] == "ok"]
print(min(ok, key=lambda r: float(r["time_ms"]))["config"] if ok else "")
PY
)
    for k in $T,SK=0,NREG=216,TAIL=0 $T,SK=132,NREG=216,TAIL=1 $T,SK=132,NREG=228,TAIL=1 $best; do
        grep -q " M=$n,N=$n,K=$n $k\$" "$OUT/entries.txt" ||
            echo "fp32 $n $G M=$n,N=$n,K=$n $k" >>"$OUT/entries.txt"
    done
done
t0=$(date +%s)
python3 "$HERE/baselines.py" --rounds "$ROUNDS" --dtypes fp32 --entries "$OUT/entries.txt" \
    --ktune "$D/bundle/ktune" --work "$D/pinned" 4096 8192 2>&1 | grep -v Warning \
    >"$OUT/rounds.txt"
echo "rounds: rc=$? $(($(date +%s) - t0)) s"
python3 "$HERE/rounds_summary.py" "$OUT/rounds.txt" cublas
