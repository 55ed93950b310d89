#!/bin/sh
# conv.sh - on the GPU machine, in one call: the convolution kernels
# (kernels/conv/) verified at odd shapes, the compile/measure overlap
# measured without and with it, both kernels tuned on ResNet-50 layers, and
# cuDNN (PyTorch) timed on the same layers (bench/gpu/conv_cudnn.py); a
# table last (bench/gpu/conv_report.py).
#
#   make bundle                                       (here)
#   bench/gpu/conv.sh OUT [IGEMM_BUDGET [DIRECT_BUDGET [OVERLAP_BUDGET]]]   (there)
#
# OUT receives conv.db (every measurement), conv-runs.tgz (each run's JSON
# and log) and report.md.  CHOSEN=1: steps 1-3 skipped; the configurations
# of bench/gpu/conv_chosen.txt are measured again instead (each pinned) and
# compared with cuDNN, in ROUNDS rounds (default 2), each into a new
# database so that every round measures again; a report per round.
set -u
OUT=$1 BI=${2:-40} BD=${3:-24} BO=${4:-48}
K=${KT:-build/bundle/ktune}
W=/tmp/ktune-conv
rm -rf "$W" && mkdir -p "$W/runs" "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader

# tune TAG KERNEL PROBLEM BUDGET SEED [options...]
tune() {
    tag=$1 kern=$2 prob=$3 budget=$4 seed=$5
    shift 5
    $K tune kernels/conv/conv-$kern-cuda.json --problem "$prob" --strategy random \
        --budget "$budget" --seed "$seed" --db "$W/conv.db" --cache "$W/cache" \
        --timeout 20 --json "$@" >"$W/runs/$tag.json" 2>"$W/runs/$tag.err"
    echo "$tag rc=$? $(grep -A8 '"statuses"' "$W/runs/$tag.json" | tr -d '\n ')"
}

if [ "${CHOSEN:-0}" = 1 ]; then
    LAYERS=$(awk '!seen[$1]++ { print $1 ":" $3 }' bench/gpu/conv_chosen.txt)
    for r in $(seq 1 "${ROUNDS:-2}"); do
        while read -r name kern prob key; do
            spec=kernels/conv/conv-$kern-cuda-pinned.json
            python3 bench/gpu/pin_config.py kernels/conv/conv-$kern-cuda.json "$key" >"$spec"
            $K tune "$spec" --problem "$prob" --db "$W/chosen-$r.db" --cache "$W/cache" \
                --energy-window 0 --timeout 20 --json >"$W/runs/$name-$kern.json" \
                2>"$W/runs/$name-$kern.err"
            echo "round $r $name $kern: rc=$? $(grep -o '"time_ms": [0-9.e-]*' "$W/runs/$name-$kern.json" | head -1)"
            rm -f "$spec"
        done <bench/gpu/conv_chosen.txt
        echo "$LAYERS" | python3 bench/gpu/conv_cudnn.py >"$W/runs/cudnn.txt" 2>&1
        sed "s/^/round $r /" "$W/runs/cudnn.txt"
        python3 bench/gpu/conv_report.py "$W/runs" "$LAYERS" | tee "$OUT/report-$r.md"
    done
    tar czf "$OUT/conv-runs.tgz" -C "$W" runs
    exit 0
fi

# 1. odd shapes: every sampled configuration must verify (or be invalid)
bad=0
for kern in igemm direct; do
    tune odd-$kern-3x3 $kern N=3,C=13,H=17,W=19,K=37,R=3,S=3,stride=2,pad=1 12 3
    tune odd-$kern-1x1 $kern N=2,C=24,H=10,W=10,K=40,R=1,S=1,stride=1,pad=0 12 4
    grep -q '"wrong_result": [1-9]' "$W"/runs/odd-$kern-*.json && bad=1
done
if [ $bad = 1 ]; then
    echo "wrong results at odd shapes: stopping"
    $K db list --db "$W/conv.db" | grep wrong_result | cut -c1-200 | head
    exit 1
fi

# 2. compile/measure overlap: the same random configurations, empty caches,
# with the default energy window and without energy readings (E0)
L2=N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1
for mode in batch stream batch-E0 stream-E0; do
    opt=
    case $mode in batch*) opt=--no-overlap ;; esac
    case $mode in *E0) opt="$opt --energy-window 0" ;; esac
    rm -rf "$W/cache-$mode"
    $K tune kernels/conv/conv-igemm-cuda.json --problem $L2 --strategy random \
        --budget "$BO" --seed 11 --db "$W/overlap-$mode.db" --cache "$W/cache-$mode" \
        --timeout 20 --jobs 15 --json $opt >"$W/runs/overlap-$mode.json" \
        2>"$W/runs/overlap-$mode.err"
    echo "overlap $mode rc=$? $(grep -E '"(measured|seconds|compile_wait_s)"' \
        "$W/runs/overlap-$mode.json" | tr -d '\n ')"
done

# 3. ResNet-50 layers (batch 32, FP32): both kernels tuned
LAYERS="res2-1x1:N=32,C=256,H=56,W=56,K=64,R=1,S=1,stride=1,pad=0
res2-3x3:$L2
res3-3x3:N=32,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1
res4-1x1:N=32,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0
res5-3x3:N=32,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1"
for l in $LAYERS; do
    name=${l%%:*} prob=${l#*:}
    t0=$(date +%s)
    tune $name-igemm igemm "$prob" "$BI" 1
    tune $name-direct direct "$prob" "$BD" 1
    echo "$name: $(($(date +%s) - t0)) s"
done

# 4. cuDNN on the same layers, then the table
echo "$LAYERS" | python3 bench/gpu/conv_cudnn.py >"$W/runs/cudnn.txt" 2>&1
cat "$W/runs/cudnn.txt"
python3 bench/gpu/conv_report.py "$W/runs" "$LAYERS" | tee "$OUT/report.md"
cp "$W/conv.db" "$OUT/"
tar czf "$OUT/conv-runs.tgz" -C "$W" runs
