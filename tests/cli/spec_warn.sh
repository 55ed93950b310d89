# spec_warn.sh - the warnings of specs that the library loads on its own
# (an import's folder of MIOpen solver specs, the spec of a constrained
# evaluation) reach the caller's warning function: the command prints
# each one once, as `ktune space` does for the same file.
. "$(dirname "$0")/lib.sh"

# 20 problems of one solver; its spec has a key the schema does not know.
{
    echo "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
    echo "  direction TEXT, in_channels INT, in_h INT, out_channels INT);"
    echo "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
    i=1
    while [ $i -le 20 ]; do
        echo "INSERT INTO config VALUES ($i, 'NCHW', 'FP32', 'F', $((i * 4)), 7, 64);"
        echo "INSERT INTO perf_db VALUES ($i, 'ToySolver', $i, '$((i % 2 + 1)),4');"
        i=$((i + 1))
    done
} | sqlite3 "$TMP/gfx000_1.db"
mkdir "$TMP/specs"
cat >"$TMP/specs/ToySolver.json" <<'JSON'
{"ConfigurationSpace": {
   "TuningParameters": [{"Name": "p0", "Type": "int", "Values": "[1, 2]"},
                        {"Name": "p1", "Type": "int", "Values": "[4, 8]"}],
   "Conditions": [],
   "ProblemParameters": [{"Name": "in_channels", "Default": 1}, {"Name": "in_h", "Default": 1},
                         {"Name": "out_channels", "Default": 1}, {"Name": "fp16", "Default": 0},
                         {"Name": "bf16", "Default": 0}, {"Name": "fwd", "Default": 1},
                         {"Name": "bwd", "Default": 0}, {"Name": "wrw", "Default": 0}]},
 "KernelSpecification": {"Language": "None", "KernelName": "ToySolver"},
 "Note": "a key the schema does not know"}
JSON
WARNING="ktune: $TMP/specs/ToySolver.json: warning: unknown key 'Note' ignored"

"$KTUNE" import miopen "$TMP/gfx000_1.db" --specs "$TMP/specs" --db "$TMP/r.db" \
    >"$TMP/out" 2>"$TMP/err" || fail "import: $(cat "$TMP/err")"
grep -q "20 new" "$TMP/out" || fail "import: $(cat "$TMP/out")"
[ "$(cat "$TMP/err")" = "$WARNING" ] || fail "import's spec warning: '$(cat "$TMP/err")'"
pass "import miopen --specs: the solver spec's warning, once"

"$KTUNE" train --db "$TMP/r.db" --kernel ToySolver --model knn --holdout 0.25 --seed 2 \
    --out "$TMP/m.ktm" >/dev/null 2>"$TMP/err" || fail "train: $(cat "$TMP/err")"
"$KTUNE" evaluate --model "$TMP/m.ktm" --spec "$TMP/specs/ToySolver.json" --beam 1 \
    >"$TMP/out" 2>"$TMP/err" || fail "evaluate: $(cat "$TMP/err")"
[ "$(cat "$TMP/err")" = "$WARNING" ] || fail "evaluate's spec warning: '$(cat "$TMP/err")'"
pass "evaluate --spec: the spec's warning, once"
