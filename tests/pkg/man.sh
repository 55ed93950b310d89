# man.sh - the manual page that `make` generates from the help texts
# (scripts/gen-man.sh) renders without a warning, and covers every command
# of src/cli/main.c's table and --version.  Run by `make test-pkg`.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case ${BUILD:=build} in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
PAGE=$BUILD/ktune.1

command -v groff >/dev/null || fail "groff is missing (make deps installs groff-base)"
groff -man -ww -z "$PAGE" 2>"$TMP/warn" || fail "groff failed on ktune.1: $(cat "$TMP/warn")"
[ ! -s "$TMP/warn" ] || fail "ktune.1 renders with warnings: $(head -5 "$TMP/warn")"
groff -man -Tutf8 "$PAGE" 2>/dev/null | sed 's/.\x08//g' >"$TMP/text"
for c in $(sed -n 's/^ *{"\([a-z]*\)", cli_.*/\1/p' "$ROOT/src/cli/main.c"); do
    grep -q "^   ktune $c\$" "$TMP/text" || fail "ktune.1 has no section for 'ktune $c'"
done
grep -q 'ktune --version' "$TMP/text" || fail "ktune.1 does not mention --version"
pass "ktune.1 renders without warnings and covers every command"
