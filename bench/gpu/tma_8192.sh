#!/bin/sh
# tma_8192.sh - on the GPU machine, in one call (about 2 minutes on the H200, 2026-11-29): a
# 16-bit TMA GEMM (DT: bf16, the default, or f16) at 8192^3 against cuBLAS and Triton, where
# run.sh's one-call tables read it short of Triton (BF16 0.996x on 2026-11-28, FP16 0.96x on
# 2026-11-29). These rows run at the 700 W limit, so two rounds do not settle them.
#   1. brute force at 8192^3 over the neighbours of the usual choice (BM=128, BN=256, WGS=2,
#      WN=256; STAGES 3-5, GM, GRID, CLUSTER and EPI each both ways), ktune's timing;
#   2. ROUNDS (7) fair rounds (baselines.py) of that choice, step 1's best and the EXTRA
#      configurations (space-separated keys, e.g. run.sh's own choice) beside cuBLAS and
#      Triton's autotuned matmul; each one's rounds, median, best and ratio to Triton's best.
#
#   [DT=f16] [EXTRA="KEY ..."] sh bench/gpu/tma_8192.sh OUT [BUNDLE]
#   (BUNDLE: default build/bundle, from `make bundle`)
set -u
OUT=$1 B=${2:-build/bundle}
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-7}
DT=${DT:-bf16}
NAME=$(echo "$DT" | sed 's/^f/fp/') # baselines.py's name: fp16, bf16
D=/tmp/ktune-tma-$DT
rm -rf "$D"; mkdir -p "$D/kernels" "$OUT"
KT=$(cd "$B" && pwd)/ktune
cp -r kernels/gemm "$D/kernels/"
G=$D/kernels/gemm/gemm-tma-$DT-cuda.json P=M=8192,N=8192,K=8192
CHOSEN=BM=128,BN=256,WGS=2,WN=256,STAGES=4,GM=8,GRID=132,CLUSTER=2,EPI=1
python3 "$HERE/narrow_spec.py" "$G" \
    BM=128,BN=256,WGS=2,WN=256,STAGES=3/4/5,GM=1/8,GRID=0/132,CLUSTER=1/2,EPI=0/1 \
    >"$D/kernels/gemm/narrow-$DT.json"
"$KT" tune "$D/kernels/gemm/narrow-$DT.json" --problem $P --strategy brute_force \
    --db "$D/side.db" --cache "$D/cache" --jobs 16 --energy-window 0 --timeout 20 \
    </dev/null >"$D/side.txt" 2>&1
echo "brute force: rc=$? $(grep -E '^evaluated' "$D/side.txt")"
"$KT" db export csv --db "$D/side.db" >"$OUT/$DT-side.csv"
best=$(python3 - "$OUT/$DT-side.csv" <<'PY'
import csv, sys
ok = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
for r in sorted(ok, key=lambda r: float(r["time_ms"]))[:8]:
    print(f"# {2 * 8192 ** 3 / float(r['time_ms']) / 1e9:.1f} TFLOP/s {r['config']}",
          file=sys.stderr)
print(min(ok, key=lambda r: float(r["time_ms"]))["config"] if ok else "")
PY
)
: >"$OUT/entries.txt"
for k in $CHOSEN $best ${EXTRA:-}; do
    grep -q " $k\$" "$OUT/entries.txt" || echo "$NAME 8192 $G $P $k" >>"$OUT/entries.txt"
done
t0=$(date +%s)
python3 "$HERE/baselines.py" --rounds "$ROUNDS" --dtypes "$NAME" --entries "$OUT/entries.txt" \
    --ktune "$KT" --work "$D/pinned" 8192 2>&1 | grep -v Warning >"$OUT/rounds.txt"
echo "rounds: rc=$? $(($(date +%s) - t0)) s"
grep -v "^ktune\|^cublas\|^triton" "$OUT/rounds.txt"
python3 "$HERE/rounds_summary.py" "$OUT/rounds.txt" triton
python3 "$HERE/rounds_summary.py" "$OUT/rounds.txt" cublas | tail -n +2
