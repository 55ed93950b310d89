# kill.sh - kill -9 the tuner in the middle of a run: the database stays
# intact, nothing is measured twice, and the next run resumes; then a few
# random kills of tuner or worker (bench/kill_bench.sh does 50): nothing
# stored is lost and no healthy configuration is stored as a failure.
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json
DB="$TMP/k.db"

# The hanging configurations make the run last several seconds.
"$KTUNE" tune "$SPEC" --problem N=4000 --db "$DB" --timeout 1.5 \
    --cache "$TMP/cache" --json >/dev/null 2>&1 &
pid=$!
i=0
while :; do
    rows=$(sqlite3 "$DB" "SELECT count(*) FROM measurement" 2>/dev/null || echo 0)
    [ "${rows:-0}" -ge 4 ] && break
    i=$((i + 1)); [ $i -lt 600 ] || fail "no progress"
    sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
# the worker dies with its tuner
sleep 0.2
pgrep -f "ktune-worker --ktune-worker $pid" >/dev/null && fail "a worker survived"

[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity check"
before=$(sqlite3 "$DB" "SELECT count(*) FROM measurement")
[ "$before" -lt 18 ] || fail "the run finished before it was killed"
pass "killed after $before measurements, database intact"

"$KTUNE" tune "$SPEC" --problem N=4000 --db "$DB" --timeout 1.5 \
    --cache "$TMP/cache" --json >"$TMP/resume.json"
[ "$(json_get "$TMP/resume.json" cached)" = "$before" ] || fail "resume: $(cat "$TMP/resume.json")"
[ "$(json_get "$TMP/resume.json" measured)" = $((18 - before)) ] || fail "resume measured"
total=$(sqlite3 "$DB" "SELECT count(*), count(DISTINCT config) FROM measurement")
[ "$total" = "18|18" ] || fail "rows after resume: $total"
pass "resumed: $((18 - before)) measured, none twice"

KTUNE="$KTUNE" sh bench/kill_bench.sh 6 >"$TMP/kills.txt" 2>&1 ||
    fail "random kills: $(cat "$TMP/kills.txt")"
pass "6 random kills: $(head -n 1 "$TMP/kills.txt"), nothing lost or misclassified"
