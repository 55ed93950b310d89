# install.sh - `make install` into a temporary DESTDIR gives what an outside
# program needs: tests/pkg/app.c builds with `pkg-config --cflags --libs
# ktune` alone and runs against libktune.so; with `--static` it links
# libktune.a and nothing else of ktune; the installed ktune tunes from any
# folder, finding its worker in libexec/ktune/ without $KTUNE_WORKER; and
# `make uninstall` removes every file.  Run by `make test-pkg`.
. "$(dirname "$0")/install.inc"
for f in bin/ktune libexec/ktune/ktune-worker lib/libktune.so lib/libktune.a \
         include/ktune.h lib/pkgconfig/ktune.pc share/man/man1/ktune.1 \
         share/ktune/kernels/gemm/gemm-c.json; do
    [ -e "$D/$f" ] || fail "make install did not install $f"
done

grep -qx "prefix=$PREFIX" "$D/lib/pkgconfig/ktune.pc" || fail "ktune.pc: $(head -5 "$D/lib/pkgconfig/ktune.pc")"
app() { # app NAME LINK-ARGUMENTS...: build tests/pkg/app.c and run it
    out=$TMP/$1; shift
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$out" "$ROOT/tests/pkg/app.c" "$@" \
        2>"$TMP/err" || fail "building app.c: $(cat "$TMP/err")"
    LD_LIBRARY_PATH="$D/lib" "$out" "$D/share/ktune/kernels/gemm/gemm-c.json" >"$TMP/run" 2>&1 ||
        fail "app: $(cat "$TMP/run")"
    grep -q "^ktune .*MR=.*(from the default)" "$TMP/run" || fail "app said: $(cat "$TMP/run")"
}
# shellcheck disable=SC2046
app shared $(pkg-config --cflags --libs ktune)
readelf -d "$TMP/shared" | grep -q 'NEEDED.*libktune\.so\.0' ||
    fail "app is not linked with libktune.so.0: $(readelf -d "$TMP/shared" | grep NEEDED)"
# The README's static link: the archive, then what --static says it needs
# (Requires.private and Libs.private); libktune.so, also there, unused.
# shellcheck disable=SC2046
app static $(pkg-config --cflags ktune) -Wl,-Bstatic -lktune -Wl,-Bdynamic -Wl,--as-needed \
    $(pkg-config --libs --static ktune)
! readelf -d "$TMP/static" | grep -q 'NEEDED.*libktune' || fail "app --static loads libktune.so"

# The installed ktune, from elsewhere, without $KTUNE_WORKER.
mkdir "$TMP/run-dir"
if ! (cd "$TMP/run-dir" && env -u KTUNE_WORKER PATH=/usr/bin:/bin "$D/bin/ktune" tune \
        "$D/share/ktune/kernels/gemm/gemm-c.json" --problem M=64,N=64,K=64 --budget 1 \
        --cache cache --db t.db >out 2>&1); then
    fail "the installed ktune cannot tune: $(cat "$TMP/run-dir/out")"
fi
grep -q '1 ok' "$TMP/run-dir/out" || fail "installed ktune: $(cat "$TMP/run-dir/out")"

${MAKE:-make} --no-print-directory -C "$ROOT" uninstall BUILD="${BUILD:-build}" \
    DESTDIR="$DEST" PREFIX="$PREFIX" >"$TMP/log" 2>&1 || { cat "$TMP/log" >&2; fail "make uninstall"; }
left=$(find "$DEST" ! -type d)
[ -z "$left" ] || fail "make uninstall left $left"
pass "make install: app.c built by pkg-config (shared and --static), installed ktune finds its worker; uninstall"
