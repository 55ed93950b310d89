#!/bin/sh
# public_bench.sh - ktune's search strategies replayed on exhaustive GPU
# recordings: the held-out public set (bench/data/public/: the FAIR
# benchmark hub's Kernel Tuner caches, README.md there) or the development
# set the strategies were tuned on (ktune's own recordings and KTT's
# CoulombSum3d, bench/data/ktt/).  Every strategy runs at budgets of 25 to
# 400 evaluations with SEEDS seeds (`ktune benchmark --replay FILE`); the
# script writes, per recording, the mean fraction of the optimum at each
# budget for the default strategy, the best other strategy and random
# search, beside the exact expectation of uniform random sampling (Kernel
# Tuner's random_sample: k distinct configurations of the recorded space, a
# failed one worth 0), and an SVG of the mean curves under docs/search/
# (public-NAME.svg, dev-NAME.svg).
#
#   bench/public_bench.sh [heldout|dev] [OUT]   (default: heldout, /tmp/ktune-public)
#
# Environment: KTUNE (build/ktune), SEEDS (50), BUDGETS (25,50,100,200,400),
# STRATEGIES (every registered one), SVG (docs/search; empty: none), PAR
# (recordings replayed side by side, default 2).
# Prints markdown tables; OUT keeps each recording's JSON.
set -eu
set_=${1:-heldout}
OUT=${2:-/tmp/ktune-public}
KTUNE=${KTUNE:-build/ktune}
SEEDS=${SEEDS:-50}
PAR=${PAR:-2}
BUDGETS=${BUDGETS:-25,50,100,200,400}
SVG=${SVG-docs/search}
HERE=$(dirname "$0")
mkdir -p "$OUT"
[ -z "$SVG" ] || mkdir -p "$SVG"

# The recordings of a set, one "NAME FILE [benchmark options]" per line.
recordings() {
    case $1 in
    heldout)
        for f in "$HERE"/data/public/*/*.json.bz2; do
            k=$(basename "$(dirname "$f")") g=$(basename "$f" .json.bz2)
            echo "$k-$g $f"
        done ;;
    dev)
        echo "coulombsum3d-RTX_2080_Ti $HERE/data/ktt/coulomb_2080_full_search_space_converted.json.bz2"
        for r in gpu-gemm-cuda-2048-h100 gpu-conv-direct-res3-h100 gemm-cpu-bench; do
            rm -f "$OUT/$r.db" "$OUT/$r.csv"
            bzcat "$HERE/data/$r.csv.bz2" >"$OUT/$r.csv"
            "$KTUNE" import csv "$OUT/$r.csv" --db "$OUT/$r.db" >/dev/null
        done
        echo "gemm-cuda-H100 $OUT/gpu-gemm-cuda-2048-h100.db"
        echo "conv-direct-H100 $OUT/gpu-conv-direct-res3-h100.db"
        for p in M=256,N=256,K=256 M=512,N=512,K=512 M=2048,N=64,K=512 M=384,N=640,K=192; do
            echo "gemm-cpu-$(echo "$p" | tr -d 'MNK=' | tr , x) $OUT/gemm-cpu-bench.db --problem $p"
        done ;;
    *) echo "public_bench.sh: unknown set '$1' (heldout or dev)" >&2; exit 2 ;;
    esac
}

recordings "$set_" >"$OUT/list.txt"
prefix=public
[ "$set_" = heldout ] || prefix=$set_
echo "# $set_: $(wc -l <"$OUT/list.txt") recordings, seeds $SEEDS, budgets $BUDGETS," \
     "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n)"
# Replay the recordings of lines I, I+PAR, I+2*PAR, ... of the list.
shard() {
    awk -v i="$1" -v p="$PAR" 'NR % p == i' "$OUT/list.txt" |
    while read -r name file opts; do
        svg=${SVG:+--svg $SVG/$prefix-$name.svg}
        t0=$(date +%s)
        # shellcheck disable=SC2086 # opts and svg are option lists
        "$KTUNE" benchmark --replay "$file" $opts --seeds "$SEEDS" --budgets "$BUDGETS" \
            ${STRATEGIES:+--strategies $STRATEGIES} $svg --json >"$OUT/$name.json"
        echo "$name $(($(date +%s) - t0)) s" >>"$OUT/times.txt"
    done
}
rm -f "$OUT/times.txt"
i=0
while [ $i -lt "$PAR" ]; do
    shard $i &
    i=$((i + 1))
done
wait
python3 "$HERE/public_table.py" "$OUT" "$("$KTUNE" tune --help | sed -n 's/.*--strategy NAME.*default \([a-z_]*\).*/\1/p')"
