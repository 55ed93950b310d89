# warnings.sh - `ktune tune` prints the tuner's warnings (ktune_tune_opts.warn)
# on stderr, one line each, and goes on.
. "$(dirname "$0")/lib.sh"
: >"$TMP/file" # a file where the cache folder should be
"$KTUNE" tune --replay tests/data/kerneltuner/vector_add_a4000.json --budget 2 \
    --cache "$TMP/file/cache" >"$TMP/out" 2>"$TMP/err" || fail "tune: $(cat "$TMP/err")"
grep -q "^ktune: .*vector_add_a4000.json: warning: its rows are not kept for the next replay: " \
    "$TMP/err" || fail "no warning: $(cat "$TMP/err")"
grep -q "2 ok" "$TMP/out" || fail "the run: $(cat "$TMP/out")"
pass "a recording's rows that cannot be kept are a warning, and the replay goes on"
