# map.sh - the MAP-Elites map on the real CPU SGEMM (a tiny, odd shape):
# `--strategy map_elites` reports the fastest configuration of each filled
# cell of the spec's BehaviourDimensions, the run's best among them; a
# rerun with the same seed repeats it from the database; `--map` gives any
# strategy's map; a bad dimension is a one-line error naming where.
. "$(dirname "$0")/lib.sh"
SPEC=kernels/gemm/gemm-c.json
tune() {
    "$KTUNE" tune "$SPEC" --problem M=40,N=33,K=50 --seed 5 --db "$TMP/t.db" \
        --cache "$TMP/cache" "$@"
}

tune --strategy map_elites --budget 6 --json >"$TMP/me.json"
[ "$(json_get "$TMP/me.json" measured)" = 6 ] || fail "map_elites: $(cat "$TMP/me.json")"
filled=$(sed -n 's/^    "filled": \([0-9]*\),*$/\1/p' "$TMP/me.json")
cells=$(grep -c '^        "cell": ' "$TMP/me.json" || true)
[ -n "$filled" ] && [ "$filled" -ge 1 ] && [ "$filled" -le 6 ] && [ "$cells" = "$filled" ] ||
    fail "map_elites: no map of 1-6 filled cells: $(cat "$TMP/me.json")"
grep -q '"name": "register tile"' "$TMP/me.json" || fail "map_elites: dimensions missing"
# the first time_ms is the best's, the next the default's, then the elites'
awk '/"time_ms":/ { gsub(/[",]/, "", $2); t[n++] = $2 + 0 }
     END { m = t[2]; for (i = 3; i < n; i++) if (t[i] < m) m = t[i]; exit !(m == t[0]) }' \
    "$TMP/me.json" || fail "map_elites: the fastest elite is not the run's best"
pass "map_elites: $filled cells of the SGEMM's map filled, its best among them"

tune --strategy map_elites --budget 6 --json >"$TMP/me2.json"
[ "$(json_get "$TMP/me2.json" measured)" = 0 ] || fail "map_elites: the rerun measured again"
[ "$(grep -A100000 '"map"' "$TMP/me.json")" = "$(grep -A100000 '"map"' "$TMP/me2.json")" ] ||
    fail "map_elites: the rerun's map differs"
tune --strategy map_elites --budget 6 >"$TMP/me.txt"
grep -Eq "^map      $filled of [0-9]+ cells filled over register tile \(4 bins\)" "$TMP/me.txt" ||
    fail "map_elites: text map: $(cat "$TMP/me.txt")"
pass "map_elites: a rerun answers from the database with the same map, as text too"

tune --strategy random --budget 2 --map >"$TMP/rnd.txt"
grep -q "cells filled over register tile" "$TMP/rnd.txt" || fail "--map: $(cat "$TMP/rnd.txt")"
pass "--map reports any strategy's map"

cp kernels/gemm/gemm.c kernels/gemm/gemm_ref.c "$TMP/"
# without BehaviourDimensions: the fallbacks, said so (same kernel: the
# database answers)
sed 's/"BehaviourDimensions"/"NoDimensions"/' "$SPEC" >"$TMP/plain.json"
SPEC=$TMP/plain.json tune --strategy random --budget 2 --map >"$TMP/plain.txt" 2>/dev/null
grep -q "cells filled over MR (4 bins), NR (4 bins) (fallbacks: the spec names no" \
    "$TMP/plain.txt" || fail "fallback: $(cat "$TMP/plain.txt")"
pass "a spec without BehaviourDimensions gets the widest parameters, and says so"
sed 's/"MR \* NR"/"MR * QQ"/' "$SPEC" >"$TMP/bad.json"
expect_fail 1 'bad.json: ConfigurationSpace.BehaviourDimensions\[0\].Expression: in "MR \* QQ": column 6' \
    "$KTUNE" tune "$TMP/bad.json" --strategy map_elites --db "$TMP/b.db"
sed 's/"MR \* NR"/"MR * NR \/\/ (THREADS - 1)"/' "$SPEC" >"$TMP/div.json"
expect_fail 1 "behaviour dimension 'register tile' cannot be evaluated for MR=.*THREADS=1" \
    "$KTUNE" tune "$TMP/div.json" --strategy map_elites --db "$TMP/b.db" --cache "$TMP/cache"
pass "a bad behaviour dimension is a one-line error naming where"
