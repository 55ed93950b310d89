#!/bin/sh
# sgemm_side.sh - on the GPU machine, in one call: FP32 SGEMM kernels side
# by side over the same configurations (brute force over each set of
# NARROW) at SIZES, each checked first at odd shapes; then, with
# BASELINES=1, the best configuration of the last spec at each of
# BASE_SIZES (the first size's where a size was not brute-forced), timed in
# ROUNDS fair rounds beside cuBLAS (baselines.py, FP32 only), and the
# table of gemm_table.py.
#
#   bench/gpu/sgemm_side.sh OUT DIR      (DIR as for run.sh)
#
# SPECS: spec names in DIR/kernels/gemm (default "gemm-cuda"; a copy of an
# older kernel can be carried beside it).  NARROW: sets of NAME=v1/v2,...
# separated by ';', each brute-forced.  CHECK_SET (a set as in NARROW):
# the odd-shape checks draw their 8 configurations from the spec narrowed
# to it instead of from the whole spec.  PROFILE=1 (with BASELINES=1):
# Nsight Compute on one launch of the chosen configuration at the first
# size (OUT/ncu-sgemm.txt).
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune G=$DIR/kernels/gemm W=/tmp/ktune-sgemm
KT=$(cd "$(dirname "$KT")" && pwd)/$(basename "$KT")
SPECS=${SPECS:-gemm-cuda}
SIZES=${SIZES:-4096}
NARROW=${NARROW:-BM=128/256,BN=128,BK=32,WM=32/64,WN=32/64,TM=8/16,TN=4/8,STAGES=2/3,GM=8,MINB=1/2}
CHECK_SET=${CHECK_SET:-}
CHECK_SHAPES=${CHECK_SHAPES:-M=1000,N=1003,K=517 M=777,N=1024,K=1000 M=2000,N=2048,K=1032}
BASELINES=${BASELINES:-0}
BASE_SIZES=${BASE_SIZES:-4096 8192}
ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT" "$W"
rm -f "$W/side.db" "$W/check.db" # measure anew on a machine kept warm (the CUBIN cache stays)
check() { # spec: 8 random configurations at each of CHECK_SHAPES
    for shape in $CHECK_SHAPES; do
        "$KT" tune "$1" --problem $shape --strategy random --budget 8 --seed 5 \
            --db "$W/check.db" --cache "$W/cache" --timeout 20 --jobs 16 --energy-window 0 \
            --json </dev/null >"$W/check.json" 2>"$W/check.err"
        echo "check $(basename "$1" .json) $shape: rc=$? $(tr -d '\n ' <"$W/check.json" | grep -o '"statuses":{[^}]*}')"
    done
}
for k in $SPECS; do
    if [ -n "$CHECK_SET" ]; then
        python3 "$HERE/narrow_spec.py" "$G/$k.json" "$CHECK_SET" > "$G/narrow-$k-check.json"
        check "$G/narrow-$k-check.json"
    else
        check "$G/$k.json"
    fi
    i=0
    echo "$NARROW" | tr ';' '\n' | while read -r set; do
        i=$((i + 1))
        python3 "$HERE/narrow_spec.py" "$G/$k.json" "$set" > "$G/narrow-$k-$i.json"
        for n in $SIZES; do
            "$KT" tune "$G/narrow-$k-$i.json" --problem M=$n,N=$n,K=$n --strategy brute_force \
                --db "$W/side.db" --cache "$W/cache" --jobs 16 --energy-window 0 --timeout 20 \
                < /dev/null > "$W/side.txt" 2>&1
            echo "side $k set $i $n: rc=$? $(grep -E '^evaluated' "$W/side.txt" | cut -c1-60)"
        done
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
best = lambda v: max([x for x in v.values() if isinstance(x, float)] or [0])
print("| size | configuration | " + " | ".join(kinds) + " |")
print("| --- | --- | " + " | ".join("---" for _ in kinds) + " |")
for (n, cfg), v in sorted(table.items(), key=lambda kv: -best(kv[1])):
    cells = [f"{v[k]:.1f}" if isinstance(v.get(k), float) else str(v.get(k, "")) for k in kinds]
    print(f"| {n}^3 | `{cfg}` | " + " | ".join(cells) + " |")
PY
[ "$BASELINES" = 1 ] || exit 0
last=$(echo $SPECS | awk '{ print $NF }') n=$(echo $SIZES | awk '{ print $1 }')
best_key() { # the fastest verified configuration of the last spec at N^3, or nothing
    python3 - "$OUT/sgemm-side.csv" "$last-narrow" "M=$1,N=$1,K=$1" <<'PY'
import csv, sys
ok = [r for r in csv.reader(open(sys.argv[1])) if r[2] == sys.argv[2] and r[4] == sys.argv[3]
      and r[6] == "ok"]
print(min(ok, key=lambda r: float(r[7]))[5] if ok else "")
PY
}
key=$(best_key $n)
[ -n "$key" ] || { echo "no verified configuration of $last at $n^3"; exit 1; }
: >"$OUT/entries.txt"
for b in $BASE_SIZES; do # each size's own best where it was measured, else the first size's
    k=$(best_key $b)
    echo "fp32 $b $G/$last.json M=$b,N=$b,K=$b ${k:-$key}" >>"$OUT/entries.txt"
done
t0=$(date +%s)
python3 "$HERE/baselines.py" --rounds "$ROUNDS" --dtypes fp32 --entries "$OUT/entries.txt" \
    --ktune "$KT" --work "$W/pinned" $BASE_SIZES 2>&1 | grep -v Warning | tee "$OUT/baselines.txt"
echo "rounds: $(($(date +%s) - t0)) s"
python3 "$HERE/gemm_table.py" "$OUT" $BASE_SIZES | tee "$OUT/table.md"
[ "${PROFILE:-0}" = 1 ] || exit 0
python3 "$HERE/pin_config.py" "$G/$last.json" "$key" > "$G/pin-$last.json"
timeout 100 ncu --clock-control none --target-processes all -k "regex:^gemm\$" -c 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats \
    "$KT" tune "$G/pin-$last.json" --problem M=$n,N=$n,K=$n --db "$W/prof.db" --cache "$W/cache" \
    --energy-window 0 --timeout 60 > "$OUT/ncu-sgemm.txt" 2>&1
echo "ncu $key: rc=$?"
metrics=smsp__inst_executed.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum
metrics=$metrics,smsp__sass_inst_executed_op_shared_ld.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for st in barrier mio_throttle short_scoreboard long_scoreboard not_selected selected \
    math_pipe_throttle dispatch_stall wait no_instruction lg_throttle; do
    metrics=$metrics,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
done
timeout 60 ncu --clock-control none --target-processes all -k "regex:^gemm\$" -c 1 \
    --metrics "$metrics" \
    "$KT" tune "$G/pin-$last.json" --problem M=$n,N=$n,K=$n --db "$W/prof2.db" --cache "$W/cache" \
    --energy-window 0 --timeout 60 > "$W/ncu-stalls.txt" 2>&1
echo "ncu stalls: rc=$?"
grep -E 'smsp__|l1tex__|sm__|ERR' "$W/ncu-stalls.txt" | sed 's/  */ /g' | tee -a "$OUT/ncu-sgemm.txt"
grep -E 'Duration|Compute \(SM\) Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|each warp of this workload spends|Shared' \
    "$OUT/ncu-sgemm.txt" | sed 's/  */ /g'
