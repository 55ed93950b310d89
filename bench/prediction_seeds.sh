#!/bin/sh
# prediction_seeds.sh - one method's top-1 and top-10 on one solver over
# every seed that bench/prediction_runs.sh's lines (TSV files) hold: the
# mean, its standard deviation over the seeds, the standard error of the
# mean and (top-10) the range over the seeds, per precision; a seed met twice counts once (its first line:
# a seed gives the same model, so its lines agree).  METHOD nn10 reads
# the 10-distinct-nearest-neighbour baseline's lines instead (seed,
# kernel, data_type=PRECISION, test problems, top-1, top-10).
#
#   sh bench/prediction_seeds.sh KERNEL METHOD FILE...
#   e.g. sh bench/prediction_seeds.sh ConvAsmBwdWrW3x3 auto-ll-bag bench/results/prediction-*.tsv
#        sh bench/prediction_seeds.sh ConvAsmBwdWrW3x3 nn10 bench/results/nn10-*.tsv
set -eu
[ $# -ge 3 ] || { echo "usage: prediction_seeds.sh KERNEL METHOD FILE..." >&2; exit 2; }
kernel=$1 method=$2
shift 2
cat "$@" | awk -F'\t' -v k="$kernel" -v m="$method" '
m == "nn10" && $2 == k { sub(/^data_type=/, "", $3); print $2, $3, m, $1, "", "", "", "", $5, $6; next }
m != "nn10" { print }' OFS='\t' | awk -F'\t' -v k="$kernel" -v m="$method" '
$1 == k && $3 == m && !seen[$2 " " $4]++ {
    n[$2]++; t1[$2] += $9; q1[$2] += $9 * $9; t10[$2] += $10; q10[$2] += $10 * $10
    if (n[$2] == 1 || $10 < lo[$2]) lo[$2] = $10
    if (n[$2] == 1 || $10 > hi[$2]) hi[$2] = $10
    s[$2] = s[$2] " " $4
}
function sd(t, q, c) { return c > 1 ? sqrt((q - t * t / c) / (c - 1)) : 0 }
END {
    for (p in n) {
        a = sd(t1[p], q1[p], n[p]); b = sd(t10[p], q10[p], n[p])
        printf "%s %s %s: %d seeds (%s), top-1 %.2f (sd %.2f, se %.2f), top-10 %.2f (sd %.2f, se %.2f, %.2f-%.2f)\n",
            k, p, m, n[p], substr(s[p], 2), t1[p] / n[p], a, a / sqrt(n[p]),
            t10[p] / n[p], b, b / sqrt(n[p]), lo[p], hi[p]
    }
}' | sort
