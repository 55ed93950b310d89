#!/bin/sh
# kill_bench.sh - N random kill -9s, each of the tuner or of its measurement
# worker, while the planted-fault spec is tuned (crash, hang, wrong result
# and compile error beside healthy configurations), one problem after
# another.  After each tuner kill the database must pass SQLite's integrity
# check and hold at least the rows it held before (nothing stored is lost);
# at the end every problem is finished by resuming, and every configuration
# must carry its true class: no healthy configuration stored as a failure,
# no failure stored as another.
#
# Kills come 0.3-1.5 s apart, and a worker is killed again only once the
# configuration its predecessor was measuring has been stored (a
# configuration whose workers die twice in a row is a crash by design;
# docs/RELIABILITY.md).
#
# Usage (from the repository root):
#   KTUNE=build/ktune sh bench/kill_bench.sh [N] >bench/results/kill_bench.txt
set -eu
N=${1:-50}
KTUNE=${KTUNE:-build/ktune}
SPEC=tests/kernels/faulty.json
TMP=$(mktemp -d /tmp/ktune-killbench.XXXXXX)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT
DB="$TMP/k.db"

fail() { echo "FAIL: $*" >&2; exit 1; }
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; } # 0..65535
rows() { sqlite3 "$DB" "SELECT count(*) FROM measurement" 2>/dev/null || echo 0; }
tune() { # problem index; run in a subshell, which it becomes
    exec "$KTUNE" tune "$SPEC" --problem "N=$((50000 + 1000 * $1))" --strategy brute_force \
        --db "$DB" --cache "$TMP/cache" >/dev/null 2>&1
}

kills=0 tuner_kills=0 worker_kills=0 problem=0 pid=0 before=0 orphans=0 settled=0
while [ $kills -lt "$N" ]; do
    if [ $pid -eq 0 ] || ! kill -0 $pid 2>/dev/null; then
        [ $pid -ne 0 ] && { wait $pid || true; problem=$((problem + 1)); }
        tune $problem &
        pid=$!
    fi
    sleep "$(awk -v r="$(rand)" 'BEGIN { printf "%.2f", 0.3 + 1.2 * r / 65536 }')"
    kill -0 $pid 2>/dev/null || continue
    if [ $(($(rand) % 2)) -eq 0 ]; then
        kill -9 $pid 2>/dev/null || continue
        wait $pid 2>/dev/null || true
        tuner_kills=$((tuner_kills + 1))
        [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity after a kill"
        now=$(rows)
        [ "$now" -ge "$before" ] || fail "rows went from $before to $now"
        before=$now
        sleep 0.2 # the killed tuner's worker must not outlive it
        orphans=$((orphans + $(pgrep -f "ktune-worker --ktune-worker $pid" | wc -l)))
        pid=0
    else
        [ "$(rows)" -ge $settled ] || continue
        w=$(pgrep -f "ktune-worker --ktune-worker $pid" | head -n 1)
        [ -n "$w" ] || continue
        settled=$(($(rows) + 1))
        kill -9 "$w" 2>/dev/null || continue
        worker_kills=$((worker_kills + 1))
    fi
    kills=$((kills + 1))
done
[ $pid -ne 0 ] && { wait $pid || true; }

# Finish every problem touched, without kills.
p=0
while [ $p -le $problem ]; do (tune $p) || true; p=$((p + 1)); done

problems=$((problem + 1))
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "final integrity"
total=$(rows)
[ "$total" -eq $((18 * problems)) ] || fail "$total rows for $problems problems"
dups=$(sqlite3 "$DB" "SELECT count(*) FROM (SELECT 1 FROM measurement
    GROUP BY device_id, problem_id, config HAVING count(*) > 1)")
# The true class of each mode of tests/kernels/faulty.c.
wrong=$(sqlite3 "$DB" "SELECT count(*) FROM measurement WHERE status <> CASE
    substr(config, 6, 1) WHEN '0' THEN 'ok' WHEN '8' THEN 'ok'
    WHEN '1' THEN 'crash' WHEN '5' THEN 'crash' WHEN '6' THEN 'crash'
    WHEN '2' THEN 'timeout' WHEN '3' THEN 'wrong_result' WHEN '7' THEN 'wrong_result'
    WHEN '4' THEN 'compile_error' END")
healthy_failed=$(sqlite3 "$DB" "SELECT count(*) FROM measurement WHERE status <> 'ok'
    AND (config LIKE 'MODE=0,%' OR config LIKE 'MODE=8,%')")
remeasured=$(sqlite3 "$DB" "SELECT count(*) FROM measurement
    WHERE detail LIKE '%second worker%'")
echo "kills: $kills ($tuner_kills of the tuner, $worker_kills of a worker)"
echo "problems: $problems, rows: $total, duplicates: $dups, orphaned workers: $orphans"
echo "misclassified: $wrong (healthy stored as failures: $healthy_failed)"
echo "measured again after a worker was killed: $remeasured"
if [ "$dups" -ne 0 ] || [ "$wrong" -ne 0 ] || [ "$orphans" -ne 0 ]; then
    sqlite3 "$DB" "SELECT problem_id, config, status, detail FROM measurement" >&2
    fail "see above"
fi
echo "ok"
