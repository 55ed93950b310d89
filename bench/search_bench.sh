#!/bin/sh
# search_bench.sh - the strategy benchmark of docs/SEARCH.md.
#
# Imports the recorded exhaustive spaces (bench/data/gemm-cpu-bench.csv.bz2, made by
# bench/record_cpu.sh) into a scratch database, replays every registered
# strategy on each space with build/bench/strategy_bench (SEEDS seeds,
# budgets of 1-50% of the valid space), writes the curves as SVG into
# docs/search/ and prints the tables (Markdown) on stdout; then replays the
# default strategy and a few others warm (--warm 4: the other shapes' winners
# first).
#
#   bench/search_bench.sh [SEEDS]          (default 50)
set -eu
SEEDS=${1:-50}
KTUNE=${KTUNE:-build/ktune}
BENCH=build/bench/strategy_bench
FIGS=${FIGS:-docs/search}
SPEC=kernels/gemm/gemm-c.json
WARM_STRATEGIES=${WARM_STRATEGIES:-model_guided,local_search,annealing,ensemble}
make -s "$KTUNE" >/dev/null
make -s -f bench/bench.mk "$BENCH" >/dev/null
tmp=$(mktemp -d /tmp/ktune-search.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$FIGS"
bzcat bench/data/gemm-cpu-bench.csv.bz2 >"$tmp/bench.csv"
"$KTUNE" import csv "$tmp/bench.csv" --db "$tmp/rec.db" >/dev/null

# budget.tsv -> one row per strategy: median (quartiles) at each budget
budget_table() {
    awk -F '\t' 'NR == 1 { next }
        !($1 in seen) { seen[$1] = 1; order[++ns] = $1 }
        !($2 in col) { col[$2] = ++nc; head[nc] = $2 "% (" $3 ")" }
        { cell[$1, col[$2]] = sprintf("%.3f (%.3f-%.3f)", $5, $4, $6) }
        END {
            printf "| strategy |"; for (c = 1; c <= nc; c++) printf " %s |", head[c]; print ""
            printf "| --- |"; for (c = 1; c <= nc; c++) printf " --- |"; print ""
            for (s = 1; s <= ns; s++) {
                printf "| %s |", order[s]
                for (c = 1; c <= nc; c++) printf " %s |", cell[order[s], c]; print ""
            }
        }' "$1"
}

# reach.tsv -> evaluations to 95% and 99%, and random's over each
reach_table() {
    awk -F '\t' 'function f(v) { return v == "inf" ? "not reached" : sprintf("%g", v) }
        NR == 1 { next }
        !($1 in seen) { seen[$1] = 1; order[++ns] = $1 }
        { med[$1, $2] = $4; q[$1, $2] = f($3) "-" f($5); got[$1, $2] = $6 "/" $7
          limit = $8 }
        END {
            print "| strategy | to 95%: median (quartiles) | reached | vs random | to 99%: median (quartiles) | reached | vs random |"
            print "| --- | --- | --- | --- | --- | --- | --- |"
            for (s = 1; s <= ns; s++) {
                st = order[s]; printf "| %s |", st
                split("0.95 0.99", t, " ")
                for (k = 1; k <= 2; k++) {
                    m = med[st, t[k]]; r = med["random", t[k]]
                    ratio = "-"
                    if (m != "inf" && r != "inf") ratio = sprintf("%.1fx", r / m)
                    if (m != "inf" && r == "inf") ratio = sprintf("over %.1fx", limit / m)
                    printf " %s (%s) | %s | %s |", f(m), q[st, t[k]], got[st, t[k]], ratio
                }
                print ""
            }
            printf "\nRuns of %d evaluations (50%% of the space); \"not reached\": fewer than half the seeds reached it.\n", limit
        }' "$1"
}

for p in M=256,N=256,K=256 M=512,N=512,K=512 M=2048,N=64,K=512 M=384,N=640,K=192; do
    name=gemm-cpu-$(echo "$p" | sed 's/M=//; s/,N=/x/; s/,K=/x/')
    "$BENCH" "$SPEC" "$tmp/rec.db" "$p" "$tmp/$name" --seeds "$SEEDS" >"$tmp/head" 2>"$tmp/time"
    space=$(sed -n 's/.*: \([0-9]*\) valid configurations.*/\1/p' "$tmp/head")
    awk -v title="CPU SGEMM $p, $space valid configurations, $SEEDS seeds" -v space="$space" \
        -f bench/svg_curves.awk "$tmp/$name.curve.tsv" >"$FIGS/$name.svg"
    echo "### $p"
    echo
    cat "$tmp/head"
    echo
    echo "![$p]($(basename "$FIGS")/$name.svg)"
    echo
    echo "Fraction of the optimum reached (median over $SEEDS seeds, quartiles) at each budget (% of the valid space, evaluations):"
    echo
    budget_table "$tmp/$name.budget.tsv"
    echo
    echo "Evaluations needed to reach 95% and 99% of the optimum:"
    echo
    reach_table "$tmp/$name.reach.tsv"
    echo
    echo "Replay time per strategy ($SEEDS seeds x 6 budgets):"
    echo '```'
    cat "$tmp/time"
    echo '```'
    echo
    "$BENCH" "$SPEC" "$tmp/rec.db" "$p" "$tmp/$name.warm" --seeds "$SEEDS" --warm 4 \
        --strategies "$WARM_STRATEGIES" >/dev/null 2>&1
    echo "Starting from the winners of the other three shapes (\`--warm 4\`, the default;"
    echo "they count as evaluations): fraction of the optimum at each budget:"
    echo
    budget_table "$tmp/$name.warm.budget.tsv"
    echo
    echo "Evaluations needed to reach 95% and 99% of the optimum, warm (random: its cold runs):"
    echo
    { cat "$tmp/$name.warm.reach.tsv"; awk -F '\t' '$1 == "random"' "$tmp/$name.reach.tsv"; } >"$tmp/warm.reach"
    reach_table "$tmp/warm.reach"
    echo
done
