# kerneltuner.sh - `ktune import kerneltuner` and `import t4`, `db export t4`:
# real Kernel Tuner cache files
# (tests/data/kerneltuner/) are stored with device, kernel, problem, status
# and times; a bad file gets one line and changes nothing in a database.
. "$(dirname "$0")/lib.sh"

DATA=tests/data/kerneltuner
sum() { cksum <"$1"; }
# schema_valid FILE SCHEMA: FILE validates against the JSON schema (with a
# note where Python's jsonschema is missing; scripts/install-deps has it).
schema_valid() {
    python3 - "$1" "$2" <<'PY' || fail "$1 is not valid under $2"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(print("note: no Python jsonschema, %s was not checked" % sys.argv[2]))
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
}
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
grep -q '^"2022-12-23T12:11:26.411Z","NVIDIA RTX A4000","vector_add",.*,"ProblemSize_0=100","block_size_x=768","ok",0.0317577,0.02368,0.191018,450.441,' "$TMP/k.csv" ||
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
 "1,True": {"a": 1, "b": true, "time": 2.5, "times": [2.4, 2.6], "compile_time": 300,
          "core_freq": 1410, "timestamp": "2022-12-23 12:11:01.001000+00:00"},
 "1,False": {"a": 1, "b": false, "time": "InvalidConfig"},
 "2,True": {"a": 2, "b": true, "time": 1e20, "__error__": "CompilationFailedConfig"},
 "2,False": {"a": 2, "b": false, "time": "RuntimeFailedConfig"},
JSON
"$KTUNE" import kerneltuner "$TMP/marks.json" --db "$TMP/m.db" | grep -q "read 4 entries (1 with a time)" ||
    fail "the open cache with markers was not read"
"$KTUNE" db export csv --db "$TMP/m.db" >"$TMP/m.csv"
# 1.001 s is 1000.999... ms in binary: still 1001 ms, as 372 of every
# 60,000 millisecond values would not be if truncated as read
for want in '^"2022-12-23T12:11:01.001Z",.*"a=1,b=True","ok",2.5,2.4,0.04,300,,,1410,2,' \
    '"a=1,b=False","invalid"' \
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
expect_fail 2 "expected 'miopen PERFDB', 'csv FILE', 'kerneltuner FILE' or 't4 FILE'" "$KTUNE" import kt x
expect_fail 2 "^ktune: error: '--bogus' is not an option of 'ktune import'" "$KTUNE" import --bogus kerneltuner x
grep -q "^hint: see 'ktune import --help'" "$TMP/err" || fail "no hint: $(cat "$TMP/err")"
pass "bad cache files: one line each, nothing stored"

# --- the T4 export: the official schema, and what Kernel Tuner's
# methodology tool reads (its time keys, ms everywhere, a failure's marker
# as the objective's value), with device and kernel per result
"$KTUNE" db export t4 --db "$TMP/m.db" >"$TMP/m.t4.json"
schema_valid "$TMP/m.t4.json" tests/data/t4/results-schema.json
python3 - "$TMP/m.t4.json" <<'PY' || fail "the T4 export"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["metadata"]["timeunit"] == "milliseconds", doc.get("metadata")
by = {r["configuration"]["b"] + str(r["configuration"]["a"]): r for r in doc["results"]}
assert len(by) == 4, by.keys()
for r in by.values():
    assert r["device"] == "GPU X" and r["kernel"] == "k", r
    for key in ("compilation", "benchmark", "framework", "search_algorithm", "validation"):
        assert key in r["times"], (key, r["times"])
    assert [m["name"] for m in r["measurements"]][0] == "time", r
ok = by["True1"]
assert ok["times"]["compilation"] == 300 and ok["times"]["benchmark"] == 5, ok["times"]
assert ok["measurements"][0] == {"name": "time", "value": 2.5, "unit": "ms"}, ok
bad = by["False1"]
assert bad["invalidity"] == "constraints", bad
assert bad["measurements"][0]["value"] == "InvalidConfig", bad
assert by["True2"]["measurements"][0]["value"] == "CompilationFailedConfig"
PY
pass "the T4 export: schema-valid, Kernel Tuner's keys, ms, device and kernel"

# --- import t4: ktune's own export back in (device, kernel, problem from
# each result), and Kernel Tuner's layout with --device and --kernel
"$KTUNE" db export t4 --db "$TMP/k.db" >"$TMP/k.t4.json"
schema_valid "$TMP/k.t4.json" tests/data/t4/results-schema.json # power, clock
"$KTUNE" import t4 "$TMP/k.t4.json" --db "$TMP/t4.db" | grep -q "read 25 results (25 correct); 25 new" ||
    fail "the T4 round trip"
"$KTUNE" db export csv --db "$TMP/t4.db" | tail -n +2 | cut -d, -f2-8,11 | sort >"$TMP/t4.rows"
cut -d, -f2-8,11 "$TMP/k.csv" | tail -n +2 | sort >"$TMP/k.rows"
cmp -s "$TMP/t4.rows" "$TMP/k.rows" || fail "the T4 round trip changed rows: $(diff "$TMP/k.rows" "$TMP/t4.rows" | head -5)"
cat >"$TMP/kt.t4.json" <<'JSON'
{"schema_version": "1.0.0", "metadata": {"timeunit": "milliseconds"}, "results": [
 {"timestamp": "2022-12-23 12:11:26.411558+00:00", "configuration": {"bx": 128, "alg": "a", "on": true},
  "times": {"compilation": 440.5, "benchmark": 1.09, "runtimes": [0.5, 0.25]},
  "invalidity": "correct", "correctness": 1, "objectives": ["time"],
  "measurements": [{"name": "time", "value": 0.375, "unit": "ms"}]},
 {"configuration": {"bx": 256, "alg": "a", "on": true}, "times": {"compilation": 12},
  "invalidity": "compile", "correctness": 1, "objectives": ["time"],
  "measurements": [{"name": "time", "value": "CompilationFailedConfig", "unit": "ms"}]},
 {"configuration": {"bx": 512, "alg": "a", "on": false}, "times": {},
  "invalidity": "correct", "correctness": 0,
  "measurements": [{"name": "time", "value": 0.002, "unit": "s"}]}]}
JSON
expect_fail 1 "kt.t4.json: results\[0\]: no device \(give --device NAME\)" \
    "$KTUNE" import t4 "$TMP/kt.t4.json" --db "$TMP/t4.db"
"$KTUNE" import t4 "$TMP/kt.t4.json" --db "$TMP/kt.db" --device "GPU Y" --kernel k \
    | grep -q "read 3 results (1 correct); 3 new" || fail "import t4 of Kernel Tuner's layout"
"$KTUNE" db export csv --db "$TMP/kt.db" >"$TMP/kt.csv"
for want in '"GPU Y","k","t4","","bx=128,alg=a,on=True","ok",0.375,0.375,,440.5,' \
    '"bx=256,alg=a,on=True","compile_error",,,,12,' '"bx=512,alg=a,on=False","wrong_result"'; do
    grep -qF "$want" "$TMP/kt.csv" || fail "no row $want in $(cat "$TMP/kt.csv")"
done
# older Kernel Tuner releases (the FAIR benchmark hub's T4 files) spell the
# unit "miliseconds"
sed 's/"milliseconds"/"miliseconds"/' "$TMP/kt.t4.json" >"$TMP/kt-old.t4.json"
"$KTUNE" import t4 "$TMP/kt-old.t4.json" --db "$TMP/kt-old.db" --device "GPU Y" --kernel k \
    | grep -q "read 3 results (1 correct); 3 new" || fail "import t4 with timeunit miliseconds"
# KTT writes "Microseconds": units are read in any case, and scaled
sed 's/"milliseconds"/"Microseconds"/; s/"unit": "ms"/"unit": "us"/' "$TMP/kt.t4.json" >"$TMP/kt-us.t4.json"
"$KTUNE" import t4 "$TMP/kt-us.t4.json" --db "$TMP/kt-us.db" --device "GPU Y" --kernel k >/dev/null
"$KTUNE" db export csv --db "$TMP/kt-us.db" | grep -qF '"bx=128,alg=a,on=True","ok",0.000375,' ||
    fail "import t4 with timeunit Microseconds: $("$KTUNE" db export csv --db "$TMP/kt-us.db")"
pass "import t4: ktune's export round-trips, Kernel Tuner's layout with --device/--kernel"

before=$(sum "$TMP/kt.db")
sed 's/"invalidity": "compile", //' "$TMP/kt.t4.json" >"$TMP/noinv.json"
expect_fail 1 "noinv.json: results\[1\]: no 'invalidity' \(correct, compile," \
    "$KTUNE" import t4 "$TMP/noinv.json" --db "$TMP/kt.db" --device "GPU Y" --kernel k
head -c 200 "$TMP/kt.t4.json" >"$TMP/trunc.t4.json"
expect_fail 1 "trunc.t4.json:[0-9]+:[0-9]+: not a T4 results file: invalid JSON: unexpected end of file" \
    "$KTUNE" import t4 "$TMP/trunc.t4.json" --db "$TMP/kt.db" --device "GPU Y" --kernel k
[ "$(sum "$TMP/kt.db")" = "$before" ] || fail "a bad T4 file changed the database"
pass "bad T4 files: one line each, nothing stored"

# --- parameter names: a file whose configurations name other parameters
# than the rows stored under its kernel's name is refused whole (training,
# replay and the exports read a kernel's rows as one table)
"$KTUNE" db export csv --db "$TMP/k.db" >"$TMP/k.before"
python3 - "$DATA/vector_add_a4000.json" "$TMP/tile.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["tune_params_keys"].append("tile")
doc["tune_params"]["tile"] = [1]
doc["cache"] = {k + ",1": dict(e, tile=1) for k, e in doc["cache"].items()}
json.dump(doc, open(sys.argv[2], "w"))
PY
expect_fail 1 "^ktune: error: [^ ]*tile.json: tune_params_keys: parameters \(block_size_x, tile\) other than those of kernel 'vector_add' in the database \(block_size_x\): new: tile \(hint: import into another --db\)$" \
    "$KTUNE" import kerneltuner "$TMP/tile.json" --db "$TMP/k.db"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "more than one line: $(cat "$TMP/err")"
"$KTUNE" db export csv --db "$TMP/k.db" | cmp -s - "$TMP/k.before" ||
    fail "a refused cache changed the database: $(rows "$TMP/k.db") rows"
"$KTUNE" import kerneltuner "$TMP/tile.json" --db "$TMP/tile.db" | grep -q "15 new" ||
    fail "the cache with a tile parameter, into a database of its own"
# T4: the stored kernel k names bx, alg, on
"$KTUNE" db export csv --db "$TMP/kt.db" >"$TMP/kt.before"
sed 's/"alg": "a", //' "$TMP/kt.t4.json" >"$TMP/noalg.t4.json"
expect_fail 1 "noalg.t4.json: results\[0\]: parameters \(bx, on\) other than those of kernel 'k' in the database \(bx, alg, on\): missing: alg" \
    "$KTUNE" import t4 "$TMP/noalg.t4.json" --db "$TMP/kt.db" --device "GPU Y" --kernel k
sed 's/"bx": \([0-9]*\), "alg": "a"/"alg": "a", "bx": \1/' "$TMP/kt.t4.json" >"$TMP/order.t4.json"
expect_fail 1 "order.t4.json: results\[0\]: parameters \(alg, bx, on\) other than .* \(bx, alg, on\): the same names in another order" \
    "$KTUNE" import t4 "$TMP/order.t4.json" --db "$TMP/kt.db" --device "GPU Y" --kernel k
"$KTUNE" db export csv --db "$TMP/kt.db" | cmp -s - "$TMP/kt.before" ||
    fail "a refused T4 file changed the database: $(rows "$TMP/kt.db") rows"
# within one file: a result that lacks a key of the first
sed 's/"bx": 256, "alg": "a", /"bx": 256, /' "$TMP/kt.t4.json" >"$TMP/lacks.t4.json"
expect_fail 1 "lacks.t4.json: results\[1\]: parameters \(bx, on\) other than those of kernel 'k' in results\[0\] \(bx, alg, on\): missing: alg" \
    "$KTUNE" import t4 "$TMP/lacks.t4.json" --db "$TMP/fresh.db" --device "GPU Y" --kernel k
[ "$(rows "$TMP/fresh.db")" -eq 0 ] || fail "a refused T4 file stored rows"
pass "other parameter names than the kernel's rows: one line naming them, nothing stored"

# --- export kerneltuner: one device, kernel and problem as a Kernel Tuner
# cache with the original's keys, parameters and times; it imports back
expect_fail 1 "more than one device, kernel or problem" \
    "$KTUNE" db export kerneltuner --db "$TMP/k.db"
"$KTUNE" db export kerneltuner --db "$TMP/k.db" --kernel vector_add >"$TMP/va.json"
python3 - "$TMP/va.json" "$DATA/vector_add_a4000.json" <<'PY' || fail "the cache export"
import json, sys
out, orig = (json.load(open(f)) for f in sys.argv[1:])
for key in ("device_name", "kernel_name", "problem_size", "tune_params_keys", "tune_params"):
    assert out[key] == orig[key], (key, out[key], orig[key])
assert out["cache"].keys() == orig["cache"].keys()
for k, e in orig["cache"].items():
    assert abs(out["cache"][k]["time"] - e["time"]) < 1e-6 * e["time"], k
    assert out["cache"][k]["block_size_x"] == e["block_size_x"]
    assert abs(out["cache"][k]["compile_time"] - e["compile_time"]) < 1e-3, k
PY
# round trip: DB's rows (FILTER...) exported and imported into a new
# database are the same rows, dates, hashes and failures included, but for
# min_ms and reps (a cache keeps the repetitions' times, ktune only their
# count and minimum: the export's "times" is empty)
roundtrip() {
    db=$1; shift
    "$KTUNE" db export kerneltuner --db "$db" "$@" >"$TMP/rt.json"
    rm -f "$TMP/rt.db"
    "$KTUNE" import kerneltuner "$TMP/rt.json" --db "$TMP/rt.db" >/dev/null
    "$KTUNE" db export csv --db "$db" "$@" >"$TMP/rt.before.csv"
    "$KTUNE" db export csv --db "$TMP/rt.db" >"$TMP/rt.after.csv"
    python3 - "$TMP/rt.before.csv" "$TMP/rt.after.csv" <<'PY' || fail "the cache round trip of $db"
import csv, sys
def rows(path):
    return sorted(tuple(v for k, v in r.items() if k not in ("min_ms", "reps"))
                  for r in csv.DictReader(open(path)))
before, after = rows(sys.argv[1]), rows(sys.argv[2])
assert len(before) > 1 and before == after, [r for r in after if r not in before][:2]
PY
}
roundtrip "$TMP/k.db" --kernel vector_add
roundtrip "$TMP/k.db" --kernel fp32_kernel
roundtrip "$TMP/m.db"
pass "export kerneltuner: Kernel Tuner's cache of one kernel, and back"

# --- export t4-metadata: the metadata file beside the results, valid
"$KTUNE" db export t4-metadata --db "$TMP/k.db" >"$TMP/meta.json"
schema_valid "$TMP/meta.json" tests/data/t4/metadata-schema.json
python3 - "$TMP/meta.json" <<'PY' || fail "the T4 metadata"
import json, sys
doc = json.load(open(sys.argv[1]))
hw = doc["metadata"]["hardware"]
assert [d["name"] for d in hw["hardware_description"]] == ["NVIDIA RTX A4000"], hw
assert doc["metadata"]["environment"]["requirements"][0].startswith("ktune=="), doc
PY
pass "export t4-metadata: schema-valid, the devices measured"
