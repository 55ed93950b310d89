# gemm.sh - the shipped CPU SGEMM through the whole tuner: every sampled
# configuration compiles, verifies against the reference at an odd shape,
# and a repeated run is answered from the database.
. "$(dirname "$0")/lib.sh"
SPEC=kernels/gemm/gemm-c.json

[ "$("$KTUNE" space "$SPEC" --problem M=256,N=256,K=256 --count)" = 480 ] ||
    fail "gemm space at 256^3 is not 480"
pass "gemm space --count"

run() {
    "$KTUNE" tune "$SPEC" --problem M=97,N=70,K=131 --strategy random --budget 10 \
        --seed 5 --db "$TMP/g.db" --cache "$TMP/cache" --json >"$1"
}
run "$TMP/g1.json"
[ "$(json_get "$TMP/g1.json" measured)" = 10 ] || fail "gemm: $(cat "$TMP/g1.json")"
[ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/g1.json")" = 10 ] ||
    fail "gemm: not every configuration verified: $(cat "$TMP/g1.json")"
pass "gemm: 10 random configurations measured and verified"
run "$TMP/g2.json"
[ "$(json_get "$TMP/g2.json" measured)" = 0 ] || fail "gemm rerun measured again"
[ "$(json_get "$TMP/g2.json" cached)" = 10 ] || fail "gemm rerun: $(cat "$TMP/g2.json")"
pass "gemm: the rerun measures nothing"
