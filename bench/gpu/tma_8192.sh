#!/bin/sh
# bf16_8192.sh - on the GPU machine, in one call (about 2 minutes on the H200, 2026-11-29): the
# BF16 TMA GEMM at 8192^3 against Triton, where run.sh's table of 2026-11-28 read 0.996x.
#   1. brute force at 8192^3 over the neighbours of run.sh's choice (BM=128, BN=256, WGS=2,
#      WN=256; STAGES 3-5, GM, GRID, CLUSTER and EPI each both ways), ktune's timing;
#   2. ROUNDS (7) fair rounds (baselines.py) of run.sh's choice and step 1's best beside cuBLAS
#      and Triton's autotuned matmul; each one's rounds, median, best and ratio to Triton's best.
#
#   sh bench/gpu/bf16_8192.sh OUT [BUNDLE]     (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-7}
D=/tmp/ktune-bf16
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
KT=$(cd "$B" && pwd)/ktune
cp -r kernels/gemm "$D/kernels/"
G=$D/kernels/gemm/gemm-tma-bf16-cuda.json P=M=8192,N=8192,K=8192
CHOSEN=BM=128,BN=256,WGS=2,WN=256,STAGES=4,GM=8,GRID=132,CLUSTER=2,EPI=1
python3 "$HERE/narrow_spec.py" "$G" \
    BM=128,BN=256,WGS=2,WN=256,STAGES=3/4/5,GM=1/8,GRID=0/132,CLUSTER=1/2,EPI=0/1 \
    >"$D/kernels/gemm/narrow-bf16.json"
"$KT" tune "$D/kernels/gemm/narrow-bf16.json" --problem $P --strategy brute_force \
    --db "$D/side.db" --cache "$D/cache" --jobs 16 --energy-window 0 --timeout 20 \
    </dev/null >"$D/side.txt" 2>&1
echo "brute force: rc=$? $(grep -E '^evaluated' "$D/side.txt")"
"$KT" db export csv --db "$D/side.db" >"$OUT/bf16-side.csv"
best=$(python3 - "$OUT/bf16-side.csv" <<'PY'
import csv, sys
ok = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
for r in sorted(ok, key=lambda r: float(r["time_ms"]))[:8]:
    print(f"# {2 * 8192 ** 3 / float(r['time_ms']) / 1e9:.1f} TFLOP/s {r['config']}",
          file=sys.stderr)
print(min(ok, key=lambda r: float(r["time_ms"]))["config"] if ok else "")
PY
)
: >"$OUT/entries.txt"
for k in $CHOSEN $best; do
    grep -q " $k\$" "$OUT/entries.txt" || echo "bf16 8192 $G $P $k" >>"$OUT/entries.txt"
done
t0=$(date +%s)
python3 "$HERE/baselines.py" --rounds "$ROUNDS" --dtypes bf16 --entries "$OUT/entries.txt" \
    --ktune "$KT" --work "$D/pinned" 8192 2>&1 | grep -v Warning >"$OUT/rounds.txt"
echo "rounds: rc=$? $(($(date +%s) - t0)) s"
grep -v "^ktune\|^cublas\|^triton" "$OUT/rounds.txt"
python3 "$HERE/rounds_summary.py" "$OUT/rounds.txt" triton
