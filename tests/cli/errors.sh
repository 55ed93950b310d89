# errors.sh - bad input gets one clear line and a non-zero exit, never a
# crash (an exit status of 128 or more would be a signal).
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json

expect_fail 2 "^usage: ktune" "$KTUNE"
expect_fail 2 "'frobnicate' is not a ktune command" "$KTUNE" frobnicate
for c in tune space db; do
    "$KTUNE" $c --help | grep -q "^usage: ktune $c" || fail "$c --help"
done
pass "usage and --help"

expect_fail 1 "cannot open '/nonexistent.json'" "$KTUNE" space /nonexistent.json
printf '{\n  "ConfigurationSpace": {\n    "TuningParameters": [\n' >"$TMP/cut.json"
expect_fail 1 "cut.json:4:[0-9]+: invalid JSON" "$KTUNE" space "$TMP/cut.json"
sed 's/"Values": "\[0, 1, 2, 3, 4, 5, 6, 7, 8\]"/"Values": 7/' "$SPEC" >"$TMP/bad.json"
cp tests/kernels/faulty.c tests/kernels/faulty_ref.c "$TMP/"
expect_fail 1 "TuningParameters\[0\]\.Values: expected a string or an array, found a number" \
    "$KTUNE" space "$TMP/bad.json"
sed 's/"Conditions": \[\]/"Conditions": [{"Parameters": [], "Expression": "MODE +* 2"}]/' \
    "$SPEC" >"$TMP/cond.json"
expect_fail 1 "Conditions\[0\]\.Expression: .*column" "$KTUNE" space "$TMP/cond.json"
pass "malformed specs"

expect_fail 2 "expects a whole number" "$KTUNE" tune "$SPEC" --budget ten
expect_fail 1 "'Q' is not a problem parameter" "$KTUNE" tune "$SPEC" --problem Q=1 \
    --db "$TMP/e.db"
expect_fail 1 "unknown strategy 'psychic'" "$KTUNE" tune "$SPEC" --strategy psychic \
    --db "$TMP/e.db"
expect_fail 2 "expected one SPEC" "$KTUNE" tune
expect_fail 2 "must be 0 to 60 seconds" "$KTUNE" tune "$SPEC" --energy-window 61
expect_fail 2 "expects a positive number, not '-1'" "$KTUNE" tune "$SPEC" --energy-window -1
pass "bad options"

echo "definitely not sqlite" >"$TMP/not.db"
expect_fail 1 "not a ktune database" "$KTUNE" tune "$SPEC" --db "$TMP/not.db" --budget 1
[ "$(cat "$TMP/not.db")" = "definitely not sqlite" ] || fail "the bad file was changed"
expect_fail 1 "no such file" "$KTUNE" db best --db "$TMP/absent.db"
[ ! -e "$TMP/absent.db" ] || fail "db best created a file"
expect_fail 2 "expected 'best'" "$KTUNE" db export xml --db "$TMP/not.db"
pass "bad databases"
