# readme.sh - every ```sh example of README.md runs as written, in order, on
# a fresh checkout: the blocks are joined into one script (build/ktune
# replaced by $KTUNE; the set-up commands `make deps demo` and `make deps check`
# left out) and run with `set -e` in an empty folder that sees the
# repository's kernels/, data/ and bench/ through links, so what the
# examples write (databases, models, exports, the compile cache) stays in
# the test's temporary folder.  Every tuning run must measure its
# configurations correctly: a summary that counts a failure class (a
# timeout, a crash, ...) fails the test, as does any example running past
# the time limit.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $KTUNE in /*) BIN=$KTUNE ;; *) BIN=$ROOT/$KTUNE ;; esac

# The sh blocks, in order, without the set-up commands.
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on && !/^make /' \
    "$ROOT/README.md" | sed "s|build/ktune|\"\$KTUNE\"|g" >"$TMP/examples.sh"
[ "$(grep -c KTUNE "$TMP/examples.sh")" -ge 10 ] ||
    fail "found too few README examples: $(cat "$TMP/examples.sh")"

mkdir "$TMP/run"
for d in kernels data bench; do ln -s "$ROOT/$d" "$TMP/run/$d"; done
start=$(date +%s)
if ! (cd "$TMP/run" && KTUNE=$BIN timeout 300 sh -ex "$TMP/examples.sh") \
        >"$TMP/log" 2>&1; then
    tail -n 30 "$TMP/log" >&2
    fail "a README example failed (above)"
fi
# "evaluated 5 (...) in 3.0 s: 5 ok" must name no failure class, nor may
# --json count one ("timeout": 0)
classes='timeout|crash|wrong_result|compile_error|runtime_error'
if grep -E '^(evaluated|replayed) .*: ' "$TMP/log" | grep -Eq "$classes" ||
        grep -Eq "^ *\"($classes)\": [1-9]" "$TMP/log"; then
    grep -E "^(evaluated|replayed) |^ *\"($classes)\": [1-9]" "$TMP/log" >&2
    fail "a README example measured failures"
fi
pass "README examples ($(grep -c '^+ ' "$TMP/log") commands, $(($(date +%s) - start)) s)"
