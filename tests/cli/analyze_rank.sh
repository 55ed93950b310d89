# analyze_rank.sh - `ktune analyze`'s check of its ranking: costs that
# differ by less than the measurements' noise are a tie, said as such in
# the text and in --json; the noise comes from the repetitions a recording
# carries (a Kernel Tuner cache's "times", or the "spread" a trimmed copy
# kept), stored by the import as each row's spread.
. "$(dirname "$0")/lib.sh"

# Y costs 1.52x, X 1.5x: a 1.3 % difference, under the noise of
# repetitions spread by 5 %
{
    echo "created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail"
    for x in 1 2 4; do for y in 1 2; do for z in 0 1 2 3 4; do
        awk -v x=$x -v y=$y -v z=$z 'BEGIN { t = (x == 1 ? 1.5 : x == 2 ? 1 : 1.02) * (y == 1 ? 1.52 : 1) * (1 + z / 1000);
            printf "\"2026-11-25T00:00:00Z\",\"gpu\",\"tie\",\"h\",\"N=1\",\"X=%d,Y=%d,Z=%d\",\"ok\",%.9g,%.9g,0.05,0,,,0,10,\"\"\n", x, y, z, t, t }'
    done; done; done
} >"$TMP/tie.csv"
"$KTUNE" import csv "$TMP/tie.csv" --db "$TMP/a.db" >/dev/null
"$KTUNE" analyze --db "$TMP/a.db" --kernel tie --rounds 40 >"$TMP/out.txt"
grep -q '^importance ties with ablation within noise: ., ranked first, costs 1.5[02]0x' \
    "$TMP/out.txt" || fail "tie: $(cat "$TMP/out.txt")"
grep -Eq '^ +2\. [XY] +1\.5[02]0x +at [12] +sd 5\.2%$' "$TMP/out.txt" ||
    fail "the ablation's noise: $(cat "$TMP/out.txt")"
"$KTUNE" analyze --db "$TMP/a.db" --kernel tie --rounds 40 --json >"$TMP/out.json"
python3 - "$TMP/out.json" <<'PY' || fail "--json: $(cat "$TMP/out.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ablation_check"] == "tie" and j["ablation_agrees"] is False, j
assert abs(j["ablation"][1]["sd"] - 2 ** 0.5 * 0.05 / 1.349) < 1e-6, j["ablation"]
imp = j["models"]["time"]["importance"]
assert [i["feature"] for i in imp[:2]] in (["X", "Y"], ["Y", "X"]), imp
assert all(i["cost"] >= 1 and i["cost_sd"] >= 0 and i["worst"] for i in imp), imp
PY
pass "costs within twice the noise of their difference are a tie"

# the repetitions of a Kernel Tuner cache give each row its spread, as
# ktune's worker computes it; a trimmed copy's "spread" is read as it is
"$KTUNE" import kerneltuner tests/data/kerneltuner/fp32_a4000.json --db "$TMP/k.db" >/dev/null
"$KTUNE" db export csv --db "$TMP/k.db" >"$TMP/k.csv"
python3 - "$TMP/k.csv" tests/data/kerneltuner/fp32_a4000.json <<'PY' || fail "spread of times"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cache = json.load(open(sys.argv[2]))["cache"]
def q(xs, p):
    pos = p * (len(xs) - 1); lo = int(pos); hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
assert len(rows) == len(cache), len(rows)
for r in rows:
    key = ",".join(kv.split("=")[1] for kv in r["config"].split(","))
    t = sorted(cache[key]["times"])
    want = (q(t, 0.75) - q(t, 0.25)) / q(t, 0.5)
    assert abs(float(r["spread"]) - want) <= 1e-5 * max(want, 1e-3), (r, want)  # 6 digits
    assert int(r["reps"]) == len(t) and abs(float(r["min_ms"]) - t[0]) <= 1e-5 * t[0], r
PY
bzcat bench/data/public/pnpoly/RTX_3090.json.bz2 >"$TMP/pnpoly.json"
"$KTUNE" import kerneltuner "$TMP/pnpoly.json" --db "$TMP/p.db" >/dev/null
"$KTUNE" db export csv --db "$TMP/p.db" >"$TMP/p.csv"
python3 - "$TMP/p.csv" "$TMP/pnpoly.json" <<'PY' || fail "trimmed spread"
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
cache = json.load(open(sys.argv[2]))["cache"]
assert rows and all(r["spread"] != "" for r in rows), rows[:2]
spreads = sorted(e["spread"] for e in cache.values() if "spread" in e)
assert sorted(float(r["spread"]) for r in rows) == spreads
PY
pass "an import stores the spread of a recording's repetitions"
