#!/bin/sh
# prediction_report.sh - the Markdown tables of docs/PREDICTION.md from the
# lines of bench/prediction_runs.sh: per cell and method, the mean over
# seeds (and the range where there are several).
#
#   bench/prediction_report.sh RUNS.tsv
set -eu
awk -F'\t' '
function cell(k, p) { return k " " p }
function show(key, col,   m) {
    if (!(key SUBSEP col in sum)) return "-"
    m = sum[key, col] / cnt[key]
    if (cnt[key] == 1 || col == 7 || col == 14) return sprintf("%.1f", m)
    return sprintf("%.1f (%.1f-%.1f)", m, lo[key, col], hi[key, col])
}
{
    key = $1 SUBSEP $2 SUBSEP $3
    if (!(key in cnt)) { order[++nk] = key; if (!($1 SUBSEP $2 in seen)) { cells[++nc] = $1 SUBSEP $2; seen[$1 SUBSEP $2] = 1 }
                         if (!($3 in mseen)) { methods[++nm] = $3; mseen[$3] = 1 } }
    cnt[key]++
    for (c = 7; c <= NF; c++) {
        sum[key, c] += $c
        if (cnt[key] == 1 || $c < lo[key, c]) lo[key, c] = $c
        if (cnt[key] == 1 || $c > hi[key, c]) hi[key, c] = $c
    }
    sizes[$1 SUBSEP $2] = $5 " / " $6
    seeds[key] = cnt[key]
}
END {
    print "Table III shape: top-1 average accuracy and perfect prediction (%), plain"
    print "(unconstrained) greedy decoding; mean over seeds (range)."
    print ""
    hdr = "| kernel | precision | train / test |"; sep = "| --- | --- | --- |"
    for (i = 1; i <= nm; i++) { hdr = hdr " " methods[i] " avg | " methods[i] " top-1 |"; sep = sep " --- | --- |" }
    print hdr; print sep
    for (j = 1; j <= nc; j++) {
        split(cells[j], kp, SUBSEP); row = "| " kp[1] " | " kp[2] " | " sizes[cells[j]] " |"
        for (i = 1; i <= nm; i++) { key = cells[j] SUBSEP methods[i]; row = row " " show(key, 15) " | " show(key, 16) " |" }
        print row
    }
    print ""
    print "Table IV shape: perfect prediction (%) among the top k of the constrained"
    print "beam search; mean over seeds (range); training seconds and ms per query"
    print "at k = 100 are means."
    print ""
    print "| kernel | precision | method | k=1 | k=10 | k=30 | k=50 | k=100 | train s | ms/query |"
    print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for (j = 1; j <= nc; j++) {
        split(cells[j], kp, SUBSEP)
        for (i = 1; i <= nm; i++) {
            key = cells[j] SUBSEP methods[i]
            if (!(key in cnt)) continue
            print "| " kp[1] " | " kp[2] " | " methods[i] " | " show(key, 9) " | " show(key, 10) " | " show(key, 11) " | " show(key, 12) " | " show(key, 13) " | " show(key, 7) " | " show(key, 14) " |"
        }
    }
    # the paper: Table III hybrid-2 top-1; Table IV OPCS-BS top-10, top-100
    split("6.53 31.52 18.93 31.34 10.00 13.66 15.43 22.22", p1, " ")
    split("19.89 68.48 72.50 79.70 36.47 44.10 58.57 77.78", p10, " ")
    split("40.91 87.27 95.79 91.64 71.37 73.29 91.43 95.56", p100, " ")
    print ""
    print "Goals of issue 3, constrained beam, means over seeds: the paper figures,"
    print "knn and each sequence method (top-1 / top-10 perfect prediction)."
    print ""
    hdr = "| kernel | precision | paper top-1 / top-10 / top-100 | knn |"; sep = "| --- | --- | --- | --- |"
    for (i = 1; i <= nm; i++) if (methods[i] != "knn") { hdr = hdr " " methods[i] " |"; sep = sep " --- |" }
    print hdr; print sep
    for (j = 1; j <= nc; j++) {
        split(cells[j], kp, SUBSEP)
        row = "| " kp[1] " | " kp[2] " | " p1[j] " / " p10[j] " / " p100[j] " |"
        for (i = 1; i <= nm; i++) {
            key = cells[j] SUBSEP methods[i]
            if (methods[i] == "knn" || (key in cnt))
                row = row " " (key in cnt ? sprintf("%.1f / %.1f", sum[key, 9] / cnt[key], sum[key, 10] / cnt[key]) : "-") " |"
            else if (methods[i] != "knn") row = row " - |"
        }
        print row
    }
}' "$1"
