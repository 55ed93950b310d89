#!/bin/sh
# prediction_table.sh - the paper's Table II (classic baselines) recomputed:
# import the MIOpen perf db, then for each of the paper's four kernels and
# both precisions train every baseline on a seeded 80/20 split and evaluate
# it on the held-out 20% (top-1, unconstrained: Table II scores the plain
# classifiers).  Prints one Markdown table on stdout.
#
#   bench/prediction_table.sh [PERFDB] [SEED]
set -eu
PERFDB=${1:-data/miopen/gfx906_60.db.bz2}
SEED=${2:-1}
KTUNE=${KTUNE:-build/ktune}
WORK=$(mktemp -d /tmp/ktune-table.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
DB="$WORK/perf.db"
"$KTUNE" import miopen "$PERFDB" --db "$DB" >&2

num() { sed -n "s/^  \"$2\": \\([0-9.]*\\),*$/\\1/p" "$1"; }
pft() { sed -n 's/^    "1": \([0-9.]*\).*$/\1/p' "$1"; }

echo "| kernel | precision | train / test | knn | naive_bayes | tree | forest | svc |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for kernel in ConvAsm1x1U ConvOclDirectFwd1x1 ConvAsmBwdWrW1x1 ConvAsmBwdWrW3x3; do
    for prec in FP32 FP16; do
        row="| $kernel | $prec |"
        sizes=""
        for method in knn naive_bayes tree forest svc; do
            "$KTUNE" train --db "$DB" --kernel "$kernel" --where "data_type=$prec" \
                --model "$method" --holdout 0.2 --seed "$SEED" --out "$WORK/m" >"$WORK/t"
            [ -n "$sizes" ] || sizes=$(sed -n 's/.* on \([0-9]*\) samples.*(\([0-9]*\) held out).*/\1 \/ \2/p' "$WORK/t")
            "$KTUNE" evaluate --model "$WORK/m" --beam 1 --unconstrained --json >"$WORK/e"
            row="$row $(num "$WORK/e" avg_accuracy | cut -c1-5) ($(pft "$WORK/e" | cut -c1-5)) |"
        done
        echo "$row" | sed "s#| $prec |#| $prec | $sizes |#"
    done
done
