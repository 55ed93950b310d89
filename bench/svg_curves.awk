# svg_curves.awk - draw strategy_bench's curve table as an SVG figure:
# for each strategy, the median fraction of the optimum reached against
# evaluations spent (log scale), with its interquartile band.
#
#   awk -v title="gemm 256^3" -v space=480 -f bench/svg_curves.awk OUT.curve.tsv >fig.svg
#
# A dashed vertical line marks 2% of the valid space (the goal's budget),
# dashed horizontal lines 95% and 98% of the optimum.
BEGIN {
    FS = "\t"
    W = 720; H = 440; L = 64; R = 170; T = 36; B = 52   # canvas and margins
    PW = W - L - R; PH = H - T - B
    split("#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #000000 #aec7e8", COLOR, " ")
    ns = 0; maxn = 1
}
NR == 1 { next }                                    # the header
{
    s = $1
    if (!(s in idx)) { idx[s] = ++ns; name[ns] = s; cnt[ns] = 0 }
    k = idx[s]; c = ++cnt[k]
    n[k, c] = $2; q1[k, c] = $3; med[k, c] = $4; q3[k, c] = $5
    if ($2 + 0 > maxn) maxn = $2 + 0
}
function x(v) { return L + PW * log(v) / log(maxn) }
function y(v) { return T + PH * (1 - v) }
function line(x1, y1, x2, y2, style) {
    printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1, x2, y2, style
}
function text(xx, yy, anchor, s, extra) {
    printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>%s</text>\n", xx, yy, anchor, extra, s
}
function axes(   v, d, m) {
    for (v = 0; v <= 1.0001; v += 0.1) {
        line(L, y(v), L + PW, y(v), "stroke=\"#e0e0e0\"")
        text(L - 6, y(v) + 4, "end", sprintf("%.1f", v), "")
    }
    for (d = 1; d <= maxn; d *= 10)
        for (m = 1; m <= 9 && d * m <= maxn; m++) {
            line(x(d * m), T, x(d * m), T + PH, "stroke=\"" (m == 1 ? "#d0d0d0" : "#f0f0f0") "\"")
            if (m == 1 || m == 2 || m == 5) text(x(d * m), T + PH + 16, "middle", d * m, "")
        }
    line(L, y(0.95), L + PW, y(0.95), "stroke=\"#888\" stroke-dasharray=\"4 3\"")
    line(L, y(0.98), L + PW, y(0.98), "stroke=\"#888\" stroke-dasharray=\"2 2\"")
    text(L + PW - 4, y(0.95) + 12, "end", "95%", "fill=\"#666\" font-size=\"10\"")
    text(L + PW - 4, y(0.98) - 3, "end", "98%", "fill=\"#666\" font-size=\"10\"")
    if (space > 0 && 0.02 * space >= 1 && 0.02 * space <= maxn) {
        line(x(0.02 * space), T, x(0.02 * space), T + PH, "stroke=\"#444\" stroke-dasharray=\"6 3\"")
        text(x(0.02 * space) + 4, y(0.03), "start", "2% of the space", "fill=\"#444\" font-size=\"10\"")
    }
    printf "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n", L, T, PW, PH
    text(L + PW / 2, H - 12, "middle", "evaluations spent (log scale)", "")
    printf "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">fraction of the optimum (median, quartiles)</text>\n", T + PH / 2
    text(L + PW / 2, 22, "middle", title, "font-weight=\"bold\"")
}
function strategy(k,   c, col) {
    col = COLOR[(k - 1) % 12 + 1]
    printf "<polygon fill=\"%s\" fill-opacity=\"0.13\" stroke=\"none\" points=\"", col
    for (c = 1; c <= cnt[k]; c++) printf "%.1f,%.1f ", x(n[k, c]), y(q3[k, c])
    for (c = cnt[k]; c >= 1; c--) printf "%.1f,%.1f ", x(n[k, c]), y(q1[k, c])
    printf "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col
    for (c = 1; c <= cnt[k]; c++) printf "%.1f,%.1f ", x(n[k, c]), y(med[k, c])
    printf "\"/>\n"
    line(L + PW + 12, T + 18 * k, L + PW + 36, T + 18 * k, "stroke=\"" col "\" stroke-width=\"3\"")
    text(L + PW + 42, T + 18 * k + 4, "start", name[k], "")
}
END {
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H
    printf "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H
    axes()
    for (k = 1; k <= ns; k++) strategy(k)
    printf "</svg>\n"
}
