# strategies.sh - every search strategy tunes the real CPU SGEMM (a tiny,
# odd shape) through `ktune tune --strategy NAME`: it measures exactly its
# budget, every configuration verifies, and a rerun with the same seed
# proposes the same configurations, so the database answers all of them.
# model_guided gets a budget past its random start, so its model proposes.
. "$(dirname "$0")/lib.sh"
SPEC=kernels/gemm/gemm-c.json

for sb in local_search:6 annealing:6 genetic:6 diff_evo:6 pso:6 model_guided:14 ensemble:8; do
    s=${sb%:*} b=${sb#*:}
    run() {
        "$KTUNE" tune "$SPEC" --problem M=40,N=33,K=50 --strategy "$s" --budget "$b" \
            --seed 3 --db "$TMP/$s.db" --cache "$TMP/cache" --json >"$1"
    }
    run "$TMP/$s.1.json"
    [ "$(json_get "$TMP/$s.1.json" measured)" = "$b" ] || fail "$s: $(cat "$TMP/$s.1.json")"
    [ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/$s.1.json")" = "$b" ] ||
        fail "$s: not every configuration verified: $(cat "$TMP/$s.1.json")"
    run "$TMP/$s.2.json"
    [ "$(json_get "$TMP/$s.2.json" measured)" = 0 ] ||
        fail "$s: the rerun with the same seed measured again"
    pass "$s: $b configurations of the SGEMM measured; the rerun repeats them"
done

# A warm start: in a database that knows another shape, the default strategy
# first tries that shape's winner; --warm 0 starts from scratch.
"$KTUNE" tune "$SPEC" --problem M=44,N=33,K=50 --budget 5 --seed 3 --db "$TMP/local_search.db" \
    --cache "$TMP/cache" --json >"$TMP/w.json"
[ "$(json_get "$TMP/w.json" warm_starts)" = 1 ] || fail "warm start: $(cat "$TMP/w.json")"
"$KTUNE" tune "$SPEC" --problem M=48,N=33,K=50 --budget 5 --seed 3 --db "$TMP/local_search.db" \
    --cache "$TMP/cache" --warm 0 --json >"$TMP/w0.json"
[ "$(json_get "$TMP/w0.json" warm_starts)" = 0 ] || fail "--warm 0: $(cat "$TMP/w0.json")"
pass "warm start from another shape's winner; --warm 0 starts cold"
