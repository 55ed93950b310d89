# errors.sh - bad input gets one clear line and a non-zero exit, never a
# crash (an exit status of 128 or more would be a signal).
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json

expect_fail 2 "^usage: ktune" "$KTUNE"
expect_fail 2 "'frobnicate' is not a ktune command" "$KTUNE" frobnicate
for c in tune space db; do
    "$KTUNE" $c --help | grep -q "^usage: ktune $c" || fail "$c --help"
done
"$KTUNE" --version | grep -Eqx 'ktune [0-9]+\.[0-9]+\.[0-9]+' || fail "--version"
pass "usage, --help and --version"

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
expect_fail 2 "'Q' is not a problem parameter" "$KTUNE" tune "$SPEC" --problem Q=1 \
    --db "$TMP/e.db"
expect_fail 2 "unknown strategy 'psychic'" "$KTUNE" tune "$SPEC" --strategy psychic \
    --db "$TMP/e.db"
expect_fail 2 "expected one SPEC" "$KTUNE" tune
expect_fail 2 "must be 0 to 60 seconds" "$KTUNE" tune "$SPEC" --energy-window 61
expect_fail 2 "expects a positive number, not '-1'" "$KTUNE" tune "$SPEC" --energy-window -1
expect_fail 2 "must be 0 to 600 seconds" "$KTUNE" tune "$SPEC" --energy-warmup 601
expect_fail 2 "expects a positive number, not 'soon'" "$KTUNE" tune "$SPEC" --energy-warmup soon
pass "bad options"

echo "definitely not sqlite" >"$TMP/not.db"
expect_fail 1 "not a ktune database" "$KTUNE" tune "$SPEC" --db "$TMP/not.db" --budget 1
[ "$(cat "$TMP/not.db")" = "definitely not sqlite" ] || fail "the bad file was changed"
expect_fail 1 "no such file" "$KTUNE" db best --db "$TMP/absent.db"
[ ! -e "$TMP/absent.db" ] || fail "db best created a file"
expect_fail 2 "expected 'best'" "$KTUNE" db export xml --db "$TMP/not.db"
pass "bad databases"

# Every usage error: exit 2, "ktune: error:" and a hint, never getopt's own
# "tune: ..." line.
expect_fail 2 "^ktune: error: '--frob' is not an option of 'ktune tune'" \
    "$KTUNE" tune "$SPEC" --frob
grep -q "^hint: see 'ktune tune --help'" "$TMP/err" || fail "no hint: $(cat "$TMP/err")"
expect_fail 2 "^ktune: error: option '--budget' needs a value" "$KTUNE" tune "$SPEC" --budget
expect_fail 2 "^ktune: error: '--x' is not an option of 'ktune train'" "$KTUNE" train --x
for c in db evaluate predict; do
    expect_fail 2 "^ktune: error: '--x' is not an option of 'ktune $c'" "$KTUNE" $c --x
    "$KTUNE" $c --help | grep -q "^exit status: 0 success, 1 failure, 2 bad usage" ||
        fail "$c --help lacks the exit status"
done
"$KTUNE" tune --help | grep -q "130 stopped by SIGINT, 143 by SIGTERM" ||
    fail "tune --help lacks the exit status"
pass "usage errors exit 2 and say ktune"

# Options that used to give a quiet wrong answer.
G=kernels/gemm/gemm-c.json
expect_fail 2 "error: --problem does not set K: give every problem parameter of 'gemm' \(its defaults: M=1024,N=1024,K=1024\)" \
    "$KTUNE" tune "$G" --problem M=128,N=128 --db "$TMP/e.db"
expect_fail 2 "problem parameter 'M' is set twice" \
    "$KTUNE" tune "$G" --problem M=1,M=2,N=1,K=1 --db "$TMP/e.db"
expect_fail 2 "problem parameter 'M' takes whole numbers \(its default is 1024\), not '1.5'" \
    "$KTUNE" tune "$G" --problem M=1.5,N=1,K=1 --db "$TMP/e.db"
expect_fail 2 "problem value M=1e20 is too large: at most 9007199254740992" \
    "$KTUNE" tune "$G" --problem M=1e20,N=1,K=1 --db "$TMP/e.db"
expect_fail 2 "empty problem setting" "$KTUNE" tune "$G" --problem M=1,,N=1,K=1
expect_fail 2 "error: --budget 200% is more than the whole space: give at most 100%" \
    "$KTUNE" tune "$G" --budget 200%
expect_fail 2 "error: --jobs must be 1 to 1024, not '0'" "$KTUNE" tune "$G" --jobs 0
expect_fail 2 "error: --dropout must be at least 0 and below 1, not '1.5'" \
    "$KTUNE" train --kernel k --out "$TMP/m.ktm" --dropout 1.5
expect_fail 2 "error: --holdout must be at least 0 and below 1, not '1'" \
    "$KTUNE" train --kernel k --out "$TMP/m.ktm" --holdout 1
expect_fail 2 "error: --k must be between 1 and 1000" "$KTUNE" train --kernel k --out "$TMP/m.ktm" --k 0
expect_fail 2 "error: --lr must be above 0 and at most 1" \
    "$KTUNE" train --kernel k --out "$TMP/m.ktm" --lr 3
expect_fail 2 "error: --limit must be at least 1, not '0'" "$KTUNE" evaluate --model "$TMP/m.ktm" --limit 0
pass "out-of-range options and partial problems are refused"

# a condition that divides by zero for every configuration empties the
# space: say which condition and where, not "no configuration"
sed 's|"Conditions": \[\]|"Conditions": [{"Parameters": ["MODE", "VARIANT"], "Expression": "MODE / (VARIANT - VARIANT) > 0"}]|' \
    "$SPEC" >"$TMP/div.json"
expect_fail 1 "the condition \"MODE / \(VARIANT - VARIANT\) > 0\" cannot be evaluated for MODE=0,VARIANT=1 \(division by zero" \
    "$KTUNE" tune "$TMP/div.json" --db "$TMP/e.db"
# a message longer than its buffer keeps its column and reason
long=$(i=0; while [ $i -lt 150 ]; do printf 'MODE + '; i=$((i + 1)); done)
sed "s|\"Conditions\": \[\]|\"Conditions\": [{\"Parameters\": [], \"Expression\": \"$long* 2\"}]|" \
    "$SPEC" >"$TMP/long.json"
expect_fail 1 "^ktune: error: $TMP/long.json: ConfigurationSpace.Conditions\[0\].Expression: in \"MODE .* \[\.\.\.\] .*: column 1051: expected an operand, found '\*'$" \
    "$KTUNE" space "$TMP/long.json"
pass "domain errors in conditions and long messages"
