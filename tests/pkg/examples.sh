# examples.sh - the examples under examples/ build against ktune installed
# into a temporary DESTDIR, through pkg-config alone (examples/Makefile),
# and the CPU ones run: offline tuning of the SGEMM for a few shapes then
# runtime selection of a mixed stream, and online tuning from an empty
# database.  The CUDA one builds everywhere and skips without a GPU.  Run
# by `make test-pkg` (so by `make check`).
. "$(dirname "$0")/install.inc"
export LD_LIBRARY_PATH="$D/lib"
# The installed library finds its installed worker by itself.
unset KTUNE_WORKER
mk() { ${MAKE:-make} --no-print-directory -C "$ROOT/examples" OUT="$TMP" WORK="$TMP/work" "$@"; }

mk all CFLAGS="-O2 -Werror" >"$TMP/build" 2>&1 || fail "building the examples: $(cat "$TMP/build")"
for e in tune_select online_gemm online_gemm_cuda; do
    [ -x "$TMP/$e" ] || fail "examples: $e was not built"
    readelf -d "$TMP/$e" | grep -q 'NEEDED.*libktune\.so\.0' || fail "$e is not linked with libktune.so.0"
done

(cd "$TMP" && mk run BUDGET=3 SIZE=64 CALLS=2000 WAIT=wait) >"$TMP/run" 2>&1 ||
    fail "running the examples: $(cat "$TMP/run")"
grep -q '^tuned M=64,N=64,K=64: ' "$TMP/run" || fail "tune_select: $(cat "$TMP/run")"
grep -Eq '^answers: [2-9] from the database' "$TMP/run" || fail "tune_select: $(cat "$TMP/run")"
grep -Eq '^M=64,N=64,K=64: 2000 calls, [0-9]+ exploring' "$TMP/run" ||
    fail "online_gemm: $(cat "$TMP/run")"
grep -q 'serving MR=' "$TMP/run" || fail "online_gemm: $(cat "$TMP/run")"
# What online tuning learnt is in the database, marked as online.
"$D/bin/ktune" db list --db "$TMP/work/online.db" >"$TMP/list" 2>&1 || fail "db list: $(cat "$TMP/list")"
grep -q 'M=64,N=64,K=64' "$TMP/list" || fail "online rows: $(cat "$TMP/list")"

(cd "$TMP" && mk run-cuda) >"$TMP/cuda" 2>&1 || fail "the CUDA example: $(cat "$TMP/cuda")"
grep -Eq '^(skip: |tuned )' "$TMP/cuda" || fail "the CUDA example: $(cat "$TMP/cuda")"
# the online one: skipped without a device, else a line per shape
[ "$(grep -Ec '^(skip: |M=[0-9]+,N=[0-9]+,K=[0-9]+: [0-9]+ calls)' "$TMP/cuda")" -ge 2 ] ||
    fail "the CUDA online example: $(cat "$TMP/cuda")"
pass "examples: built by pkg-config against the installed library; tune+select and online tuning ran ($(grep -c '^call ' "$TMP/run") selections)"
