#!/bin/sh
# run.sh - on the GPU machine, in one call (328 s on a warm machine at 23:53 UTC
# on 2026-11-24; a cold one adds its first compiles and Triton's autotune): the CUDA
# backend's tests, then the fair GEMM table (gemm_bench.sh).
#   1. test_cuda (every shipped CUDA kernel compiles with NVRTC for sm_90),
#      where DIR/tests/test_cuda was carried;
#   2. the planted faults of tests/kernels/faulty-cuda.json, each classified;
#   3. ktune tune kernels/gemm/gemm-cuda.json --problem M=4096,N=4096,K=4096
#      (capped), its measurements exported: every verified row must have
#      its energy (a row without one names the reason in its detail);
#   4. long calls (the default SGEMM configuration at K = 16384 and 32768,
#      about 50 and 100 ms a call) get their energy too;
#   5. gemm_bench.sh: odd-shape checks, FP32/FP16/BF16/FP8 tuned at 4096 and
#      8192, then rounds of ktune (C and the Python harness on the same
#      CUBIN), cuBLAS and Triton timed fairly, and the table (skipped with
#      CHECKS_ONLY=1, which runs instead the planted faults with default
#      limits, no --timeout, timed).  gemm_bench.sh's environment applies;
#      run.sh's own defaults are ROUNDS=2 and FP32 tuned 45 s a size, so that
#      a cold machine's call fits the device's 600 s limit.
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
python3 "$HERE/energy_rows.py" "$OUT/sgemm.csv" > "$OUT/sgemm-energy.txt"
cat "$OUT/sgemm-energy.txt"
set -- $(head -n 1 "$OUT/sgemm-energy.txt") 0 0 0
check "sgemm 4096^3: rc=$rc, $1 rows stored, $2 verified, $3 with time and energy" \
    $((rc + ($3 == 0) + ($3 != $2)))

# long calls: one configuration, one call spanning several counter steps
pinned=$DIR/kernels/gemm/gemm-cuda-long.json
python3 "$HERE/pin_config.py" "$DIR/kernels/gemm/gemm-cuda.json" \
    BM=128,BN=128,BK=16,WM=64,WN=64,TM=16,TN=8,STAGES=2,GM=8,MINB=1,AT=1,SK=0 > "$pinned"
rc=0
for k in 16384 32768; do
    $KT tune "$pinned" --problem M=8192,N=8192,K=$k --db "$OUT/long.db" --cache "$OUT/cache" \
        > "$OUT/long-$k.txt" 2>&1
    rc=$((rc + $?))
done
$KT db export csv --db "$OUT/long.db" > "$OUT/long.csv"
python3 "$HERE/energy_rows.py" "$OUT/long.csv" | tee "$OUT/long-energy.txt"
set -- $(head -n 1 "$OUT/long-energy.txt") 0 0 0
check "long calls (K=16384, 32768): rc=$rc, $1 rows, $2 verified, $3 with energy" \
    $((rc + ($2 != 2) + ($3 != $2)))
rm -f "$pinned"

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
    ROUNDS=${ROUNDS:-2} TIMES_f32=${TIMES_f32:-4096:45 8192:45} \
        sh "$HERE/gemm_bench.sh" "$OUT" "$DIR"
    line=$(grep -E '^(PASS|FAIL) harness' "$OUT/table.md" 2>/dev/null)
    check "${line#* }" $(case "$line" in PASS*) echo 0 ;; *) echo 1 ;; esac)
fi
echo "failed checks: $fails"
exit $fails
