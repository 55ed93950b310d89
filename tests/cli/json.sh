# json.sh - every command's --json: one JSON document on stdout that
# Python parses, with the keys the text output has; errors stay one line on
# stderr with nothing on stdout.
. "$(dirname "$0")/lib.sh"

# has_keys FILE KEY...: FILE parses as JSON, and the object (or each
# element of the array, of which there is at least one) has every KEY.
has_keys() {
    python3 - "$@" <<'PY' || fail "$1: $(head -c 300 "$1")"
import json, sys
doc = json.load(open(sys.argv[1]))
items = doc if isinstance(doc, list) else [doc]
assert items, "an empty array"
for item in items:
    missing = [k for k in sys.argv[2:] if k not in item]
    assert not missing, "missing %s in %s" % (missing, item)
PY
}

SPEC=kernels/gemm/gemm-c.json
P=M=256,N=256,K=256
bzcat bench/data/gemm-cpu-256-a1.csv.bz2 >"$TMP/rec.csv"
bzcat bench/data/gemm-cpu-grid.csv.bz2 >"$TMP/grid.csv"

"$KTUNE" --version --json >"$TMP/v.json"
has_keys "$TMP/v.json" version
expect_fail 2 "'--yaml' is not an option of 'ktune --version'" "$KTUNE" --version --yaml
pass "--version --json"

# --- import: every format
"$KTUNE" import csv "$TMP/rec.csv" --db "$TMP/rec.db" --json >"$TMP/i.json"
has_keys "$TMP/i.json" format file db rows added
[ "$(json_get "$TMP/i.json" rows)" = 480 ] || fail "import csv: $(cat "$TMP/i.json")"
"$KTUNE" import csv "$TMP/grid.csv" --db "$TMP/grid.db" --json >/dev/null
"$KTUNE" import kerneltuner tests/data/kerneltuner/vector_add_a4000.json --db "$TMP/k.db" \
    --json >"$TMP/i.json"
has_keys "$TMP/i.json" format rows ok added kernel device problem
[ "$(json_get "$TMP/i.json" added)" = 15 ] || fail "import kerneltuner: $(cat "$TMP/i.json")"
"$KTUNE" db export t4 --db "$TMP/k.db" >"$TMP/k.t4.json"
"$KTUNE" import t4 "$TMP/k.t4.json" --db "$TMP/t4.db" --json >"$TMP/i.json"
has_keys "$TMP/i.json" format rows ok added
[ "$(json_get "$TMP/i.json" ok)" = 15 ] || fail "import t4: $(cat "$TMP/i.json")"
printf '%s\n' "CREATE TABLE config (id INTEGER PRIMARY KEY, in_channels INT);" \
    "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);" \
    "INSERT INTO config VALUES (1, 8);" "INSERT INTO perf_db VALUES (1, 'S', 1, '1,4');" |
    sqlite3 "$TMP/gfx000_1.db"
"$KTUNE" import miopen "$TMP/gfx000_1.db" --db "$TMP/mi.db" --json >"$TMP/i.json"
has_keys "$TMP/i.json" format rows added solvers named rejected device
expect_fail 1 "not a Kernel Tuner cache" \
    "$KTUNE" import kerneltuner "$TMP/rec.csv" --db "$TMP/k.db" --json
[ ! -s "$TMP/out" ] || fail "a failed import printed on stdout: $(cat "$TMP/out")"
pass "import --json, every format"

# --- db: best and list as arrays of rows; the exports are JSON already
"$KTUNE" db best --db "$TMP/rec.db" --json >"$TMP/d.json"
has_keys "$TMP/d.json" device kernel problem key config status time_ms spread detail
"$KTUNE" db list --db "$TMP/k.db" --json >"$TMP/d.json"
has_keys "$TMP/d.json" created device kernel source_hash problem key config status \
    time_ms min_ms compile_ms energy_j power_w sm_clock_mhz reps detail
[ "$(grep -c '"status"' "$TMP/d.json")" = 15 ] || fail "db list --json: not 15 rows"
for what in t4:results t4-metadata:metadata kerneltuner:cache; do
    "$KTUNE" db export ${what%:*} --db "$TMP/k.db" --json >"$TMP/d.json"
    has_keys "$TMP/d.json" ${what#*:}
done
head -1 "$TMP/rec.csv" >"$TMP/empty.csv"
"$KTUNE" import csv "$TMP/empty.csv" --db "$TMP/empty.db" >/dev/null
for what in best list; do
    [ "$("$KTUNE" db $what --db "$TMP/empty.db" --json)" = "[]" ] || fail "db $what of nothing"
done
"$KTUNE" db export t4 --db "$TMP/empty.db" >"$TMP/d.json"
has_keys "$TMP/d.json" schema_version metadata results
expect_fail 2 "'export csv' writes CSV; 'db list --json'" \
    "$KTUNE" db export csv --db "$TMP/k.db" --json
expect_fail 1 "nothing in .* matches --kernel nope" \
    "$KTUNE" db best --db "$TMP/k.db" --kernel nope --json
[ ! -s "$TMP/out" ] || fail "a failed db best printed on stdout: $(cat "$TMP/out")"
pass "db best, list (streamed: a database may hold millions of rows) and the exports under --json"

# --- tune and benchmark on the recording, space
"$KTUNE" tune "$SPEC" --problem $P --strategy random --budget 5 --replay "$TMP/rec.db" \
    --json >"$TMP/t.json"
has_keys "$TMP/t.json" kernel problem device measured best statuses
"$KTUNE" benchmark "$SPEC" --problem $P --replay "$TMP/rec.db" --strategies random \
    --budgets 5 --seeds 2 --json >"$TMP/b.json"
has_keys "$TMP/b.json" kernel results
"$KTUNE" validate "$SPEC" --json >"$TMP/s.json"
has_keys "$TMP/s.json" file valid errors warnings count
"$KTUNE" space "$SPEC" --problem $P --count --stats --json >"$TMP/s.json"
has_keys "$TMP/s.json" file count cartesian groups nodes condition_evaluations seconds
"$KTUNE" space "$SPEC" --problem $P --list --json >"$TMP/l.json"
n=$("$KTUNE" space "$SPEC" --problem $P --count)
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); c=json.load(open(sys.argv[2]))
assert isinstance(a, list) and len(a) == int(sys.argv[3]) == c["count"], (len(a), c)
assert all(isinstance(x, dict) and x for x in a)' "$TMP/l.json" "$TMP/s.json" "$n" ||
    fail "space --list --json is not the array of the $n configurations"
pass "tune, benchmark, validate and space (count, stats, list) --json"

# --- a command added later says --json in its --help, or this fails
for cmd in $("$KTUNE" --help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
    "$KTUNE" $cmd --help | grep -q -- --json ||
        fail "'ktune $cmd --help' names no --json"
done
pass "every command's --help names --json"

# --- train, evaluate, predict
"$KTUNE" train --db "$TMP/grid.db" --kernel gemm --model knn --holdout 0.25 \
    --out "$TMP/m.ktm" --quiet --json >"$TMP/m.json"
has_keys "$TMP/m.json" model method kernel where train_samples test_samples inputs outputs
[ "$(json_get "$TMP/m.json" test_samples)" = 16 ] || fail "train: $(cat "$TMP/m.json")"
"$KTUNE" evaluate --model "$TMP/m.ktm" --unconstrained --beam 1,5 --json >"$TMP/e.json"
has_keys "$TMP/e.json" model kernel test_samples avg_accuracy perfect valid ms_per_query
"$KTUNE" predict --model "$TMP/m.ktm" --unconstrained --top 3 --problem M=80,N=90,K=150 \
    --json >"$TMP/p.json"
has_keys "$TMP/p.json" config key log_prob
[ "$(grep -c '"log_prob"' "$TMP/p.json")" = 3 ] || fail "predict --top 3: $(cat "$TMP/p.json")"
expect_fail 2 "is not a field of the model's problems" \
    "$KTUNE" predict --model "$TMP/m.ktm" --unconstrained --problem Q=1 --json
pass "train, evaluate and predict --json"
