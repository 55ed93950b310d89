#!/bin/sh
# prediction_runs.sh - train and evaluate predictor methods on the paper's
# eight cells (four MIOpen solvers x FP32/FP16) over several seeded splits;
# one tab-separated line per (cell, method, seed) on stdout, for
# bench/prediction_report.sh to turn into the tables of docs/PREDICTION.md.
#
#   bench/prediction_runs.sh [PERFDB] ["SEEDS"] ["METHODS"] [KERNELS...]
#
# A method named NAME+paper is NAME trained with --paper-decoder.
# Columns: kernel precision method seed train_samples test_samples
#   train_seconds, then with the constrained beam: avg_accuracy perfect@1
#   @10 @30 @50 @100 ms_per_query(k=100), then unconstrained: avg_accuracy
#   perfect@1 @10 @100 valid_top1.
set -eu
PERFDB=${1:-data/miopen/gfx906_60.db.bz2}
SEEDS=${2:-1 2 3}
METHODS=${3:-knn encdec attention hybrid hybrid2}
[ $# -ge 3 ] && shift 3 || set --
KERNELS=${*:-ConvAsm1x1U ConvOclDirectFwd1x1 ConvAsmBwdWrW1x1 ConvAsmBwdWrW3x3}
KTUNE=${KTUNE:-build/ktune}
WORK=$(mktemp -d /tmp/ktune-runs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
case $PERFDB in
*.bz2) DB="$WORK/perf.db"; "$KTUNE" import miopen "$PERFDB" --db "$DB" >&2 ;;
*) DB=$PERFDB ;;
esac

num() { tr -d ' \n' <"$1" | sed -n "s/.*\"$2\":\\([0-9.e+-]*\\).*/\\1/p"; }
pft() { tr -d ' \n' <"$1" | sed -n "s/.*\"perfect\":{[^}]*\"$2\":\\([0-9.e+-]*\\).*/\\1/p"; }
now() { date +%s.%N; }

for kernel in $KERNELS; do
    for prec in FP32 FP16; do
        for method in $METHODS; do
            for seed in $SEEDS; do
                model=${method%+paper} extra=
                [ "$model" = "$method" ] || extra=--paper-decoder
                t0=$(now)
                "$KTUNE" train --db "$DB" --kernel "$kernel" --where "data_type=$prec" \
                    --model "$model" $extra --holdout 0.2 --seed "$seed" --quiet \
                    --out "$WORK/m" >"$WORK/t"
                t1=$(now)
                cat "$WORK/t" >&2   # what was trained (a chosen method's scores)
                sizes=$(sed -n 's/.* on \([0-9]*\) samples.*(\([0-9]*\) held out).*/\1\t\2/p' "$WORK/t")
                "$KTUNE" evaluate --model "$WORK/m" --beam 1,10,30,50,100 --json >"$WORK/c"
                "$KTUNE" evaluate --model "$WORK/m" --beam 1,10,100 --unconstrained \
                    --json >"$WORK/u"
                printf '%s\t%s\t%s\t%s\t%s\t%.2f' "$kernel" "$prec" "$method" "$seed" \
                    "$sizes" "$(echo "$t1 - $t0" | bc)"
                printf '\t%s' "$(num "$WORK/c" avg_accuracy)" "$(pft "$WORK/c" 1)" \
                    "$(pft "$WORK/c" 10)" "$(pft "$WORK/c" 30)" "$(pft "$WORK/c" 50)" \
                    "$(pft "$WORK/c" 100)" "$(num "$WORK/c" ms_per_query)" \
                    "$(num "$WORK/u" avg_accuracy)" "$(pft "$WORK/u" 1)" \
                    "$(pft "$WORK/u" 10)" "$(pft "$WORK/u" 100)" "$(num "$WORK/u" valid)"
                printf '\n'
            done
        done
    done
done
