#!/bin/sh
# wgmma_side.sh - on the GPU machine, in one call: FP16/BF16 wgmma kernels
# side by side (KINDS: the spec prefixes gemm-KIND-{f16,bf16}-cuda.json,
# default "wgmma wgmma-ws"), and why they fall short.
#   1. register / shared-memory use and the instruction mix of the cubins
#      in DIR/cubins (compiled on machine A by nvcc 13.0, NVRTC's version);
#   2. each kind's default configuration verified (a gate: a kind that
#      fails it is dropped);
#   3. Nsight Compute (speed of light, occupancy, warp states) on one
#      launch of each kind's 256x128 configuration at 4096^3 (PROFILE=0:
#      none; PROFILE_KINDS: only these kinds; PROFILE_SGEMM=1: the FP32
#      SGEMM's best of 2026-11-24 too);
#   4. every kind over the same few large-tile configurations (brute
#      force) at 4096^3 and 8192^3, FP16 and BF16, one table;
#   5. each kind checked at odd shapes (random 6 configurations each).
#
#   bench/gpu/wgmma_side.sh OUT DIR      (DIR as for run.sh, plus cubins/)
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune G=$DIR/kernels/gemm W=/tmp/ktune-side
KINDS=${KINDS:-wgmma wgmma-ws}
PROFILE=${PROFILE:-1}
mkdir -p "$OUT" "$W"
sh "$HERE/sass_mix.sh" "$DIR"/cubins/*.cubin | tee "$OUT/sass.txt"

ok=""
for k in $KINDS; do
    pass=1
    for shape in M=1000,N=1003,K=517 M=4096,N=4096,K=4096; do
        "$KT" tune "$G/gemm-$k-f16-cuda.json" --problem $shape --budget 1 --db "$W/gate.db" \
            --cache "$W/cache" --timeout 10 --energy-window 0 > "$W/gate.txt" 2>&1
        grep -q '^evaluated.* 1 ok' "$W/gate.txt" || pass=0
        echo "gate $k $shape: $(grep -E '^(evaluated|best)' "$W/gate.txt" | tr '\n' ' ')"
    done
    if [ $pass = 1 ]; then ok="$ok $k"; else "$KT" db list --db "$W/gate.db" | grep "$k"; fi
done
echo "kinds that passed:$ok"

prof() { # NAME KEY [SPEC]
    spec=${3:-$G/gemm-$1-f16-cuda.json}
    kern=$(sed -n 's/.*"KernelName": "\([a-z_0-9]*\)".*/\1/p' "$spec" | head -n 1)
    python3 "$HERE/pin_config.py" "$spec" "$2" > "$G/pin-$1.json"
    timeout 150 ncu --clock-control none --target-processes all -k "regex:^$kern\$" -c 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        "$KT" tune "$G/pin-$1.json" --problem M=4096,N=4096,K=4096 --db "$W/prof.db" \
        --cache "$W/cache" --energy-window 0 --timeout 120 > "$OUT/ncu-$1.txt" 2>&1
    echo "ncu $1 ($kern): rc=$?"
    grep -E 'Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|Issue Slots Busy|each warp of this workload spends' \
        "$OUT/ncu-$1.txt" | sed 's/  */ /g'
}
if [ "$PROFILE" = 1 ]; then
    for k in ${PROFILE_KINDS:-$ok}; do prof $k BM=256,BN=128,WGS=2,WN=128,STAGES=4,GM=8; done
fi
[ "${PROFILE_SGEMM:-0}" = 1 ] && prof sgemm \
    BM=128,BN=128,BK=32,WM=32,WN=64,TM=16,TN=4,STAGES=2,GM=8,MINB=2 "$G/gemm-cuda.json"

narrow="BM=128/256,BN=128/256,WGS=2,WN=128/256,STAGES=4/5/6,GM=8"
for dt in f16 bf16; do
    for k in $ok; do
        python3 "$HERE/narrow_spec.py" "$G/gemm-$k-$dt-cuda.json" "$narrow" > "$G/narrow-$k-$dt.json"
        for n in 4096 8192; do
            "$KT" tune "$G/narrow-$k-$dt.json" --problem M=$n,N=$n,K=$n --strategy brute_force \
                --db "$W/side.db" --cache "$W/cache" --jobs 16 --energy-window 0 --timeout 10 \
                > "$W/side.txt" 2>&1
            echo "side $k $dt $n: rc=$? $(grep -E '^evaluated' "$W/side.txt" | cut -c1-60)"
        done
    done
done
"$KT" db export csv --db "$W/side.db" > "$OUT/side.csv"
python3 - "$OUT/side.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1]))][1:]
table = {}
for r in rows:
    n = int(r[4].split(",")[0][2:])
    kind, dt = r[2][len("gemm-"):-len("-cuda-narrow")].rsplit("-", 1)
    tf = 2 * n ** 3 / float(r[7]) / 1e9 if r[6] == "ok" else 0
    table.setdefault((dt, n, r[5]), {})[kind] = tf if r[6] == "ok" else r[6]
kinds = sorted({k for v in table.values() for k in v})
print("| type | size | configuration | " + " | ".join(kinds) + " |")
print("| --- | --- | --- | " + " | ".join("---" for _ in kinds) + " |")
for (dt, n, cfg), v in sorted(table.items()):
    cells = [f"{v[k]:.1f}" if isinstance(v.get(k), float) else str(v.get(k, "")) for k in kinds]
    print(f"| {dt.upper()} | {n}^3 | `{cfg}` | " + " | ".join(cells) + " |")
PY

for k in $ok; do
    for dt in f16 bf16; do
        for shape in M=1000,N=1003,K=517 M=777,N=1024,K=1000 M=1000,N=1004,K=520 \
                     M=2000,N=2048,K=1032; do
            "$KT" tune "$G/gemm-$k-$dt-cuda.json" --problem $shape --strategy random --budget 6 \
                --seed 5 --db "$W/check.db" --cache "$W/cache" --timeout 20 --jobs 16 \
                --energy-window 0 --json >"$W/check.json" 2>"$W/check.err"
            echo "check $k $dt $shape: rc=$? $(tr -d '\n ' <"$W/check.json" | grep -o '"statuses":{[^}]*}')"
        done
    done
done
