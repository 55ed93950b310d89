# report.sh - `ktune report`: the HTML page of a committed database (the
# H100 GEMMs with energy, bench/gpu/data) and of one made from a committed
# recording (tests/data/energy, with a failure and a time/energy front): each
# kind of figure is there, every figure has data points, nothing is fetched,
# strings are escaped; then,
# where Debian's chromium is installed, the page is loaded in it headless:
# no console message, no script error, and every figure's points laid out
# (the page's own inline check writes what the browser drew into the DOM).
. "$(dirname "$0")/lib.sh"
H100=bench/gpu/data/gemm-energy-h100.db
SPECS="--spec kernels/gemm/gemm-cuda.json --spec kernels/gemm/gemm-wgmma-f16-cuda.json
       --spec kernels/gemm/gemm-tma-f16-cuda.json"

# shellcheck disable=SC2086
"$KTUNE" report --db "$H100" $SPECS --output "$TMP/h100.html" >"$TMP/out"
grep -q "^report: wrote $TMP/h100.html (30 figures of 3 kernels)$" "$TMP/out" ||
    fail "report said: $(cat "$TMP/out")"
"$KTUNE" import csv tests/data/energy/saxpy-energy.csv --db "$TMP/s.db" >/dev/null
"$KTUNE" report --db "$TMP/s.db" --title 'saxpy <&>' --output "$TMP/s.html" --json >"$TMP/s.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d == {"output": sys.argv[2], "measurements": 36, "kernels": 1, "runs": 1,
             "figures": 9}, d' "$TMP/s.json" "$TMP/s.html" || fail "--json: $(cat "$TMP/s.json")"

# check_page FILE KINDS: the figures' kinds, counted ("3 convergence,
# ..."), are KINDS; each figure has data points; no address, no file or
# style fetched.
check_page() {
    kinds=$(grep -o '<figure class="fig" id="fig-[0-9]*" data-kind="[a-z]*"' "$1" |
        sed 's/.*data-kind="//; s/"$//' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}')
    [ "$kinds" = "$2" ] || fail "$1: figures $kinds, wanted $2"
    n=$(grep -c '<figure class="fig"' "$1")
    [ "$(grep -c '<figcaption data-points="[1-9]' "$1")" -eq "$n" ] ||
        fail "$1: a figure without data points: $(grep -o 'data-points="0"' "$1" | head -1)"
    ! grep -Eiq 'https?:|//www|src=|href=|url\(|@import|<link|<iframe' "$1" ||
        fail "$1 refers to something outside: $(grep -Eio 'https?:[^" ]*|src=[^ ]*|href=[^ ]*' "$1" | head -1)"
}
# H100: per kernel the failure classes, the roofline, importance for time
# and energy, the partial dependence on the top 3; per run (one each)
# convergence, front and map.
check_page "$TMP/h100.html" "3 convergence, 9 dependence, 3 front, 6 importance, 3 map, 3 roofline, 3 status"
[ "$(grep -c 'data-kind="roofline"' "$TMP/h100.html")" -eq 3 ] || fail "not 3 rooflines"
grep -q 'measured on an H100 80GB HBM3 on 2026-11-24 (docs/PERFORMANCE.md)' \
    "$TMP/h100.html" || fail "the roofline does not say where its ceilings come from"
grep -q 'Assumed: bytes are the compulsory traffic' "$TMP/h100.html" ||
    fail "the roofline does not say what it assumes of the bytes"
# maps: the 16-bit GEMMs' rows lie in their specs' spaces (MAP-Elites cells);
# the SGEMM's were measured before its space at 4096 was narrowed
[ "$(grep -c "the spec&#39;s BehaviourDimensions, binned as ktune tune --map bins them" \
    "$TMP/h100.html")" -eq 2 ] || fail "not 2 maps over the specs' behaviour dimensions"
grep -q "its spec&#39;s space for this problem holds none of the run&#39;s correct" \
    "$TMP/h100.html" || fail "the SGEMM map does not say why it uses no spec dimensions"
grep -q "Parameter importance for the energy per call" "$TMP/h100.html" ||
    fail "no importance for energy"
pass "report of the H100 database: 30 figures with data, rooflines with their sources, MAP-Elites maps, importance"
# saxpy: status, importance, dependence, convergence, front (its 6 points,
# tests/data/energy/README.md; none stored: test_report.c checks a stored
# one), map; no roofline (no ceilings for the made-up device)
check_page "$TMP/s.html" "1 convergence, 3 dependence, 1 front, 2 importance, 1 map, 1 status"
grep -q '6 configurations: none is stored; the report computed it' "$TMP/s.html" ||
    fail "the front is not the recording's 6 points"
grep -q '<h1>saxpy &lt;&amp;&gt;</h1>' "$TMP/s.html" || fail "the title is not escaped"
grep -q '<rect class="pt"[^>]*><title>compile_error: 1</title>' "$TMP/s.html" ||
    fail "the failure classes miss the compile error"
pass "report of a recording with a failure: 9 figures, its 6-point front, escaped title"

# Errors: one line each.
expect_fail 1 "no rows of kernel 'nosuch'" "$KTUNE" report --db "$TMP/s.db" --kernel nosuch \
    --output "$TMP/x.html"
[ ! -e "$TMP/x.html" ] && [ ! -e "$TMP/x.html.tmp" ] || fail "a failed report left a file"
expect_fail 1 "no such file|cannot" "$KTUNE" report --db "$TMP/none.db" --output "$TMP/x.html"
[ ! -e "$TMP/none.db" ] || fail "report created a database"
expect_fail 2 "runs must be 1 to 10000" "$KTUNE" report --db "$TMP/s.db" --runs 0
expect_fail 2 "unexpected argument 'extra'" "$KTUNE" report --db "$TMP/s.db" extra
expect_fail 2 "give --output FILE" "$KTUNE" report --db "$TMP/s.db" --output - --json
"$KTUNE" report --db "$TMP/s.db" --output - >"$TMP/stdout.html"
grep -q '^<!DOCTYPE html>' "$TMP/stdout.html" ||
    fail "--output - does not write the page to standard output"
"$KTUNE" report --db "$TMP/s.db" --no-analysis --output "$TMP/na.html" >/dev/null
check_page "$TMP/na.html" "1 convergence, 1 front, 1 map, 1 status"
pass "report errors: unknown kernel, no database, bad --runs, --json to stdout twice; --output -, --no-analysis"

# The headless browser.
if ! command -v chromium >/dev/null 2>&1; then
    echo "skip report in a browser: chromium is not installed (scripts/install-deps.sh installs it)"
    exit 0
fi
# browse FILE: load it in headless chromium; its DOM after the load event
# to FILE.dom, chromium's log to FILE.log.
browse() {
    HOME="$TMP" timeout 120 chromium --headless=new --disable-gpu --no-sandbox \
        --user-data-dir="$TMP/chromium" --enable-logging=stderr --v=0 \
        --dump-dom "file://$1" >"$1.dom" 2>"$1.log" ||
        fail "chromium failed on $1: $(tail -3 "$1.log")"
}
for page in "$TMP/h100.html" "$TMP/s.html"; do
    browse "$page"
    ! grep -q ':CONSOLE' "$page.log" || fail "$page: console: $(grep ':CONSOLE' "$page.log")"
    grep -q 'data-errors="0"' "$page.dom" || fail "$page: the check did not run, or errors"
    # each figure: drawn by the browser = data points written by ktune
    python3 - "$page.dom" <<'PY' || fail "$page: see above"
import re, sys
dom = open(sys.argv[1]).read()
figs = re.findall(r'<figure class="fig" id="(fig-\d+)" data-kind="(\w+)" data-drawn="(\d+)">'
                  r'.*?<figcaption data-points="(\d+)">', dom, re.S)
assert figs, "no figure was checked"
for fid, kind, drawn, pts in figs:
    assert int(drawn) > 0 and drawn == pts, (fid, kind, drawn, pts)
PY
done
pass "report in headless chromium: no console message, every figure drawn as written"
