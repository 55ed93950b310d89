# layers.sh - the layer order of docs/ARCHITECTURE.md holds: a library file
# includes headers of its own layer and of the layers listed before it,
# never of one listed after (issue 13).  The order is read from the page's
# table, so the page and the code cannot drift apart.  The command-line
# front end reaches the libraries behind libktune only through it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
sed -n 's/^| [a-z]* | `src\/\([a-z]*\)\/` |.*/\1/p' "$ROOT/docs/ARCHITECTURE.md" >"$TMP/order"
[ "$(wc -l <"$TMP/order")" -ge 8 ] || fail "ARCHITECTURE.md's table names $(cat "$TMP/order")"
rank() { grep -nx "$1" "$TMP/order" | cut -d: -f1; }
for layer in $(cat "$TMP/order"); do
    r=$(rank "$layer")
    for f in "$ROOT"/src/"$layer"/*.[ch]; do
        sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u | while read -r dep; do
            d=$(rank "$dep")
            [ -n "$d" ] || fail "${f#"$ROOT"/} includes $dep/, a folder the table lacks"
            [ "$d" -le "$r" ] || fail "${f#"$ROOT"/} ($layer) includes $dep/, a layer after it"
        done
    done
done
pass "every library file includes only its own layer and those before it"

deps='<(cblas|sqlite3|svm|bzlib|zlib|hdf5|xgboost/|dlfcn)'
! grep -En "^#include $deps" "$ROOT"/src/cli/*.[ch] >"$TMP/cli" ||
    fail "the CLI uses a library of libktune's own: $(cat "$TMP/cli")"
pass "the CLI includes none of the libraries behind libktune"
