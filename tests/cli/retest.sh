# retest.sh - `ktune db retest A B`: two recordings of the same
# configurations read against each other.  On small databases whose figures
# are worked out here (Python): the pairs (ok in both; a failure, a
# configuration in one only and a reading without energy left out), the
# root mean square of the pairs' relative difference, the median offset,
# the spread and the R-squared ceiling, in text and --json; pairs of two
# problems, no pair at all and a missing argument are one-line errors.
. "$(dirname "$0")/lib.sh"

# db NAME ROWS: a database of CSV rows "problem,config,status,time_ms,energy_j,power_w".
db() {
    { echo "created,device,kernel,source_hash,problem,config,status,time_ms,energy_j,power_w"
      printf '%s\n' "$2" | sed 's/^/2026-11-22T10:00:00Z,GPU X,gemm,abc,/'
    } >"$TMP/$1.csv"
    rm -f "$TMP/$1.db"
    "$KTUNE" import csv "$TMP/$1.csv" --db "$TMP/$1.db" >/dev/null
}
db a "N=8,A=1,ok,2,10,500
N=8,A=2,ok,4,21,525
N=8,A=3,ok,3,12,400
N=8,A=4,ok,5,30,600
N=8,A=5,crash,,,
N=8,A=6,ok,1,5,500"
db b "N=8,A=1,ok,2.2,11,500
N=8,A=2,ok,3.8,20,526
N=8,A=3,ok,3,,
N=8,A=4,ok,5.1,27,529
N=8,A=5,ok,2,9,450
N=8,A=7,ok,1,5,500"

"$KTUNE" db retest "$TMP/a.db" "$TMP/b.db" --json >"$TMP/r.json"
python3 - "$TMP/r.json" <<'PY' || fail "retest --json: $(cat "$TMP/r.json")"
import json, math, statistics, sys
got = json.load(open(sys.argv[1]))
pairs = {"time": [(2, 2.2), (4, 3.8), (3, 3), (5, 5.1)],
         "energy": [(10, 11), (21, 20), (30, 27)],
         "power": [(500, 500), (525, 526), (600, 529)]}
for what, ab in pairs.items():
    d = [2 * (a - b) / (a + b) for a, b in ab]
    both = [v for p in ab for v in p]
    rms = math.sqrt(sum(x * x for x in d) / len(d))
    spread = statistics.stdev(both) / statistics.mean(both)
    want = {"pairs": len(ab), "rms": rms,
            "offset": statistics.median(a / b for a, b in ab) - 1,
            "spread": spread, "r2_ceiling": 1 - rms * rms / 2 / spread ** 2}
    g = got[what]
    assert g["pairs"] == want["pairs"], (what, g, want)
    for k in ("rms", "offset", "spread", "r2_ceiling"):
        assert abs(g[k] - want[k]) < 1e-12, (what, k, g[k], want[k])
assert got["a"].endswith("a.db") and got["b"].endswith("b.db"), got
PY
"$KTUNE" db retest "$TMP/a.db" "$TMP/b.db" >"$TMP/r.txt"
grep -q '^energy        3      8.67%    +5.00%    41.01%       0.978$' "$TMP/r.txt" ||
    fail "retest text: $(cat "$TMP/r.txt")"
grep -q "^one time reading's noise: " "$TMP/r.txt" || fail "retest text: $(cat "$TMP/r.txt")"
pass "retest: the pairs ok in both, their noise, offset, spread and R2 ceiling (text and --json)"

db c "N=8,A=1,ok,2,10,500
N=16,A=1,ok,8,40,500"
db d "N=8,A=1,ok,2,10,500
N=16,A=1,ok,8,40,500"
expect_fail 1 "retest .*c.db .*d.db: the configurations in both are of more than one device, kernel and problem \(GPU X, gemm, N=(8|16); GPU X, gemm, N=(8|16)\): choose one$" \
    "$KTUNE" db retest "$TMP/c.db" "$TMP/d.db"
[ "$(wc -l <"$TMP/err")" -le 2 ] || fail "two problems: $(cat "$TMP/err")"
"$KTUNE" db retest "$TMP/c.db" "$TMP/d.db" --problem N=16 --json >"$TMP/r16.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["time"]["pairs"] == 1 and d["time"]["r2_ceiling"] is None, d' \
    "$TMP/r16.json" || fail "one problem: $(cat "$TMP/r16.json")"
expect_fail 1 "no configuration is ok in both recordings" \
    "$KTUNE" db retest "$TMP/a.db" "$TMP/d.db" --problem N=16
expect_fail 2 "retest needs A.db and B.db" "$KTUNE" db retest "$TMP/a.db"
pass "retest: pairs of two problems, no pair and a missing database are one-line errors; --problem narrows"
