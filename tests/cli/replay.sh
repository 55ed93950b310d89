# replay.sh - `ktune tune --replay FILE` and `ktune benchmark --replay FILE`
# with no spec: a ktune database, the CSV it was imported from, the Kernel
# Tuner cache and the T4 file exported from it (and the cache compressed
# with bzip2 or gzip) replay the same
# recording (the CPU SGEMM at 256^3, 480 configurations) to the same
# result; a seed repeats a run; every strategy keeps to its budget; the
# Kernel Tuner fixture replays; invalid entries are outside the space and
# failures inside it; bad files are one clear line each.
. "$(dirname "$0")/lib.sh"
bzcat bench/data/gemm-cpu-256-a1.csv.bz2 >"$TMP/rec.csv"
"$KTUNE" import csv "$TMP/rec.csv" --db "$TMP/rec.db" >/dev/null
"$KTUNE" db export t4 --db "$TMP/rec.db" >"$TMP/rec.t4.json"
"$KTUNE" db export kerneltuner --db "$TMP/rec.db" >"$TMP/rec.kt.json"
bzip2 -c "$TMP/rec.kt.json" >"$TMP/rec.kt.json.bz2"
gzip -c "$TMP/rec.kt.json" >"$TMP/rec.kt.json.gz"

# tune_json FILE OUT ARGS...: what a run found (the formats keep different
# details of a result: the T4 export no spread) into OUT.
tune_json() {
    file=$1 out=$2
    shift 2
    "$KTUNE" tune --replay "$file" --cache "$TMP/cache" --json "$@" >"$out.full"
    python3 - "$out.full" >"$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["kernel"], d["device"], d["space_size"], d["measured"], d["statuses"])
print(d["best"]["key"], d["best"]["time_ms"], d["default"]["key"], d["speedup"])
PY
}

for f in rec.db rec.csv rec.t4.json rec.kt.json rec.kt.json.bz2 rec.kt.json.gz; do
    tune_json "$TMP/$f" "$TMP/$f.out" --budget 40 --seed 7 --strategy genetic
    grep -q '^gemm AMD EPYC (2 cores) 480 40 ' "$TMP/$f.out" || fail "$f: $(cat "$TMP/$f.out")"
    cmp -s "$TMP/rec.db.out" "$TMP/$f.out" || fail "$f: $(diff "$TMP/rec.db.out" "$TMP/$f.out")"
done
pass "replay with no spec: a database, its CSV, T4 and Kernel Tuner exports, bzip2, gzip: one result"

tune_json "$TMP/rec.kt.json" "$TMP/s1" --budget 25 --seed 3
tune_json "$TMP/rec.kt.json" "$TMP/s2" --budget 25 --seed 3
cmp -s "$TMP/s1" "$TMP/s2" || fail "same seed, two results: $(diff "$TMP/s1" "$TMP/s2")"
pass "replay with no spec: the same seed gives the same run"

# The JSON files' rows were kept in --cache DIR by content; a spoilt entry
# is read as a miss, and written again.
rm -rf "$TMP/kept"
tune_json "$TMP/rec.kt.json" "$TMP/k1" --budget 25 --seed 3 --cache "$TMP/kept"
entry=$(ls "$TMP/kept"/*.ktrec)
[ "$(ls "$TMP/kept" | wc -l)" = 1 ] || fail "kept: $(ls "$TMP/kept")"
cp "$entry" "$TMP/entry"
tune_json "$TMP/rec.kt.json" "$TMP/k2" --budget 25 --seed 3 --cache "$TMP/kept"
head -c 2000 "$TMP/entry" >"$entry"
tune_json "$TMP/rec.kt.json" "$TMP/k3" --budget 25 --seed 3 --cache "$TMP/kept"
for k in k1 k2 k3; do
    cmp -s "$TMP/s1" "$TMP/$k" || fail "$k: $(diff "$TMP/s1" "$TMP/$k")"
done
cmp -s "$TMP/entry" "$entry" || fail "the cut entry was not written again"
pass "replay keeps a JSON file's rows in --cache DIR; a cut entry is read again from the file"

"$KTUNE" benchmark --replay "$TMP/rec.t4.json" --budgets 5,20 --seeds 2 --json >"$TMP/b.json"
python3 - "$TMP/b.json" >"$TMP/strategies" <<'PY' || fail "benchmark: $(cat "$TMP/b.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["space_size"] == 480 and len(d["results"]) >= 20, d
assert all(0 < r["mean"] <= 1 for r in d["results"]), d
print("\n".join(sorted({r["strategy"] for r in d["results"]})))
PY
for s in $(cat "$TMP/strategies"); do
    "$KTUNE" tune --replay "$TMP/rec.kt.json" --cache "$TMP/cache" --budget 12 --seed 2 \
        --strategy "$s" --json \
        >"$TMP/run.json" || fail "$s: $(cat "$TMP/run.json")"
    [ "$(json_get "$TMP/run.json" measured)" -le 12 ] || fail "$s: $(cat "$TMP/run.json")"
done
pass "benchmark with no spec; every strategy replays within its budget"

"$KTUNE" tune --replay tests/data/kerneltuner/vector_add_a4000.json --cache "$TMP/cache" \
    --budget 5 --json \
    >"$TMP/va.json"
[ "$(json_get "$TMP/va.json" space_size)" = 15 ] || fail "$(cat "$TMP/va.json")"
[ "$(json_get "$TMP/va.json" measured)" = 5 ] || fail "$(cat "$TMP/va.json")"
grep -q '"problem": "ProblemSize_0=100"' "$TMP/va.json" || fail "$(cat "$TMP/va.json")"
"$KTUNE" tune --replay tests/data/kerneltuner/vector_add_a4000.json --cache "$TMP/cache" \
    --budget 5 >"$TMP/va.txt"
grep -q '^best     block_size_x=' "$TMP/va.txt" || fail "$(cat "$TMP/va.txt")"
! grep -qi 'nan' "$TMP/va.txt" || fail "an unknown spread printed: $(cat "$TMP/va.txt")"
pass "replay of the Kernel Tuner fixture"

cp "$TMP/rec.db" "$TMP/two.db"
"$KTUNE" import kerneltuner tests/data/kerneltuner/vector_add_a4000.json --db "$TMP/two.db" \
    >/dev/null
expect_fail 1 "two.db holds several recordings, kernel 'gemm' .* choose one with --kernel" \
    "$KTUNE" tune --replay "$TMP/two.db" --budget 5
"$KTUNE" tune --replay "$TMP/two.db" --kernel vector_add --budget 5 --json >"$TMP/k.json"
[ "$(json_get "$TMP/k.json" space_size)" = 15 ] || fail "$(cat "$TMP/k.json")"
"$KTUNE" benchmark --replay "$TMP/two.db" --device "AMD EPYC (2 cores)" --budgets 5 \
    --seeds 2 --strategies random --json >"$TMP/d.json"
grep -q '"space_size": *480' "$TMP/d.json" || fail "$(cat "$TMP/d.json")"
pass "a database of several recordings: --kernel, --device choose one"

# Three entries of the cache marked: one invalid (outside the space), two
# failed (inside it, failed evaluations).
python3 - "$TMP/rec.kt.json" "$TMP/marked.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = list(d["cache"])
for k, marker in zip(keys[5:8], ["InvalidConfig", "RuntimeFailedConfig", "CompilationFailedConfig"]):
    d["cache"][k]["time"] = marker
json.dump(d, open(sys.argv[2], "w"))
PY
"$KTUNE" tune --replay "$TMP/marked.json" --cache "$TMP/cache" --strategy brute_force \
    --json >"$TMP/m.json"
[ "$(json_get "$TMP/m.json" space_size)" = 479 ] || fail "$(cat "$TMP/m.json")"
grep -q '"runtime_error": 1' "$TMP/m.json" || fail "$(cat "$TMP/m.json")"
grep -q '"compile_error": 1' "$TMP/m.json" || fail "$(cat "$TMP/m.json")"
grep -q '"invalid": 0' "$TMP/m.json" || fail "$(cat "$TMP/m.json")"
pass "replay: InvalidConfig is outside the space, recorded failures are failed evaluations"

head -c 3000 "$TMP/rec.kt.json" | sed '$ s/,$//' >"$TMP/trunc.json"
expect_fail 1 'trunc.json:[0-9]+:[0-9]+: .*unexpected end of file' \
    "$KTUNE" tune --replay "$TMP/trunc.json" --budget 5
python3 - "$TMP/rec.kt.json" "$TMP/arity.json" "$TMP/rec.t4.json" "$TMP/notimes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cache"]["1,2"] = {"time": 1.0}
json.dump(d, open(sys.argv[2], "w"))
t = json.load(open(sys.argv[3]))
del t["results"][3]["times"]
json.dump(t, open(sys.argv[4], "w"))
PY
expect_fail 1 "arity.json: cache entry '1,2': 2 values for 8 tuning parameters" \
    "$KTUNE" tune --replay "$TMP/arity.json" --budget 5
expect_fail 1 "notimes.json: results\[3\]: no 'times'" \
    "$KTUNE" benchmark --replay "$TMP/notimes.json"
echo '{"x": 1}' >"$TMP/other.json"
expect_fail 1 "other.json: not a recording" "$KTUNE" tune --replay "$TMP/other.json"
expect_fail 1 "cannot open" "$KTUNE" tune --replay "$TMP/none.json"
expect_fail 1 "corrupt or truncated bzip2" sh -c \
    "head -c 500 '$TMP/rec.kt.json.bz2' >'$TMP/cut.bz2'; '$KTUNE' tune --replay '$TMP/cut.bz2'"
expect_fail 1 "corrupt or truncated gzip" sh -c \
    "head -c 500 '$TMP/rec.kt.json.gz' >'$TMP/cut.gz'; '$KTUNE' tune --replay '$TMP/cut.gz'"
expect_fail 1 "no such kernel" "$KTUNE" tune --replay "$TMP/rec.kt.json" --kernel other
expect_fail 2 "expected one SPEC" "$KTUNE" tune --budget 5
expect_fail 2 "predict needs the SPEC" "$KTUNE" tune --replay "$TMP/rec.db" \
    --strategy predict --model "$TMP/m"
pass "replay: bad files and options are one clear line each"
