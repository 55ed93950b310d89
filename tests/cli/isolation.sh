# isolation.sh - the measurement limits from the command line: the planted
# faults with default options end within 15 s besides compiling, each
# classified; buffers past --max-memory are refused before anything is
# allocated; stored failures are measured again with --retry-failed.
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json

# The bound is on the run's time outside compiling (its JSON's seconds less
# compile_wait_s): a loaded machine compiles slower, the limits do not.
"$KTUNE" tune "$SPEC" --strategy brute_force --db "$TMP/f.db" --cache "$TMP/cache" \
    --json >"$TMP/f.json" 2>"$TMP/f.err" || true
secs=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(int(r["seconds"] - r["compile_wait_s"]))' "$TMP/f.json") ||
    fail "no report: $(cat "$TMP/f.err")"
[ "$secs" -lt 15 ] || fail "the planted faults took $secs s besides compiling"
grep -q '"timeout": 2,' "$TMP/f.json" && grep -q '"crash": 6,' "$TMP/f.json" &&
    grep -q '"ok": 4,' "$TMP/f.json" || fail "classes: $(cat "$TMP/f.json")"
pass "planted faults with default options: $secs s, every fault classified"

# The endless loop (MODE=2) under the hang rule, and with --hang-factor so
# large that only --timeout stops it: the rule is the factor's.
cp tests/kernels/faulty.c tests/kernels/faulty_ref.c "$TMP/"
python3 bench/gpu/pin_config.py "$SPEC" MODE=2,VARIANT=1 >"$TMP/faulty-hang.json"
for f in default 1e9; do
    extra=""
    [ $f = default ] || extra="--hang-factor $f --timeout 3"
    # shellcheck disable=SC2086 # extra is words or nothing
    "$KTUNE" tune "$TMP/faulty-hang.json" --db "$TMP/h$f.db" --cache "$TMP/cache" \
        $extra >/dev/null 2>&1 || true
    "$KTUNE" db list --db "$TMP/h$f.db" | grep MODE=2 >"$TMP/h$f.txt"
done
grep -q "timeout.*times the reference's" "$TMP/hdefault.txt" || fail "hang rule: $(cat "$TMP/hdefault.txt")"
grep -q "timeout.*no result within 3 s" "$TMP/h1e9.txt" || fail "hang factor: $(cat "$TMP/h1e9.txt")"
expect_fail 2 'hang-factor must be 1 to 1e9' "$KTUNE" tune "$SPEC" --hang-factor 0.5 --db "$TMP/m.db"
pass "--hang-factor sets the hang rule: past it only --timeout stops an endless loop"

expect_fail 1 'needs [0-9.]+ GiB of buffers.*limit of 0.001 GiB' \
    "$KTUNE" tune "$SPEC" --problem N=1000000 --max-memory 0.001 --db "$TMP/m.db" \
    --cache "$TMP/cache"
expect_fail 2 'max-memory (must be|expects a positive)' "$KTUNE" tune "$SPEC" --max-memory 0 --db "$TMP/m.db"
expect_fail 2 'timeout (must be|expects a positive)' "$KTUNE" tune "$SPEC" --timeout 0 --db "$TMP/m.db"
pass "--max-memory refuses big buffers first; bad limits are usage errors"

run() {
    "$KTUNE" tune "$SPEC" --budget 1 --db "$TMP/r.db" --cache "$TMP/cache" --json "$@" \
        >"$TMP/r.json" 2>"$TMP/r.err" || true
}
run
sqlite3 "$TMP/r.db" "UPDATE measurement SET status = 'crash', signal = 9, time_ms = NULL"
run
[ "$(json_get "$TMP/r.json" cached)" = 1 ] || fail "stored failure: $(cat "$TMP/r.json")"
run --retry-failed
[ "$(json_get "$TMP/r.json" measured)" = 1 ] && grep -q '"ok": 1,' "$TMP/r.json" ||
    fail "--retry-failed: $(cat "$TMP/r.json")"
[ "$(sqlite3 "$TMP/r.db" "SELECT status FROM measurement")" = ok ] ||
    fail "the new result did not replace the failure"
pass "--retry-failed measures stored failures again and replaces them"
