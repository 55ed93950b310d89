# analyze.sh - `ktune analyze`: models of time and energy, importance and
# ablation of an imported recording, as text and --json; bad input is one
# line and the documented exit status.
. "$(dirname "$0")/lib.sh"

DB=$TMP/a.db
"$KTUNE" import kerneltuner tests/data/kerneltuner/vector_add_a4000.json --db "$DB" >/dev/null
# a recording with energy: time = (1 + |A - 2|) (1 + B / 10), power 100 + 20 B
{
    echo "created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail"
    for a in 0 1 2 3 4; do for b in 1 2 3 4; do
        awk -v a=$a -v b=$b 'BEGIN { t = (1 + (a > 2 ? a - 2 : 2 - a)) * (1 + b / 10); p = 100 + 20 * b;
            printf "\"2026-11-24T00:00:00Z\",\"gpu\",\"syn\",\"h\",\"N=1\",\"A=%d,B=%d\",\"ok\",%g,%g,0,0,%g,%g,0,10,\"\"\n", a, b, t, t, t * p / 1000, p }'
    done; done
} >"$TMP/syn.csv"
"$KTUNE" import csv "$TMP/syn.csv" --db "$DB" >/dev/null

"$KTUNE" analyze --db "$DB" --kernel syn --rounds 40 >"$TMP/out.txt"
grep -Eq '^syn on (imported[|])?gpu: 20 configurations, 1 problem, 2 features' "$TMP/out.txt" ||
    fail "text header: $(head -n 1 "$TMP/out.txt")"
grep -Eq '^energy +20 ' "$TMP/out.txt" || fail "no energy model: $(cat "$TMP/out.txt")"
grep -q '^importance agrees with ablation: A, ranked first' "$TMP/out.txt" ||
    fail "ablation: $(cat "$TMP/out.txt")"
pass "analyze prints the models, the importance and the ablation"

"$KTUNE" analyze --db "$DB" --kernel syn --rounds 40 --top 1 --json >"$TMP/out.json"
python3 - "$TMP/out.json" <<'PY' || fail "--json: $(cat "$TMP/out.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kernel"] == "syn" and j["rows"] == 20 and j["features"] == ["A", "B"], j
assert set(j["models"]) == {"time", "energy", "power"}, j["models"].keys()
t = j["models"]["time"]
assert t["rows"] == 20 and t["r2"] > 0.5 and -1 <= t["spearman"] <= 1 and t["mape"] >= 0
assert t["importance"][0]["feature"] == "A"
assert abs(sum(i["share"] for i in t["importance"]) - 1) < 1e-9
assert [(i["a"], i["b"]) for i in t["interactions"]] == [("A", "B")]
assert list(t["dependence"]) == ["A"] and len(t["dependence"]["A"]) == 5
assert j["models"]["power"]["importance"][0]["feature"] == "B"
a = j["ablation"][0]
assert (a["feature"], a["rank"], a["worst"]) == ("A", 1, "0") and abs(a["cost"] - 3) < 1e-9, a
assert j["ablation_agrees"] is True
PY
pass "analyze --json has fits, importance, interactions, dependence and ablation"

"$KTUNE" analyze --db "$DB" --kernel vector_add --rounds 20 --json >"$TMP/va.json"
python3 - "$TMP/va.json" <<'PY' || fail "vector_add: $(cat "$TMP/va.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rows"] == 15 and list(j["models"]) == ["time"], j
PY
pass "a recording without energy is analysed on time alone"

# without derived features, as before they existed: the same rows, a model
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --derived 0 --target time |
    grep -Eq '^time +20 ' || fail "--derived 0"
pass "analyze --derived 0 models the parameters alone"

# every row weighing the same, as before weights: the same rows, a model
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --derived 0 --no-weights --target time |
    grep -Eq '^time +20 ' || fail "--no-weights"
pass "analyze --no-weights models with every row weighing the same"

# a reading noise: the ablation's header says it, the JSON carries it
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --target time --reading-noise 0.02 |
    grep -q '^ablation .*, with 2.0% a reading between runs)' || fail "--reading-noise text"
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --target time --reading-noise 0.02 \
    --json | python3 -c 'import json, sys; assert json.load(sys.stdin)["reading_noise"] == 0.02' ||
    fail "--reading-noise json"
pass "analyze --reading-noise widens the ablation's noise and says so"

# repeated cross-validations: the header and the sd column say so, the JSON carries both
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --target time --repeats 3 >"$TMP/rep.txt" ||
    fail "--repeats"
grep -q '5-fold cross-validation, 3 times with other folds (means)$' "$TMP/rep.txt" &&
    grep -Eq '^model +rows +R2 +\+-sd ' "$TMP/rep.txt" || fail "--repeats text"
"$KTUNE" analyze --db "$DB" --kernel syn --rounds 20 --target time --repeats 3 --json |
    python3 -c 'import json, sys; j = json.load(sys.stdin); assert j["repeats"] == 3 and j["models"]["time"]["r2_sd"] >= 0' ||
    fail "--repeats json"
pass "analyze --repeats averages cross-validations with other folds"

expect_fail 1 "^ktune: error: no ok measurement of kernel 'nosuch' in the database$" \
    "$KTUNE" analyze --db "$DB" --kernel nosuch
expect_fail 1 "0 of 15 rows have a reading of energy" \
    "$KTUNE" analyze --db "$DB" --kernel vector_add --target time,energy
expect_fail 1 "has 15 ok configurations; an analysis with 8 folds needs at least 16" \
    "$KTUNE" analyze --db "$DB" --kernel vector_add --folds 8
expect_fail 1 "no such file" "$KTUNE" analyze --db "$TMP/none.db" --kernel syn
expect_fail 2 "unknown target 'joules'" "$KTUNE" analyze --db "$DB" --kernel syn --target joules
expect_fail 2 "kernel NAME is required" "$KTUNE" analyze --db "$DB"
expect_fail 2 "folds" "$KTUNE" analyze --db "$DB" --kernel syn --folds 1
expect_fail 2 "derived" "$KTUNE" analyze --db "$DB" --kernel syn --derived 1001
expect_fail 2 "repeats" "$KTUNE" analyze --db "$DB" --kernel syn --repeats 21
expect_fail 2 "reading-noise must be at most 0.5, not '0.6'" \
    "$KTUNE" analyze --db "$DB" --kernel syn --reading-noise 0.6
expect_fail 2 "reading-noise must be at least 0" \
    "$KTUNE" analyze --db "$DB" --kernel syn --reading-noise -1
pass "bad input: one line, exit 1 (failure) or 2 (usage)"
