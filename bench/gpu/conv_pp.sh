#!/bin/sh
# conv_pp.sh - on the GPU machine, in one call: the ping-pong schedule of
# kernels/conv/conv_igemm_tma.cu (PP=1: each consumer warpgroup its own
# tile, one storing while the other multiplies) against the PP=0 choices
# of bench/gpu/conv_chosen_f16.txt, beside cuDNN FP16.
#   1. PP=1 alone (a narrowed copy of the spec) verified at conv.sh's five
#      odd shapes of the TMA kernel, 12 random configurations each;
#   2. the layers of TUNE (NAME:BUDGET ...) tuned over PP=1 alone (random,
#      seed 1, no energy window);
#   3. ROUNDS rounds (default 2): each layer's PP=0 choice and its PP=1
#      best, pinned, each round into a new database, and cuDNN FP16
#      (conv_cudnn.py); a line per layer and round.
#
#   make bundle                            (here; carry build/bundle)
#   sh bench/gpu/conv_pp.sh OUT [BUNDLE]   (there; BUNDLE default build/bundle)
set -u
OUT=$1 B=${2:-build/bundle}
K=$B/ktune W=/tmp/ktune-conv-pp
export KTUNE_WORKER=$B/ktune-worker LD_LIBRARY_PATH=$B/lib
TUNE=${TUNE:-res4-1x1:150 res5-3x3:90 res2-1x1:60}
SPEC=kernels/conv/conv-igemm-tma-f16-cuda.json
PPSPEC=kernels/conv/conv-igemm-tma-f16-pp-cuda.json
rm -rf "$W" && mkdir -p "$W" "$OUT"
python3 bench/gpu/narrow_spec.py $SPEC PP=1 >$PPSPEC
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader

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
for o in odd1:N=2,C=24,H=10,W=10,K=40,R=1,S=1,stride=1,pad=0 \
    split:N=2,C=40,H=9,W=9,K=40,R=3,S=3,stride=1,pad=1 \
    odd:N=3,C=16,H=11,W=13,K=37,R=3,S=3,stride=1,pad=1 \
    pad0:N=2,C=32,H=12,W=10,K=24,R=3,S=3,stride=1,pad=0 \
    cluster:N=2,C=24,H=9,W=11,K=120,R=3,S=3,stride=1,pad=1; do
    run "odd-${o%%:*}" $PPSPEC "${o#*:}" --strategy random --budget 12 --seed 3 --timeout 8
    grep -q '"\(wrong_result\|crash\|timeout\|runtime_error\)": [1-9]' "$W/odd-${o%%:*}.json" &&
        fails=$((fails + 1))
done
echo "odd shapes with a failed PP=1 configuration: $fails"
[ "$fails" = 0 ] || exit 1

: >"$W/chosen.txt"
for e in $TUNE; do
    name=${e%%:*}
    set -- $(grep "^$name igemm-tma-f16 " bench/gpu/conv_chosen_f16.txt)
    run "tune-$name" $PPSPEC "$3" --strategy random --budget "${e#*:}" --seed 1 --timeout 10
    pp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["best"]["key"])' \
        "$W/tune-$name.json")
    echo "$name $3 $4 $pp" >>"$W/chosen.txt"
done
cat "$W/chosen.txt"
for r in $(seq 1 "${ROUNDS:-2}"); do
    while read -r name prob k0 k1; do
        for v in 0 1; do
            [ $v = 0 ] && key=$k0 || key=$k1
            python3 bench/gpu/pin_config.py $SPEC "$key" >kernels/conv/pinned-pp.json
            run "round$r-$name-pp$v" kernels/conv/pinned-pp.json "$prob"
        done
    done <"$W/chosen.txt"
    awk '{print $1 ":" $2}' "$W/chosen.txt" | python3 bench/gpu/conv_cudnn.py fp16 2>&1 |
        sed "s/^/round $r /"
done
rm -f kernels/conv/pinned-pp.json $PPSPEC
tar czf "$OUT/conv-pp.tgz" -C "$W" --exclude cache .
