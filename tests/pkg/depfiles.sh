# depfiles.sh - an object or test program built without its -MMD file (a
# build folder made before -MMD, or the .d lost) is rebuilt, instead of
# being kept however stale its headers are.  Run by `make test-pkg`.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$TMP/build
mk() { ${MAKE:-make} --no-print-directory -C "$ROOT" BUILD="$B" "$@"; }
for f in rel/src/core/util.o rel/src/cli/main.o; do
    mk "$B/$f" >"$TMP/log" 2>&1 || { cat "$TMP/log" >&2; fail "building $f"; }
    mk -q "$B/$f" || fail "$f is out of date right after its build"
    rm "$B/${f%.o}.d"
    status_of mk -q "$B/$f"
    [ "$rc" -eq 1 ] || fail "$f without its .d file is taken as up to date"
    mk "$B/$f" >"$TMP/log" 2>&1 || { cat "$TMP/log" >&2; fail "rebuilding $f"; }
    [ -f "$B/${f%.o}.d" ] || fail "rebuilding $f wrote no .d file"
done
pass "an object without its .d file is rebuilt"
