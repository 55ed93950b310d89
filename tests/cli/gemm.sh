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

# Unseen shapes: train k-NN on two tuned shapes (the same seed draws the
# same configurations, so nothing new compiles), then at a third shape
# measure only the top predictions, or continue from them with the default
# strategy.  Every measured configuration must verify.
"$KTUNE" tune "$SPEC" --problem M=64,N=100,K=200 --strategy random --budget 10 \
    --seed 5 --db "$TMP/g.db" --cache "$TMP/cache" >/dev/null
"$KTUNE" train --db "$TMP/g.db" --kernel gemm --holdout 0 --out "$TMP/g.ktm" |
    grep -q "knn on 2 samples of gemm (0 held out)" || fail "train on the tuned shapes"
# Two tuned shapes may share their best configuration, and then fewer than
# three valid configurations can be built from their tokens: predict must
# measure exactly what `ktune predict` lists.
n=$("$KTUNE" predict --model "$TMP/g.ktm" --spec "$SPEC" --problem M=80,N=90,K=150 --top 3 |
    wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "ktune predict listed $n configurations"
"$KTUNE" tune "$SPEC" --problem M=80,N=90,K=150 --strategy predict --model "$TMP/g.ktm" \
    --top 3 --db "$TMP/p.db" --cache "$TMP/cache" --json >"$TMP/p.json"
[ "$(json_get "$TMP/p.json" measured)" = "$n" ] || fail "predict: $(cat "$TMP/p.json")"
[ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/p.json")" = "$n" ] ||
    fail "predict: a prediction did not verify: $(cat "$TMP/p.json")"
grep -q '"default": null' "$TMP/p.json" || fail "predict measured the default"
"$KTUNE" tune "$SPEC" --problem M=80,N=90,K=150 --strategy predict --model "$TMP/g.ktm" \
    --top 3 --db "$TMP/p.db" --cache "$TMP/cache" >"$TMP/p.out"
grep -q "^evaluated $n (0 measured now, $n from the database)" "$TMP/p.out" &&
    grep -q "not measured (only the predictions were)" "$TMP/p.out" ||
    fail "predict text: $(cat "$TMP/p.out")"
pass "gemm: --strategy predict measures only the top predictions ($n)"
"$KTUNE" tune "$SPEC" --problem M=80,N=90,K=150 --strategy predict+search \
    --model "$TMP/g.ktm" --top 2 --budget 5 --db "$TMP/ps.db" --cache "$TMP/cache" \
    --json >"$TMP/ps.json"
[ "$(json_get "$TMP/ps.json" measured)" = 5 ] || fail "predict+search: $(cat "$TMP/ps.json")"
[ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/ps.json")" = 5 ] ||
    fail "predict+search: not every configuration verified: $(cat "$TMP/ps.json")"
pass "gemm: --strategy predict+search continues from the predictions"
# The performance model learns from every measurement of the two shapes
# and ranks whole configurations.
"$KTUNE" train --db "$TMP/g.db" --kernel gemm --model cost --holdout 0 --epochs 30 \
    --out "$TMP/c.ktm" | grep -q "cost on 20 samples of gemm" || fail "train cost"
"$KTUNE" tune "$SPEC" --problem M=80,N=90,K=150 --strategy predict --model "$TMP/c.ktm" \
    --top 3 --db "$TMP/pc.db" --cache "$TMP/cache" --json >"$TMP/pc.json"
[ "$(json_get "$TMP/pc.json" measured)" = 3 ] || fail "predict cost: $(cat "$TMP/pc.json")"
[ "$(sed -n 's/^    "ok": \([0-9]*\),*$/\1/p' "$TMP/pc.json")" = 3 ] ||
    fail "predict cost: a prediction did not verify: $(cat "$TMP/pc.json")"
expect_fail 2 "give --holdout 0" "$KTUNE" train --db "$TMP/g.db" --kernel gemm --model cost \
    --out "$TMP/c2.ktm"
pass "gemm: a performance model trained on every measurement predicts 3 valid configurations"
expect_fail 2 "need --model" "$KTUNE" tune "$SPEC" --strategy predict
expect_fail 2 "need --model" "$KTUNE" tune "$SPEC" --model "$TMP/g.ktm"
expect_fail 2 "top is for --strategy predict" "$KTUNE" tune "$SPEC" --top 3
expect_fail 1 "cannot open '$TMP/none.ktm'|$TMP/none.ktm" \
    "$KTUNE" tune "$SPEC" --strategy predict --model "$TMP/none.ktm" --db "$TMP/p.db"
pass "gemm: predict's options are checked"
