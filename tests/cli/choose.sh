# choose.sh - `ktune train` without --model chooses the method by
# validation on the training part: it says which one won and how each
# candidate scored (text and --json), the same seed gives the same model
# file, and bad input is a one-line error.
. "$(dirname "$0")/lib.sh"

# 200 problems of a solver whose best p0 is 1 below 200 channels, else 2;
# in_h and out_channels are noise as wide as in_channels, which fools k-NN,
# not a tree.
{
    echo "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
    echo "  direction TEXT, in_channels INT, in_h INT, out_channels INT);"
    echo "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
    i=1
    while [ $i -le 200 ]; do
        c=$((i * 2)); a=1; [ $c -ge 200 ] && a=2
        echo "INSERT INTO config VALUES ($i, 'NCHW', 'FP32', 'F', $c, $((i * 7919 % 101 * 2 + 1)), $((i * 104729 % 97 * 2 + 1)));"
        echo "INSERT INTO perf_db VALUES ($i, 'ToySolver', $i, '$a,4');"
        i=$((i + 1))
    done
} | sqlite3 "$TMP/gfx000_1.db"
"$KTUNE" import miopen "$TMP/gfx000_1.db" --db "$TMP/r.db" | grep -q "200 new" || fail "import"

train() {
    "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --seed 3 --hidden 8 --epochs 30 --quiet "$@"
}
train --out "$TMP/a.ktm" >"$TMP/a.txt" || fail "train: $(cat "$TMP/a.txt")"
grep -q "^$TMP/a.ktm: xgboost on 160 samples" "$TMP/a.txt" || fail "not xgboost: $(cat "$TMP/a.txt")"
grep -Eq "^method chosen on 40 of the 160 training samples .*: knn [0-9.]+ / [0-9.]+ / -[0-9.]+, xgboost [0-9.]+ / [0-9.]+ / -[0-9.]+ \(chosen\), encdec .*, ensemble " \
    "$TMP/a.txt" || fail "choice: $(cat "$TMP/a.txt")"
pass "train without --model chooses the method that must win and says so"

train --model auto --out "$TMP/b.ktm" --json >"$TMP/b.json" || fail "train --json"
cmp -s "$TMP/a.ktm" "$TMP/b.ktm" || fail "the same seed gave another model"
grep -q "\"method\": \"xgboost\"," "$TMP/b.json" || fail "json: $(cat "$TMP/b.json")"
[ "$(json_get "$TMP/b.json" validation_samples)" = 40 ] || fail "json: $(cat "$TMP/b.json")"
tr -d ' \n' <"$TMP/b.json" | grep -Eq '"candidates":\[\{"method":"knn","top1":[0-9.]+,"top10":[0-9.]+,"chosen":false,"pooled":false,"loglik":-[0-9.e+-]+\},\{"method":"xgboost","top1":[0-9.]+,"top10":[0-9.]+,"chosen":true,"pooled":false,"loglik":-[0-9.e+-]+\}' ||
    fail "json candidates: $(cat "$TMP/b.json")"
"$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --model knn --out "$TMP/k.ktm" --json \
    >"$TMP/k.json" || fail "train knn"
tr -d ' \n' <"$TMP/k.json" | grep -q '"candidates":\[\]' || fail "a given method has candidates: $(cat "$TMP/k.json")"
"$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --model knn --out "$TMP/k.ktm" | \
    grep -q "chosen" && fail "a given method says it was chosen"
"$KTUNE" evaluate --model "$TMP/a.ktm" --unconstrained --beam 1 --json >"$TMP/e.json" ||
    fail "evaluate the chosen model"
pass "--model auto is the default, deterministic, and --json lists the candidates"

expect_fail 2 "^ktune: error: unknown method 'nosuch' \(available: auto, knn, " \
    "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --model nosuch --out "$TMP/x.ktm"
expect_fail 2 "^ktune: error: --seconds" \
    "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --seconds x --out "$TMP/x.ktm"
pass "bad input stays a one-line error"
"$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --where in_channels=2 --holdout 0 \
    --out "$TMP/x.ktm" | grep -q "^$TMP/x.ktm: knn on 1 samples" || fail "one sample"
pass "too few samples to validate on: knn, unscored"
