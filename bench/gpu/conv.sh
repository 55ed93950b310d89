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
# F16=1: the FP16 tensor-core kernels alone (conv-igemm-tc-f16-cuda.json,
# mma.sync, conv-igemm-wgmma-f16-cuda.json and conv-igemm-tma-f16-cuda.json):
# odd shapes verified for each, the layers of TUNE16 (default all;
# NAME:BUDGET sets a layer's budget) tuned (random IGEMM_BUDGET, seed 1, no
# energy window) with the kernels of KERNELS16 (default all three), then
# the chosen configurations, with those of the file CHOSEN16 if set
# (chosen by an earlier call) for the others, and cuDNN FP16
# (channels_last) measured in ROUNDS rounds as above; the chosen list is
# OUT/conv_chosen_f16.txt.
set -u
OUT=$1 BI=${2:-40} BD=${3:-24} BO=${4:-48}
K=${KT:-build/bundle/ktune}
W=/tmp/ktune-conv
rm -rf "$W" && mkdir -p "$W/runs" "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader

# tune TAG KERNEL PROBLEM BUDGET SEED [options...]: TO caps one
# configuration's evaluation (seconds)
TO=20
tune() {
    tag=$1 kern=$2 prob=$3 budget=$4 seed=$5
    shift 5
    $K tune kernels/conv/conv-$kern-cuda.json --problem "$prob" --strategy random \
        --budget "$budget" --seed "$seed" --db "$W/conv.db" --cache "$W/cache" \
        --timeout "$TO" --json "$@" >"$W/runs/$tag.json" 2>"$W/runs/$tag.err"
    echo "$tag rc=$? $(grep -A8 '"statuses"' "$W/runs/$tag.json" | tr -d '\n ')"
}

# rounds CHOSEN_FILE CUDNN_MODES: the configurations of CHOSEN_FILE (lines
# "layer kernel problem key") measured again, each pinned, and cuDNN in
# CUDNN_MODES, ROUNDS times, each round into a new database; a report each.
rounds() {
    layers=$(awk '!seen[$1]++ { print $1 ":" $3 }' "$1")
    for r in $(seq 1 "${ROUNDS:-2}"); do
        while read -r name kern prob key; do
            spec=kernels/conv/conv-$kern-cuda-pinned.json
            python3 bench/gpu/pin_config.py kernels/conv/conv-$kern-cuda.json "$key" >"$spec"
            $K tune "$spec" --problem "$prob" --db "$W/chosen-$r.db" --cache "$W/cache" \
                --energy-window 0 --timeout 20 --json >"$W/runs/$name-$kern.json" \
                2>"$W/runs/$name-$kern.err"
            echo "round $r $name $kern: rc=$? $(grep -o '"time_ms": [0-9.e-]*' "$W/runs/$name-$kern.json" | head -1)"
            rm -f "$spec"
        done <"$1"
        echo "$layers" | python3 bench/gpu/conv_cudnn.py $2 >"$W/runs/cudnn.txt" 2>&1
        sed "s/^/round $r /" "$W/runs/cudnn.txt"
        python3 bench/gpu/conv_report.py "$W/runs" "$layers" | tee "$OUT/report-$r.md"
    done
    tar czf "$OUT/conv-runs.tgz" -C "$W" runs
}

# odd KERNEL TAG:PROBLEM:SEED...: 12 random configurations of KERNEL at each
# odd shape; every one must verify (or be invalid), else a failed status.
# The first shape with a failure ends it (a kernel that hangs would spend
# the call: ODD_TIMEOUT, default 20 s, caps each configuration).
odd() {
    kern=$1
    shift
    for o in "$@"; do
        shape=${o%%:*} rest=${o#*:}
        TO=${ODD_TIMEOUT:-20}
        tune odd-$kern-$shape "$kern" "${rest%:*}" 12 "${rest##*:}" --energy-window 0
        TO=20
        if grep -q '"\(wrong_result\|crash\|timeout\|runtime_error\)": [1-9]' \
            "$W/runs/odd-$kern-$shape.json"; then
            echo "$kern: failures at odd shapes"
            $K db list --db "$W/conv.db" | grep -v ' ok ' | cut -c1-200 | head
            return 1
        fi
    done
}

ODD3=3x3:N=3,C=13,H=17,W=19,K=37,R=3,S=3,stride=2,pad=1:3
ODD1=1x1:N=2,C=24,H=10,W=10,K=40,R=1,S=1,stride=1,pad=0:4
SPLIT=split:N=2,C=40,H=9,W=9,K=40,R=3,S=3,stride=1,pad=1:5
# the TMA kernel takes stride 1 and C a multiple of 8 only: odd spatial
# sizes, K not a multiple of BN, a 3x3 without padding, clusters instead
ODDT=odd:N=3,C=16,H=11,W=13,K=37,R=3,S=3,stride=1,pad=1:6
PAD0=pad0:N=2,C=32,H=12,W=10,K=24,R=3,S=3,stride=1,pad=0:7
# two 64-channel tiles of K, the second short: clusters of 2 (CLUSTER=2)
CLU=cluster:N=2,C=24,H=9,W=11,K=120,R=3,S=3,stride=1,pad=1:8
L2=N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1
LAYERS="res2-1x1:N=32,C=256,H=56,W=56,K=64,R=1,S=1,stride=1,pad=0
res2-3x3:$L2
res3-3x3:N=32,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1
res4-1x1:N=32,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0
res5-3x3:N=32,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1"

if [ "${CHOSEN:-0}" = 1 ]; then
    rounds bench/gpu/conv_chosen.txt "fp32 tf32"
    exit 0
fi

# budget LAYER KERNEL: the tuning budget of LAYER with KERNEL in this call
# (F16=1), or failure where it is not tuned: KERNELS16 (default all three)
# names the kernels, TUNE16 the layers, each NAME or NAME:BUDGET (default
# all, with IGEMM_BUDGET)
budget() {
    case " ${KERNELS16:-igemm-tc-f16 igemm-wgmma-f16 igemm-tma-f16} " in
    *" $2 "*) ;;
    *) return 1 ;;
    esac
    for e in ${TUNE16:-all}; do
        case $e in
        all | "$1") echo "$BI" && return 0 ;;
        "$1":*) echo "${e#*:}" && return 0 ;;
        esac
    done
    return 1
}

if [ "${F16:-0}" = 1 ]; then
    # C a multiple of 8 but not of the channel slice, K not of BN, and a
    # grid small enough for the split reduction (SPLIT > 1); a kernel wrong
    # there is left out of the rest
    good=
    for kern in igemm-tc-f16 igemm-wgmma-f16 igemm-tma-f16; do
        case $kern in
        igemm-tma-f16) shapes="$ODD1 $SPLIT $ODDT $PAD0 $CLU" ;;
        *) shapes="$ODD3 $ODD1 $SPLIT" ;;
        esac
        odd $kern $shapes && good="$good $kern"
    done
    for kern in $good; do
        grep " $kern " ${CHOSEN16:-/dev/null} | while read -r name k rest; do
            budget "$name" "$kern" >/dev/null || echo "$name $k $rest"
        done
    done >"$OUT/conv_chosen_f16.txt"
    for kern in ${KERNELS16:-igemm-tc-f16 igemm-wgmma-f16 igemm-tma-f16}; do
        case " $good " in *" $kern "*) ;; *) continue ;; esac
        for l in $LAYERS; do
            name=${l%%:*} prob=${l#*:}
            b=$(budget "$name" "$kern") || continue
            tune tune-$name-$kern $kern "$prob" "$b" 1 --energy-window 0
            key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["key"])' \
                "$W/runs/tune-$name-$kern.json")
            [ -n "$key" ] && echo "$name $kern $prob $key" >>"$OUT/conv_chosen_f16.txt"
        done
    done
    sort -s -k1,1 "$OUT/conv_chosen_f16.txt" -o "$OUT/conv_chosen_f16.txt"
    cat "$OUT/conv_chosen_f16.txt"
    cp "$W/conv.db" "$OUT/"
    rounds "$OUT/conv_chosen_f16.txt" "--kernels fp16"
    exit 0
fi

# 1. odd shapes: every sampled configuration must verify (or be invalid)
for kern in igemm direct; do
    odd $kern "$ODD3" "$ODD1" || exit 1
done

# 2. compile/measure overlap: the same random configurations, empty caches,
# with the default energy window and without energy readings (E0)
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
