# predict.sh - import a perf db, train the k-NN baseline, evaluate it with
# and without constraints, predict, and refuse a corrupt model file.
. "$(dirname "$0")/lib.sh"

# 60 problems of a solver whose best p0 is 1 below 64 channels, else 2.
{
    echo "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
    echo "  direction TEXT, in_channels INT, in_h INT, out_channels INT);"
    echo "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
    i=1
    while [ $i -le 60 ]; do
        c=$((i * 2)); a=1; [ $c -ge 64 ] && a=2
        echo "INSERT INTO config VALUES ($i, 'NCHW', 'FP32', 'F', $c, $((i % 7 + 7)), 64);"
        echo "INSERT INTO perf_db VALUES ($i, 'ToySolver', $i, '$a,4');"
        i=$((i + 1))
    done
} | sqlite3 "$TMP/gfx000_1.db"
"$KTUNE" import miopen "$TMP/gfx000_1.db" --db "$TMP/r.db" | grep -q "60 new" || fail "import"
pass "import a perf db"

"$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --where data_type=FP32 --model knn \
    --holdout 0.25 --seed 2 --out "$TMP/m.ktm" | grep -q "45 samples" || fail "train"
"$KTUNE" evaluate --model "$TMP/m.ktm" --unconstrained --beam 1,2 --json >"$TMP/e.json"
[ "$(json_get "$TMP/e.json" test_samples)" = 15 ] || fail "evaluate: $(cat "$TMP/e.json")"
grep -Eq '"1": (9[0-9]|100)' "$TMP/e.json" || fail "k-NN misses an easy rule: $(cat "$TMP/e.json")"
pass "train and evaluate"

# a space in which p0 must be 2 from 100 channels on
cat >"$TMP/toy.json" <<'JSON'
{"ConfigurationSpace": {
   "TuningParameters": [{"Name": "p0", "Type": "int", "Values": "[1, 2]"},
                        {"Name": "p1", "Type": "int", "Values": "[4, 8]"}],
   "Conditions": [{"Parameters": ["p0"], "Expression": "in_channels < 100 or p0 == 2"}],
   "ProblemParameters": [{"Name": "in_channels", "Default": 1}, {"Name": "in_h", "Default": 1},
                         {"Name": "out_channels", "Default": 1}, {"Name": "fp16", "Default": 0},
                         {"Name": "bf16", "Default": 0}, {"Name": "fwd", "Default": 1},
                         {"Name": "bwd", "Default": 0}, {"Name": "wrw", "Default": 0}]},
 "KernelSpecification": {"Language": "None", "KernelName": "ToySolver"}}
JSON
"$KTUNE" evaluate --model "$TMP/m.ktm" --spec "$TMP/toy.json" --beam 1 --json >"$TMP/c.json"
grep -q '"valid": 100' "$TMP/c.json" || fail "constrained: $(cat "$TMP/c.json")"
"$KTUNE" predict --model "$TMP/m.ktm" --spec "$TMP/toy.json" --top 5 \
    --problem in_channels=8,in_h=9,out_channels=64 >"$TMP/p.out"
head -n 1 "$TMP/p.out" | grep -q "^p0=1,p1=4 " || fail "predict: $(cat "$TMP/p.out")"
"$KTUNE" predict --model "$TMP/m.ktm" --spec "$TMP/toy.json" --top 5 \
    --problem in_channels=20,in_h=9,out_channels=64 >/dev/null
"$KTUNE" predict --model "$TMP/m.ktm" --spec "$TMP/toy.json" --top 5 \
    --problem layout=NCHW,data_type=FP32,direction=F,in_channels=120,in_h=9,out_channels=64 \
    >"$TMP/q.out"
grep -q "^p0=1" "$TMP/q.out" && fail "an invalid configuration was predicted: $(cat "$TMP/q.out")"
pass "constrained evaluate and predict"

# The sequence models: progress per epoch on stderr, the rule learnt, a
# constrained prediction, bad options refused.
for model in encdec hybrid2; do
    "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --where data_type=FP32 --model $model \
        --holdout 0.25 --seed 2 --hidden 16 --out "$TMP/s.ktm" \
        >/dev/null 2>"$TMP/s.err" || fail "train $model: $(cat "$TMP/s.err")"
    grep -q "^epoch 100  train loss" "$TMP/s.err" || fail "$model progress: $(cat "$TMP/s.err")"
    "$KTUNE" evaluate --model "$TMP/s.ktm" --spec "$TMP/toy.json" --beam 1,2 --json >"$TMP/e.json"
    grep -Eq '"1": (9[0-9]|100)' "$TMP/e.json" || fail "$model misses an easy rule: $(cat "$TMP/e.json")"
    "$KTUNE" predict --model "$TMP/s.ktm" --spec "$TMP/toy.json" --top 2 \
        --problem in_channels=120,in_h=9,out_channels=64 >"$TMP/q.out"
    head -n 1 "$TMP/q.out" | grep -q "^p0=2,p1=4 " || fail "$model predict: $(cat "$TMP/q.out")"
done
expect_fail 2 "hidden must be between 2 and 2048" "$KTUNE" train --db "$TMP/r.db" \
    --kernel ToySolver --model encdec --hidden 0 --out "$TMP/x.ktm"
expect_fail 2 "batch" "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --model encdec \
    --batch x --out "$TMP/x.ktm"
pass "sequence models"

head -c 100 "$TMP/m.ktm" >"$TMP/cut.ktm"
expect_fail 1 "cut.ktm: not a ktune model file" "$KTUNE" evaluate --model "$TMP/cut.ktm" \
    --unconstrained
expect_fail 1 "no space for kernel 'ToySolver'" "$KTUNE" evaluate --model "$TMP/m.ktm"
expect_fail 2 "unknown method .transformer." "$KTUNE" train --db "$TMP/r.db" --kernel ToySolver \
    --model transformer --out "$TMP/x.ktm"
pass "bad models and missing spaces"
