# exports.sh - libktune.so exports exactly the functions that include/ktune.h
# marks KTUNE_API: the library is compiled with -fvisibility=hidden, so an
# internal function (kt_*) that leaks out, or a public one that lost its
# marker, shows here.  Run by `make test-pkg` with $BUILD the build folder.
. "$(dirname "$0")/../cli/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case ${BUILD:=build} in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SO=$BUILD/rel/libktune.so

# The declared names: each declaration that starts with KTUNE_API, joined up
# to its ';', names the identifier before its first '(' (or '[' or ';').
awk '/^KTUNE_API / { decl = "" } /^KTUNE_API /, /;/ { decl = decl " " $0 }
     /^KTUNE_API /, /;/ { if (index($0, ";")) { sub(/[(\[;].*/, "", decl);
         match(decl, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/);
         name = substr(decl, RSTART, RLENGTH); sub(/[ \t]+$/, "", name); print name } }' \
    "$ROOT/include/ktune.h" | sort >"$TMP/declared"
[ "$(wc -l <"$TMP/declared")" -ge 5 ] ||
    fail "found too few KTUNE_API declarations in ktune.h: $(cat "$TMP/declared")"

nm -D --defined-only "$SO" | awk '{ print $NF }' | sort >"$TMP/exported"
extra=$(comm -13 "$TMP/declared" "$TMP/exported" | tr '\n' ' ')
missing=$(comm -23 "$TMP/declared" "$TMP/exported" | tr '\n' ' ')
[ -z "$extra" ] || fail "libktune.so exports what ktune.h does not declare: $extra"
[ -z "$missing" ] || fail "libktune.so lacks KTUNE_API functions of ktune.h: $missing"

soname=$(objdump -p "$SO" | awk '$1 == "SONAME" { print $2 }')
version=$(sed -n 's/^#define KTUNE_VERSION "\(.*\)"/\1/p' "$ROOT/include/ktune.h")
[ "$soname" = "libktune.so.${version%%.*}" ] ||
    fail "soname '$soname', wanted libktune.so.${version%%.*} (KTUNE_VERSION $version)"
[ "$(readlink -f "$SO")" = "$(readlink -f "$SO.$version")" ] ||
    fail "libktune.so does not lead to libktune.so.$version"
pass "libktune.so ($soname) exports the $(wc -l <"$TMP/exported") KTUNE_API functions and nothing else"
