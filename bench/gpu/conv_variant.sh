#!/bin/sh
# conv_variant.sh - on the GPU machine, in one call: a variant of
# kernels/conv/conv_igemm_tma.cu (VARIANT: tuning parameters narrowed, e.g.
# PP=1 for the ping-pong schedule, FLAT=1 for flat tiles of 1x1 layers;
# empty: the whole space) against the choices of
# bench/gpu/conv_chosen_f16.txt, beside cuDNN.  SPEC (default the FP16
# spec, conv-igemm-tma-f16-cuda.json) and DTYPE (cuDNN's mode, default
# fp16) choose the element type: SPEC=...-bf16-cuda.json DTYPE=bf16.
#   1. the variant alone (a narrowed copy of the spec) verified at the ODD
#      shapes, 12 random configurations each;
#   2. the layers of TUNE (NAME:BUDGET ...) tuned over the variant alone
#      (random, seed 1, no energy window);
#   3. ROUNDS rounds (default 2): each layer of TUNE and PIN (NAME ...: the
#      chosen configuration alone) pinned, its chosen configuration and the
#      variant's best, each round into a new database, and cuDNN
#      (conv_cudnn.py); a line per layer, configuration and round.
# The variant's best key per layer is in OUT's tarball (chosen.txt) and on
# stdout.
#
#   make bundle                                 (here; carry build/bundle)
#   VARIANT=FLAT=1 sh bench/gpu/conv_variant.sh OUT [BUNDLE]   (there)
set -u
OUT=$1 B=${2:-build/bundle}
K=$B/ktune W=/tmp/ktune-conv-variant
export KTUNE_WORKER=$B/ktune-worker LD_LIBRARY_PATH=$B/lib
VARIANT=${VARIANT-PP=1}
TUNE=${TUNE:-res4-1x1:150 res5-3x3:90 res2-1x1:60}
PIN=${PIN:-}
ODD=${ODD:-odd1:N=2,C=24,H=10,W=10,K=40,R=1,S=1,stride=1,pad=0
split:N=2,C=40,H=9,W=9,K=40,R=3,S=3,stride=1,pad=1
odd:N=3,C=16,H=11,W=13,K=37,R=3,S=3,stride=1,pad=1
pad0:N=2,C=32,H=12,W=10,K=24,R=3,S=3,stride=1,pad=0
cluster:N=2,C=24,H=9,W=11,K=120,R=3,S=3,stride=1,pad=1}
SPEC=${SPEC:-kernels/conv/conv-igemm-tma-f16-cuda.json} DTYPE=${DTYPE:-fp16}
VSPEC=kernels/conv/conv-igemm-tma-variant-cuda.json
rm -rf "$W" && mkdir -p "$W" "$OUT"
if [ -n "$VARIANT" ]; then
    python3 bench/gpu/narrow_spec.py "$SPEC" "$VARIANT" >$VSPEC
else
    cp "$SPEC" $VSPEC
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "spec: $SPEC, variant: ${VARIANT:-none}, cuDNN: $DTYPE"

# run TAG SPEC PROBLEM [options...]: ktune tune into $W/TAG.json
run() {
    tag=$1 spec=$2 prob=$3
    shift 3
    $K tune "$spec" --problem "$prob" --db "$W/$tag.db" --cache "$W/cache" --energy-window 0 \
        --json "$@" >"$W/$tag.json" 2>"$W/$tag.err"
    echo "$tag rc=$? $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
b=r.get("best") or {}; s={k: v for k, v in r["statuses"].items() if v}
print(r["measured"], s, b.get("key"), b.get("time_ms"))' "$W/$tag.json")"
}

fails=0
for o in $ODD; do
    run "odd-${o%%:*}" $VSPEC "${o#*:}" --strategy random --budget 12 --seed 3 --timeout 8
    grep -q '"\(wrong_result\|crash\|timeout\|runtime_error\)": [1-9]' "$W/odd-${o%%:*}.json" &&
        fails=$((fails + 1))
done
echo "odd shapes with a failed configuration of the variant: $fails"
[ "$fails" = 0 ] || exit 1

chosen() { # NAME: the problem and the chosen configuration of conv_chosen_f16.txt
    grep "^$1 igemm-tma-f16 " bench/gpu/conv_chosen_f16.txt | cut -d' ' -f3,4
}
: >"$W/chosen.txt"
for e in $TUNE; do
    name=${e%%:*}
    set -- $(chosen "$name")
    run "tune-$name" $VSPEC "$1" --strategy random --budget "${e#*:}" --seed 1 --timeout 10
    best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["key"])' \
        "$W/tune-$name.json")
    echo "$name $1 $2 $best" >>"$W/chosen.txt"
done
for name in $PIN; do
    echo "$name $(chosen "$name")" >>"$W/chosen.txt"
done
cat "$W/chosen.txt"
for r in $(seq 1 "${ROUNDS:-2}"); do
    while read -r name prob k0 k1; do
        for key in $k0 ${k1:-}; do
            [ "$key" = "$k0" ] && v=chosen || v=variant
            python3 bench/gpu/pin_config.py "$SPEC" "$key" >kernels/conv/pinned-variant.json
            run "round$r-$name-$v" kernels/conv/pinned-variant.json "$prob"
        done
    done <"$W/chosen.txt"
    awk '{print $1 ":" $2}' "$W/chosen.txt" | python3 bench/gpu/conv_cudnn.py "$DTYPE" 2>&1 |
        sed "s/^/round $r /"
done
rm -f kernels/conv/pinned-variant.json $VSPEC
tar czf "$OUT/conv-variant.tgz" -C "$W" --exclude cache .
