# library.sh - the C example of docs/LIBRARY.md ("Tuning from a program") compiles
# against include/ alone (no internal header), links with the library, and
# tunes: it prints the best configuration and exits 0.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $KTUNE in /*) BIN=$KTUNE ;; *) BIN=$ROOT/$KTUNE ;; esac
BUILD=$(dirname "$BIN")
# libs.mk's LIBS, expanded by make itself (it refers to other variables)
LIBS=$(printf 'include %s/libs.mk\nall:\n\t@echo $(LIBS)\n' "$ROOT" | make -s -f -)

# the first C block of the section "Tuning from a program"
awk '/^## / { sec = ($0 == "## Tuning from a program") } sec && /^```c$/ && !done { on = 1; next }
     on && /^```/ { on = 0; done = 1 } on' "$ROOT/docs/LIBRARY.md" >"$TMP/example.c"
grep -q 'ktune_tune(' "$TMP/example.c" || fail "no C example in docs/LIBRARY.md"
# shellcheck disable=SC2086 # LIBS is a list of flags
cc -std=c11 -Wall -Wextra -Werror -I"$ROOT/include" -o "$TMP/example" "$TMP/example.c" \
    "$BUILD/rel/libktune.a" $LIBS || fail "the guide's C example does not build"
pass "the guide's C example builds with include/ alone"

mkdir "$TMP/run"
ln -s "$ROOT/kernels" "$TMP/run/kernels"
(cd "$TMP/run" && KTUNE_WORKER="$BUILD/ktune-worker" "$TMP/example") >"$TMP/out" 2>&1 ||
    fail "the guide's C example failed: $(cat "$TMP/out")"
grep -Eq '^best MR=[0-9]+,.*: [0-9.]+ ms, [0-9.]+x the default$' "$TMP/out" ||
    fail "unexpected output: $(cat "$TMP/out")"
pass "the guide's C example tunes the SGEMM"
