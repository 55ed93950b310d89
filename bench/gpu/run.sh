#!/bin/sh
# run.sh - on the GPU machine, in one call (about 8 minutes): the CUDA
# backend's tests, then the GEMM benchmark (gemm_bench.sh).
#   1. test_cuda (every shipped CUDA kernel compiles with NVRTC for sm_90),
#      where DIR/tests/test_cuda was carried;
#   2. the planted faults of tests/kernels/faulty-cuda.json, each classified;
#   3. ktune tune kernels/gemm/gemm-cuda.json --problem M=4096,N=4096,K=4096
#      (capped), its measurements exported with time and energy;
#   4. gemm_bench.sh: odd-shape checks, FP32/FP16/BF16 tuned at four sizes
#      beside cuBLAS and Triton, and the table (skipped with CHECKS_ONLY=1,
#      which runs instead the planted faults with default limits, no
#      --timeout, timed).
# Each check prints "PASS ..." or "FAIL ..."; the exit status counts FAILs.
#
#   make bundle                 (here; copy build/bundle, kernels/, tests/kernels/,
#                                build/rel/tests/test_cuda and bench/gpu/ into DIR)
#   bench/gpu/run.sh OUT [DIR]  (there; DIR default: build/ for the bundle, . else)
set -u
OUT=${1:-${OUT:-/tmp/ktune-gpu}} DIR=${2:-.}
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune
[ -x "$KT" ] || KT=build/bundle/ktune
fails=0
check() { # check NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"

if [ -x "$DIR/tests/test_cuda" ]; then
    LD_LIBRARY_PATH=$DIR/bundle/lib KT_TEST_SRCDIR=$DIR KT_TEST_TIMEOUT=300 \
        "$DIR/tests/test_cuda" > "$OUT/test_cuda.txt" 2>&1
    check "test_cuda: $(tail -n 1 "$OUT/test_cuda.txt")" $?
fi

# planted faults: every configuration classified, the best a correct one
$KT tune "$DIR/tests/kernels/faulty-cuda.json" --strategy brute_force --db "$OUT/faulty.db" \
    --cache "$OUT/cache" --timeout 5 --energy-window 0 > "$OUT/faulty.txt" 2> "$OUT/faulty.err"
rc=$?
cat "$OUT/faulty.txt"
$KT db list --db "$OUT/faulty.db" | cut -c1-170 | tee "$OUT/faulty-list.txt"
want="ok runtime_error timeout wrong_result compile_error invalid"
got=$(awk '{print $4}' "$OUT/faulty-list.txt" | sort -u | tr '\n' ' ')
miss=0
for s in $want; do case " $got" in *" $s "*) ;; *) miss=1 ;; esac; done
check "faulty kernels: rc=$rc, statuses seen: $got" $((rc + miss))
grep -q '^best .*MODE=0' "$OUT/faulty.txt"
check "faulty kernels: the best is a correct configuration" $?

# the issue's command, capped: measured, verified, stored with time and energy
$KT tune "$DIR/kernels/gemm/gemm-cuda.json" --problem M=4096,N=4096,K=4096 --budget 12 --time 40 \
    --db "$OUT/sgemm.db" --cache "$OUT/cache" --jobs 16 > "$OUT/sgemm.txt" 2> "$OUT/sgemm.err"
rc=$?
cat "$OUT/sgemm.txt"
$KT db export csv --db "$OUT/sgemm.db" > "$OUT/sgemm.csv"
head -n 4 "$OUT/sgemm.csv" | cut -c1-400
python3 - "$OUT/sgemm.csv" > "$OUT/sgemm-energy.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
ok = [r for r in rows if r[6] == "ok"]
good = [r for r in ok if r[11] and float(r[11]) > 0 and float(r[7]) > 0]
print(len(rows), len(ok), len(good))
for r in good[:3]:
    print(f"  {r[5]}: {float(r[7]):.3f} ms, {float(r[11]):.3f} J, {float(r[12]):.0f} W, {r[13]} MHz")
PY
cat "$OUT/sgemm-energy.txt"
set -- $(head -n 1 "$OUT/sgemm-energy.txt") 0 0 0
check "sgemm 4096^3: rc=$rc, $1 rows stored, $2 verified, $3 with time and energy" \
    $((rc + ($3 == 0) + ($3 != $2)))

if [ "${CHECKS_ONLY:-0}" = 1 ]; then
    start=$(date +%s%N)
    $KT tune "$DIR/tests/kernels/faulty-cuda.json" --strategy brute_force \
        --db "$OUT/faulty-default.db" --cache "$OUT/cache" > "$OUT/faulty-default.txt" 2>&1
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
    cat "$OUT/faulty-default.txt"
    $KT db list --db "$OUT/faulty-default.db" | cut -c1-200
    check "faulty kernels with default limits: rc=$rc in $secs s" $rc
else
    sh "$HERE/gemm_bench.sh" "$OUT" "$DIR"
fi
echo "failed checks: $fails"
exit $fails
