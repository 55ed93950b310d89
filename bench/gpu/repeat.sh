#!/bin/sh
# repeat.sh - on the GPU machine, in one call: the baselines (cuBLAS and
# Triton, baselines.py) and ktune's chosen 16-bit configurations, each
# measured REPS times in turn at SIZES, to see how much one sample of each
# moves.  ktune's are measured by `ktune tune` of a one-configuration spec
# (pin_config.py), a fresh database each time.
#
#   bench/gpu/repeat.sh OUT DIR        (DIR as for run.sh)
# Environment: REPS (3), SIZES ("4096 8192"), KEY (the configuration,
# default BM=128,BN=256,WGS=2,WN=256,STAGES=4,GM=8).
set -u
OUT=$1 DIR=$2
HERE=$(dirname "$0")
KT=$DIR/bundle/ktune G=$DIR/kernels/gemm W=/tmp/ktune-repeat
REPS=${REPS:-3}
SIZES=${SIZES:-4096 8192}
KEY=${KEY:-BM=128,BN=256,WGS=2,WN=256,STAGES=4,GM=8}
mkdir -p "$OUT" "$W"
for dt in f16 bf16; do
    python3 "$HERE/pin_config.py" "$G/gemm-wgmma-$dt-cuda.json" "$KEY" > "$G/pin-$dt.json"
done
for r in $(seq "$REPS"); do
    nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader |
        sed "s/^/rep $r: /"
    python3 "$HERE/baselines.py" $SIZES 2>&1 | grep -v Warning | sed "s/^/rep $r: /"
    for dt in f16 bf16; do
        for n in $SIZES; do
            rm -f "$W/r.db"
            "$KT" tune "$G/pin-$dt.json" --problem M=$n,N=$n,K=$n --db "$W/r.db" \
                --cache "$W/cache" --energy-window 0 --json > "$W/r.json" 2>/dev/null
            python3 -c "import json,sys; b=json.load(open(sys.argv[1]))['best']; \
print(f'rep $r: ktune $dt $n {b[\"time_ms\"]:.4f} {b[\"gflops\"]/1e3:.1f} \
spread={b[\"spread\"]:.4f}')" "$W/r.json"
        done
    done
done 2>&1 | tee "$OUT/repeat.txt"
