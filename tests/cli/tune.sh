# tune.sh - `ktune space --count` and a brute-force `ktune tune` agree, a
# second identical run measures nothing, and the database exports.
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json

n=$("$KTUNE" space "$SPEC" --problem N=2000 --count)
[ "$n" = 18 ] || fail "space count $n, wanted 18"
pass "space --count"

"$KTUNE" tune "$SPEC" --problem N=2000 --strategy brute_force --db "$TMP/t.db" \
    --timeout 2 --cache "$TMP/cache" --json >"$TMP/run1.json"
[ "$(json_get "$TMP/run1.json" measured)" = "$n" ] || fail "first run: $(cat "$TMP/run1.json")"
[ "$(json_get "$TMP/run1.json" space_size)" = "$n" ] || fail "space_size differs"
grep -Eq '"MODE": [08]' "$TMP/run1.json" || fail "best is not a correct configuration"
# stdout is one JSON object, even though one kernel prints
[ "$(head -n 1 "$TMP/run1.json")" = "{" ] && [ "$(tail -n 1 "$TMP/run1.json")" = "}" ] ||
    fail "stdout is not just the JSON object: $(head -n 3 "$TMP/run1.json")"
grep -q '"time_ms"' "$TMP/run1.json" || fail "no best.time_ms"
pass "tune --json measures every configuration"

"$KTUNE" tune "$SPEC" --problem N=2000 --strategy brute_force --db "$TMP/t.db" \
    --timeout 2 --cache "$TMP/cache" --json >"$TMP/run2.json"
[ "$(json_get "$TMP/run2.json" measured)" = 0 ] || fail "second run measured again"
[ "$(json_get "$TMP/run2.json" cached)" = "$n" ] || fail "second run: $(cat "$TMP/run2.json")"
pass "second run measures nothing"

"$KTUNE" tune "$SPEC" --problem N=2000 --db "$TMP/t.db" --timeout 2 \
    --cache "$TMP/cache" >"$TMP/text.out"
grep -Eq "^best     MODE=[08]" "$TMP/text.out" || fail "text report: $(cat "$TMP/text.out")"
grep -q "speed-up" "$TMP/text.out" || fail "no speed-up line"
pass "text report"

"$KTUNE" db best --db "$TMP/t.db" | grep -Eq "MODE=[08]" || fail "db best"
[ "$("$KTUNE" db list --db "$TMP/t.db" | wc -l)" = "$n" ] || fail "db list"
"$KTUNE" db export csv --db "$TMP/t.db" >"$TMP/x.csv"
[ "$(wc -l <"$TMP/x.csv")" = $((n + 1)) ] || fail "csv rows"
grep -q '"crash"' "$TMP/x.csv" || fail "csv lacks the crash rows"
"$KTUNE" db export t4 --db "$TMP/t.db" >"$TMP/x.json"
grep -q '"schema_version": "1.0.0"' "$TMP/x.json" || fail "t4 header"
[ "$(grep -c '"invalidity"' "$TMP/x.json")" = "$n" ] || fail "t4 rows"
pass "db best, list, export csv and t4"

"$KTUNE" tune "$SPEC" --problem N=2000 --strategy random --budget 6 --seed 3 \
    --replay "$TMP/t.db" --json >"$TMP/replay.json"
[ "$(json_get "$TMP/replay.json" measured)" = 6 ] || fail "replay: $(cat "$TMP/replay.json")"
grep -q "\"replay\": \"$TMP/t.db\"" "$TMP/replay.json" || fail "replay not named in the JSON"
[ "$("$KTUNE" db list --db "$TMP/t.db" | wc -l)" = "$n" ] || fail "replay wrote rows"
"$KTUNE" tune "$SPEC" --problem N=2000 --replay "$TMP/t.db" >"$TMP/replay.out"
grep -Eq "^best     MODE=[08]" "$TMP/replay.out" || fail "replay text: $(cat "$TMP/replay.out")"
grep -q "^replayed $n from the recording" "$TMP/replay.out" || fail "replay count"
expect_fail 1 "no recording of kernel 'faulty' for problem N=3000" \
    "$KTUNE" tune "$SPEC" --problem N=3000 --replay "$TMP/t.db"
expect_fail 1 "cannot open '$TMP/none.db': no such file" \
    "$KTUNE" tune "$SPEC" --replay "$TMP/none.db"
expect_fail 2 "drop --db" "$KTUNE" tune "$SPEC" --replay "$TMP/t.db" --db "$TMP/x.db"
expect_fail 1 "a replay has no clock" \
    "$KTUNE" tune "$SPEC" --problem N=2000 --replay "$TMP/t.db" --time 5
pass "tune --replay answers from the recording and stores nothing"

# a recording travels as CSV: export, import elsewhere, replay the same
# (the export keeps 6 significant digits: the best is the same configuration)
"$KTUNE" import csv "$TMP/x.csv" --db "$TMP/imported.db" >"$TMP/import.out"
grep -q "^read $n rows; $n new in $TMP/imported.db" "$TMP/import.out" ||
    fail "import csv: $(cat "$TMP/import.out")"
"$KTUNE" tune "$SPEC" --problem N=2000 --replay "$TMP/t.db" --json >"$TMP/r1.json"
"$KTUNE" tune "$SPEC" --problem N=2000 --replay "$TMP/imported.db" --json >"$TMP/r2.json"
best_key() { sed -n '/"best"/,/"key"/s/^ *"key": "\(.*\)",$/\1/p' "$1"; }
[ -n "$(best_key "$TMP/r1.json")" ] &&
    [ "$(best_key "$TMP/r1.json")" = "$(best_key "$TMP/r2.json")" ] ||
    fail "the imported recording replays differently"
[ "$(json_get "$TMP/r2.json" measured)" = "$n" ] || fail "imported replay count"
expect_fail 1 "import.out:1: unknown column 'read $n rows; $n new in" \
    "$KTUNE" import csv "$TMP/import.out" --db "$TMP/imported.db"
pass "import csv round-trips an export for replay"
