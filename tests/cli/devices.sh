# devices.sh - `ktune tune --devices LIST`: several workers (on the C
# backend they stand in for devices) give exactly the rows of one worker
# (same configurations, same statuses, none twice), also when one worker
# is killed with SIGKILL in the middle of the run; bad lists are refused.
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json

# tune DB [OPTIONS...]: a brute-force run of the faulty kernel (18
# configurations: correct, crashing, hanging, wrong, not compiling).
tune() {
    db=$1; shift
    "$KTUNE" tune "$SPEC" --problem N=4000 --strategy brute_force --db "$db" \
        --timeout 1.5 --cache "$TMP/cache" --json "$@"
}

# The rows of a database as "config|status", one a line, sorted.
rows() {
    sqlite3 "$1" "SELECT config, status FROM measurement ORDER BY config"
}

# same_rows DB WHAT: DB holds the single-worker run's rows, each once.
same_rows() {
    rows "$1" >"$TMP/got.txt"
    cmp -s "$TMP/one.txt" "$TMP/got.txt" ||
        fail "$2: rows differ: $(diff "$TMP/one.txt" "$TMP/got.txt" | head -n 6)"
    n=$(sqlite3 "$1" "SELECT count(*) = count(DISTINCT config) FROM measurement")
    [ "$n" = 1 ] || fail "$2: a configuration stored twice"
}

tune "$TMP/one.db" >"$TMP/one.json"
rows "$TMP/one.db" >"$TMP/one.txt"
[ "$(wc -l <"$TMP/one.txt")" = 18 ] || fail "single worker: $(cat "$TMP/one.json")"

for list in 0,1 0,1,2; do
    tune "$TMP/d$list.db" --devices "$list" >"$TMP/d$list.json"
    [ "$(json_get "$TMP/d$list.json" measured)" = 18 ] ||
        fail "--devices $list: $(cat "$TMP/d$list.json")"
    same_rows "$TMP/d$list.db" "--devices $list"
    pass "--devices $list: the single worker's 18 rows, none twice"
done

# Kill one of two workers once a few rows are in: it is replaced, its
# configuration measured once more, and the other worker goes on.
"$KTUNE" tune "$SPEC" --problem N=4000 --strategy brute_force --db "$TMP/kill.db" \
    --timeout 1.5 --cache "$TMP/cache" --json --devices 0,1 >"$TMP/kill.json" \
    2>"$TMP/kill.err" &
pid=$! # the tuner itself, the parent its workers name
i=0
while :; do
    got=$(sqlite3 "$TMP/kill.db" "SELECT count(*) FROM measurement" 2>/dev/null || echo 0)
    workers=$(pgrep -f "ktune-worker --ktune-worker $pid" || true)
    [ "${got:-0}" -ge 3 ] && [ -n "$workers" ] && break
    i=$((i + 1)); [ $i -lt 600 ] || fail "no progress with two workers"
    sleep 0.05
done
victim=$(echo "$workers" | head -n 1)
kill -9 "$victim"
wait $pid || fail "the run with a killed worker failed: $(cat "$TMP/kill.err")"
[ "$got" -lt 18 ] || fail "the run ended before a worker was killed"
same_rows "$TMP/kill.db" "a worker killed"
pass "a worker killed after $got rows: still every row, none twice"

# Bad lists: one line each, usage status.
expect_fail 2 "error: --devices lists device 1 twice" tune "$TMP/bad.db" --devices 0,1,1
expect_fail 2 "error: --devices expects device ordinals separated by commas" \
    tune "$TMP/bad.db" --devices 0,,1
expect_fail 2 "error: --devices expects device ordinals" tune "$TMP/bad.db" --devices ""
expect_fail 2 "error: --devices expects a whole number, not 'x'" \
    tune "$TMP/bad.db" --devices 0,x
expect_fail 2 "error: --devices expects a whole number, not '-1'" \
    tune "$TMP/bad.db" --devices -1
expect_fail 2 "error: --devices must be 0 to 63, not '64'" tune "$TMP/bad.db" --devices 64
[ ! -e "$TMP/bad.db" ] || fail "a refused list still opened the database"
pass "bad --devices lists refused with one line each"
