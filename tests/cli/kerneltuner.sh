# kerneltuner.sh - `ktune import kerneltuner`: real Kernel Tuner cache files
# (tests/data/kerneltuner/) are stored with device, kernel, problem, status
# and times; a bad file gets one line and changes nothing in a database.
. "$(dirname "$0")/lib.sh"

DATA=tests/data/kerneltuner
sum() { cksum <"$1"; }
rows() { "$KTUNE" db export csv --db "$1" | tail -n +2 | wc -l; }

# --- the two fixtures: counts, keys and a value
"$KTUNE" import kerneltuner "$DATA/vector_add_a4000.json" --db "$TMP/k.db" >"$TMP/out"
grep -q "read 15 entries (15 with a time) of kernel vector_add on NVIDIA RTX A4000, problem 'ProblemSize_0=100'; 15 new" "$TMP/out" ||
    fail "vector_add import said: $(cat "$TMP/out")"
"$KTUNE" import kerneltuner "$DATA/fp32_a4000.json" --db "$TMP/k.db" >"$TMP/out"
grep -q "read 10 entries .* problem 'ProblemSize_0=48,ProblemSize_1=64'; 10 new" "$TMP/out" ||
    fail "fp32 import said: $(cat "$TMP/out")"
[ "$(rows "$TMP/k.db")" -eq 25 ] || fail "25 rows wanted"
"$KTUNE" db export csv --db "$TMP/k.db" >"$TMP/k.csv"
grep -q '"NVIDIA RTX A4000","vector_add",.*,"ProblemSize_0=100","block_size_x=768","ok",0.0317577,0.02368,,450.441,' "$TMP/k.csv" ||
    fail "the fastest vector_add row: $(grep block_size_x=768 "$TMP/k.csv")"
grep -q '"block_size_x=1024,nr_outer=64,nr_inner=1024,nvml_gr_clock=1905","ok",76.957.*,138.871,' "$TMP/k.csv" ||
    fail "an fp32 row: $(grep nvml_gr_clock=1905 "$TMP/k.csv")"
"$KTUNE" import kerneltuner "$DATA/vector_add_a4000.json" --db "$TMP/k.db" | grep -q "; 0 new" ||
    fail "importing again added rows"
pass "Kernel Tuner caches import with device, kernel, problem and times in ms"

# --- failure markers, old layout (a marker in 'time') and an open cache
cat >"$TMP/marks.json" <<'JSON'
{"device_name": "GPU X", "kernel_name": "k", "tune_params_keys": ["a", "b"],
 "tune_params": {"a": [1, 2], "b": [true, false]},
 "cache": {
 "1,True": {"a": 1, "b": true, "time": 2.5, "times": [2.4, 2.6], "compile_time": 300},
 "1,False": {"a": 1, "b": false, "time": "InvalidConfig"},
 "2,True": {"a": 2, "b": true, "time": 1e20, "__error__": "CompilationFailedConfig"},
 "2,False": {"a": 2, "b": false, "time": "RuntimeFailedConfig"},
JSON
"$KTUNE" import kerneltuner "$TMP/marks.json" --db "$TMP/m.db" | grep -q "read 4 entries (1 with a time)" ||
    fail "the open cache with markers was not read"
"$KTUNE" db export csv --db "$TMP/m.db" >"$TMP/m.csv"
for want in '"a=1,b=True","ok",2.5,2.4,,300,,,,2,' '"a=1,b=False","invalid"' \
    '"a=2,b=True","compile_error"' '"a=2,b=False","runtime_error"'; do
    grep -q "$want" "$TMP/m.csv" || fail "no row $want in $(cat "$TMP/m.csv")"
done
pass "failure markers map to invalid, compile_error and runtime_error"

# --- bad files: one line each, the database unchanged
before=$(sum "$TMP/k.db")
head -c 3000 "$DATA/vector_add_a4000.json" >"$TMP/trunc.json"
expect_fail 1 "trunc.json:[0-9]+:[0-9]+: not a Kernel Tuner cache: invalid JSON: unexpected end of file" \
    "$KTUNE" import kerneltuner "$TMP/trunc.json" --db "$TMP/k.db"
sed 's/"768": {/"768,1": {/' "$DATA/vector_add_a4000.json" >"$TMP/arity.json"
expect_fail 1 "arity.json: cache entry '768,1': 2 values for 1 tuning parameters" \
    "$KTUNE" import kerneltuner "$TMP/arity.json" --db "$TMP/k.db"
sed 's/"kernel_name"/"kernel"/' "$DATA/vector_add_a4000.json" >"$TMP/nokernel.json"
expect_fail 1 "nokernel.json: not a Kernel Tuner cache: no 'kernel_name'" \
    "$KTUNE" import kerneltuner "$TMP/nokernel.json" --db "$TMP/k.db"
sed '0,/"time": 0.04/s/"time": 0.04/"tim": 0.04/' "$DATA/vector_add_a4000.json" >"$TMP/notime.json"
expect_fail 1 "notime.json: cache entry '128': no numeric 'time'" \
    "$KTUNE" import kerneltuner "$TMP/notime.json" --db "$TMP/k.db"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "more than one line: $(cat "$TMP/err")"
[ "$(sum "$TMP/k.db")" = "$before" ] || fail "a bad file changed the database"
expect_fail 2 "expected 'miopen PERFDB', 'csv FILE' or 'kerneltuner FILE'" "$KTUNE" import kt x
pass "bad cache files: one line each, nothing stored"
