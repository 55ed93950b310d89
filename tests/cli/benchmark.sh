# benchmark.sh - `ktune benchmark` on a recorded exhaustive space (the CPU
# SGEMM at 256^3, 480 configurations): every row's fractions lie in (0, 1],
# brute force over the whole space always finds the optimum and does not
# before its end, the same seeds give the same table, --json parses, --svg
# draws one curve per strategy, and bad options are usage errors.
. "$(dirname "$0")/lib.sh"
SPEC=kernels/gemm/gemm-c.json
bzcat bench/data/gemm-cpu-256-a1.csv.bz2 >"$TMP/rec.csv"
"$KTUNE" import csv "$TMP/rec.csv" --db "$TMP/rec.db" >/dev/null
bench() {
    "$KTUNE" benchmark "$SPEC" --replay "$TMP/rec.db" --problem M=256,N=256,K=256 \
        --strategies random,local_search,brute_force --budgets 10,25,1000 --seeds 6 "$@"
}
bench --svg "$TMP/c.svg" >"$TMP/t1.txt"
bench >"$TMP/t2.txt"
cmp -s "$TMP/t1.txt" "$TMP/t2.txt" || fail "two runs differ: $(diff "$TMP/t1.txt" "$TMP/t2.txt")"
grep -q "^gemm: 480 recorded configurations" "$TMP/t1.txt" || fail "$(cat "$TMP/t1.txt")"
awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ && ($3 <= 0 || $3 > 1 || $4 <= 0 || $4 > 1) { bad = 1 }
     END { exit bad }' "$TMP/t1.txt" || fail "a fraction outside (0, 1]: $(cat "$TMP/t1.txt")"
grep -Eq '^brute_force +480 +1\.000 +1\.000 +1\.00 ' "$TMP/t1.txt" ||
    fail "brute force over the whole space: $(cat "$TMP/t1.txt")"
grep -Eq '^brute_force +10 .* 0\.00 ' "$TMP/t1.txt" ||
    fail "brute force found the optimum in 10: $(cat "$TMP/t1.txt")"
[ "$(grep -c '<polyline' "$TMP/c.svg")" = 3 ] || fail "svg: $(head -c 300 "$TMP/c.svg")"
pass "benchmark: a repeatable table, brute force exact at the full space, an svg"

bench --json >"$TMP/b.json"
python3 - "$TMP/b.json" <<'PY' || fail "json: $(cat "$TMP/b.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["space_size"] == 480 and len(d["results"]) == 9, d
assert all(0 < r["mean"] <= 1 for r in d["results"])
PY
pass "benchmark --json"

expect_fail 2 'budgets wants ascending' bench --budgets 50,10
expect_fail 2 "unknown strategy 'bogus'" "$KTUNE" benchmark "$SPEC" --replay "$TMP/rec.db" \
    --strategies bogus
expect_fail 2 'replay DB is required' "$KTUNE" benchmark "$SPEC"
expect_fail 1 'no such file|cannot open' "$KTUNE" benchmark "$SPEC" --replay "$TMP/none.db"
pass "benchmark: bad options are usage errors, a missing recording an error"
