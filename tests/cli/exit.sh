# exit.sh - the exit status says how a tuning run ended: 1 when no
# configuration ran correctly, 128 + N when signal N stopped it (after the
# summary, and under --json a whole JSON object).
. "$(dirname "$0")/lib.sh"
cp tests/kernels/faulty.c tests/kernels/faulty_ref.c "$TMP/"

# every configuration fails to compile (MODE 4)
sed -e 's/"Values": "\[0, 1, 2, 3, 4, 5, 6, 7, 8\]", "Default": 0/"Values": "[4]", "Default": 4/' \
    tests/kernels/faulty.json >"$TMP/broken.json"
grep -q '"\[4\]"' "$TMP/broken.json" || fail "broken.json was not made"
expect_fail 1 "^ktune: error: no configuration ran correctly \(2 compile_error\)" \
    "$KTUNE" tune "$TMP/broken.json" --db "$TMP/b.db" --cache "$TMP/cache"
grep -q "^no configuration ran correctly" "$TMP/out" || fail "text report: $(cat "$TMP/out")"
expect_fail 1 "no configuration ran correctly" \
    "$KTUNE" tune "$TMP/broken.json" --db "$TMP/b.db" --cache "$TMP/cache" --json
python3 -m json.tool "$TMP/out" >/dev/null || fail "JSON: $(cat "$TMP/out")"
pass "nothing ran correctly: exit 1"

# A run long enough to be stopped: up to 240 GEMM configurations, each
# compiled.  A background job of a shell without job control ignores
# SIGINT; env --default-signal gives it back.  The signal comes once the
# run has stored a result (however long compiling takes on a loaded
# machine), at most 60 s after the start.
stop_run() { # SIGNAL [--json]: start a run into $TMP/s-SIGNAL.db, signal it, wait
    env --default-signal=INT "$KTUNE" tune kernels/gemm/gemm-c.json \
        --problem M=32,N=32,K=32 --strategy random --budget 100% --db "$TMP/s-$1.db" \
        --cache "$TMP/cache" ${2:-} >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    i=0
    until [ "$("$KTUNE" db list --db "$TMP/s-$1.db" 2>/dev/null | grep -c " ok ")" -ge 1 ] ||
        [ $i -ge 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -"$1" "$pid"
    set +e
    wait "$pid"
    rc=$?
    set -e
}
stop_run INT --json
[ "$rc" = 130 ] || fail "SIGINT: exit $rc: $(cat "$TMP/err")"
python3 -m json.tool "$TMP/out" >/dev/null || fail "SIGINT JSON: $(cat "$TMP/out")"
grep -q '"interrupted": "SIGINT"' "$TMP/out" || fail "no interrupted field: $(cat "$TMP/out")"
m=$(json_get "$TMP/out" measured)
[ "$m" -ge 1 ] && [ "$m" -lt 240 ] || fail "SIGINT: measured $m"
grep -q "stopping after the configuration in flight" "$TMP/err" || fail "$(cat "$TMP/err")"
pass "SIGINT: exit 130 with the partial JSON"

stop_run TERM
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc: $(cat "$TMP/err")"
grep -q "^interrupted by SIGTERM" "$TMP/out" || fail "SIGTERM summary: $(cat "$TMP/out")"
grep -q "^best " "$TMP/out" || fail "SIGTERM: no best line: $(cat "$TMP/out")"
[ "$("$KTUNE" db list --db "$TMP/s-TERM.db" | grep -vc " ok ")" = 0 ] ||
    fail "a failure was stored: $("$KTUNE" db list --db "$TMP/s-TERM.db")"
pass "SIGTERM: exit 143 with the summary"
