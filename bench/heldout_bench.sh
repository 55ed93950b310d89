#!/bin/sh
# heldout_bench.sh - tuning shapes never measured (docs/SEARCH.md).
#
# Trains each MODEL on the 64 grid shapes (bench/data/gemm-cpu-grid.csv.bz2,
# made by bench/record_cpu.sh: every valid configuration measured; the
# classifiers learn each shape's best, the performance model `cost` every
# measurement), then, on each held-out shape (gemm-cpu-heldout.csv.bz2,
# also exhaustive), replays
#   --strategy predict --top 1      the model's first choice alone,
#   --strategy predict --top 10     its ten best, all measured,
#   --strategy predict+search       those ten, then the default strategy
#                                   up to BUDGET evaluations,
# and reports the fraction of the optimum (optimum time / best time found)
# with the evaluations spent: one row per shape and model, then the
# geometric mean over shapes.  Random search over the same ten
# evaluations (median of SEEDS seeds) is the bar a model must clear.
#
#   bench/heldout_bench.sh [MODEL...]   (default: knn xgboost encdec ensemble cost)
# Environment: BUDGET (default 20), SEEDS (default 50).
set -eu
KTUNE=${KTUNE:-build/ktune}
SPEC=kernels/gemm/gemm-c.json
BUDGET=${BUDGET:-20}
SEEDS=${SEEDS:-50}
MODELS=${*:-knn xgboost encdec ensemble cost}
make -s "$KTUNE" >/dev/null
tmp=$(mktemp -d /tmp/ktune-heldout.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for set in grid heldout; do
    bzcat bench/data/gemm-cpu-$set.csv.bz2 >"$tmp/$set.csv"
    "$KTUNE" import csv "$tmp/$set.csv" --db "$tmp/$set.db" >/dev/null
done
shapes=$(grep -o '"M=[0-9]*,N=[0-9]*,K=[0-9]*"' "$tmp/heldout.csv" | tr -d '"' | sort -u)

# best time and evaluations of a replayed run: "TIME MEASURED"
replay() {
    p=$1
    shift
    "$KTUNE" tune "$SPEC" --problem "$p" --replay "$tmp/heldout.db" --json "$@" >"$tmp/r.json"
    awk '/"measured":/ { gsub(/[ ,]/, ""); split($0, a, ":"); n = a[2] }
         /"best":/ { b = 1 }
         b && /"time_ms":/ { gsub(/[ ,]/, ""); split($0, a, ":"); print a[2], n; exit }' "$tmp/r.json"
}

echo "| shape | optimum (ms) | model | top-1 | top-10 (evaluations) | predict+search, $BUDGET evaluations |"
echo "| --- | --- | --- | --- | --- | --- |"
frac() { awk -v o="$1" -v t="$2" 'BEGIN { printf "%.4f", o / t }'; }
for p in $shapes; do
    r=$(replay "$p" --strategy brute_force)
    opt=${r% *}
    rand=$(for s in $(seq 1 "$SEEDS"); do replay "$p" --strategy random --budget 10 --seed "$s"; done |
        awk -v o="$opt" '{ print o / $1 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    printf "| %s | %.4g | random, 10 (median of %d seeds) | - | %.3f (10) | - |\n" "$p" "$opt" "$SEEDS" "$rand"
    echo "$p random10 $rand" >>"$tmp/fractions"
    for m in $MODELS; do
        [ -f "$tmp/$m.ktm" ] || /usr/bin/time -f "%e s" "$KTUNE" train --db "$tmp/grid.db" \
            --kernel gemm --model "$m" --holdout 0 --seed 1 --out "$tmp/$m.ktm" --quiet \
            >"$tmp/$m.train" 2>&1
        r=$(replay "$p" --strategy predict --model "$tmp/$m.ktm" --top 1)
        f1=$(frac "$opt" "${r% *}")
        r=$(replay "$p" --strategy predict --model "$tmp/$m.ktm" --top 10)
        f10=$(frac "$opt" "${r% *}") n10=${r#* }
        r=$(replay "$p" --strategy predict+search --model "$tmp/$m.ktm" --top 10 --budget "$BUDGET")
        fs=$(frac "$opt" "${r% *}")
        printf "| %s | %.4g | %s | %.3f | %.3f (%d) | %.3f |\n" "$p" "$opt" "$m" "$f1" "$f10" "$n10" "$fs"
        echo "$p $m $f1 $f10 $fs" >>"$tmp/fractions"
    done
done
echo
echo "Geometric mean over the $(echo "$shapes" | wc -w) held-out shapes (lowest in brackets):"
echo
echo "| model | top-1 | best of top-10 | predict+search, $BUDGET evaluations |"
echo "| --- | --- | --- | --- |"
awk '$2 == "random10" { next }
     !($2 in n) { order[++nm] = $2 }
     { n[$2]++; for (c = 3; c <= 5; c++) { l[$2, c] += log($c)
           if (!(($2, c) in lo) || $c < lo[$2, c]) lo[$2, c] = $c } }
     END { for (i = 1; i <= nm; i++) { m = order[i]; printf "| %s |", m
             for (c = 3; c <= 5; c++) printf " %.3f (%.3f) |", exp(l[m, c] / n[m]), lo[m, c]
             print "" } }' "$tmp/fractions"
awk '$2 == "random10" { l += log($3); n++ }
     END { printf "| random search, 10 evaluations (median of seeds) | - | %.3f | - |\n", exp(l / n) }' \
    "$tmp/fractions"
echo
echo "Training:"
echo '```'
for m in $MODELS; do tr '\n' ' ' <"$tmp/$m.train"; echo; done
echo '```'
