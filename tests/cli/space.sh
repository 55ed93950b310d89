# space.sh - large spaces: exact counts without enumerating, an empty 10^20
# space refused at once, the bound on condition evaluations, and Ctrl-C.
. "$(dirname "$0")/lib.sh"
KERNEL=$(pwd)/tests/kernels/faulty.c

# spec NAME NPARAMS VALUES CONDITIONS: a spec with parameters P0, P1, ...
spec() {
    {
        printf '{"ConfigurationSpace": {"TuningParameters": ['
        i=0
        while [ "$i" -lt "$2" ]; do
            [ "$i" -gt 0 ] && printf ', '
            printf '{"Name": "P%d", "Type": "int", "Values": "%s"}' "$i" "$3"
            i=$((i + 1))
        done
        printf '], "Conditions": [%s], "ProblemParameters": [{"Name": "N", "Default": 1000}]},' "$4"
        printf ' "KernelSpecification": {"Language": "C", "KernelName": "scale",'
        printf ' "KernelFile": "%s", "Arguments": []}}\n' "$KERNEL"
    } >"$TMP/$1.json"
}
cond() { printf '{"Parameters": [], "Expression": "%s"}' "$1"; }
V10="[$(seq -s ', ' 0 9)]"
V100="[$(seq -s ', ' 0 99)]"
spec bin70 70 "[0, 1]" ""
spec free 10 "$V100" ""
spec linked 10 "$V100" "$(cond 'P0 * P1 <= N'), $(cond 'P2 % (P3 + 1) == 0'), $(cond 'P9 < P4')"
spec empty 20 "$V10" "$(cond 'P0 + P19 > 100')"
SUM=P0; i=1; while [ $i -lt 20 ]; do SUM="$SUM + P$i"; i=$((i + 1)); done
spec unsplit 20 "$V10" "$(cond "$SUM > 1000")"
spec unsplit2 20 "$V10" "$(cond "$SUM + $SUM > 2000")" # twice as long to search

# count_is SPEC EXPECTED: counted within 10 s (each of these ran past 60 s
# when the whole tree was searched)
count_is() {
    n=$(timeout 10 "$KTUNE" space "$TMP/$1.json" --count) || fail "$1: count failed or hung"
    [ "$n" = "$2" ] || fail "$1: counted $n, wanted $2"
}
count_is bin70 1180591620717411303424
count_is free 100000000000000000000
count_is linked 962657190000000000 # 3394 * 573 * 4950 * 100^4
count_is empty 0
pass "space --count of 2^70 and 10^20 spaces, exact, at once"

expect_fail 1 "stopped at the bound of 2000000 condition evaluations, searching P0, P1, P2, P3, ... \(20 parameters, 1e\+20 combinations\).*--max-evals" \
    timeout 10 "$KTUNE" space "$TMP/unsplit.json" --max-evals 2000000
expect_fail 2 "max-evals" "$KTUNE" space "$TMP/unsplit.json" --max-evals lots
pass "space stops at the bound with a message"

expect_fail 1 "empty.json: no configuration satisfies the conditions" \
    timeout 10 "$KTUNE" tune "$TMP/empty.json" --db "$TMP/t.db" --strategy random
expect_fail 1 "free.json: the space has 100000000000000000000 valid configurations, more than 4194304 .*--strategy random" \
    timeout 10 "$KTUNE" tune "$TMP/free.json" --db "$TMP/t.db"
# nothing splits this one: the default bound ends it (about 3 s on one core)
expect_fail 1 "unsplit.json: counting the space: stopped at the bound of 50000000 condition evaluations" \
    timeout 60 "$KTUNE" tune "$TMP/unsplit.json" --db "$TMP/t.db"
pass "tune refuses an empty or oversized 10^20 space quickly"

# random search needs no list: it tunes a sample of a 4 * 10^20 space (the
# faulty kernel with ten more parameters it ignores; MODE 0 or 8 is correct)
P10=$(i=0; while [ $i -lt 10 ]; do printf ', {"Name": "P%d", "Type": "int", "Values": "%s"}' $i "$V100"; i=$((i + 1)); done)
K=$(pwd)/tests/kernels
sed -e "s|\"faulty.c\"|\"$K/faulty.c\"|" -e "s|\"faulty_ref.c\"|\"$K/faulty_ref.c\"|" \
    -e "s|\(\"Values\": \"\[1, 2\]\", \"Default\": 1}\)|\1$P10|" \
    -e "s|\"Conditions\": \[\]|\"Conditions\": [$(cond 'MODE == 0 or MODE == 8'), $(cond 'P0 * P1 <= N')]|" \
    tests/kernels/faulty.json >"$TMP/huge.json"
n=$("$KTUNE" space "$TMP/huge.json" --count)
[ "$n" = 400000000000000000000 ] || fail "huge: counted $n"
timeout 60 "$KTUNE" tune "$TMP/huge.json" --strategy random --budget 4 --db "$TMP/t.db" \
    --json >"$TMP/huge.out" || fail "random on a huge space: $(cat "$TMP/huge.out")"
[ "$(json_get "$TMP/huge.out" measured)" = 4 ] && grep -q '"ok": 4,' "$TMP/huge.out" &&
    [ "$(json_get "$TMP/huge.out" space_size)" = 65536 ] &&
    grep -q '"space_sampled": true' "$TMP/huge.out" || fail "random: $(cat "$TMP/huge.out")"
timeout 60 "$KTUNE" tune "$TMP/huge.json" --strategy random --budget 4 --db "$TMP/t.db" \
    >"$TMP/huge.txt" || fail "random on a huge space: $(cat "$TMP/huge.txt")"
grep -q ": 65536 valid configurations, a uniform sample of a space too large to list" \
    "$TMP/huge.txt" || fail "random, text: $(cat "$TMP/huge.txt")"
expect_fail 1 "unsplit.json: sampling the space: 1000000 random draws of P0, .* found no valid assignment" \
    timeout 60 "$KTUNE" tune "$TMP/unsplit.json" --db "$TMP/t.db" --strategy random
pass "random tunes a sample of a space too large to list"

# stop SIG CMD...: start CMD, send SIG after 1 s while it still runs; $rc,
# $ms (from the signal to the exit) and $TMP/sig.out, sig.err for the checks.
# A background job starts with SIGINT ignored; env --default-signal gives
# it back, as a terminal's Ctrl-C would find it.
stop() {
    sig=$1
    shift
    env --default-signal=INT "$@" >"$TMP/sig.out" 2>"$TMP/sig.err" &
    pid=$!
    sleep 1
    kill -0 "$pid" 2>/dev/null || fail "$* ended before SIG$sig: $(cat "$TMP/sig.err")"
    kill "-$sig" "$pid"
    start=$(date +%s%N)
    set +e
    wait "$pid"
    rc=$?
    set -e
    ms=$((($(date +%s%N) - start) / 1000000))
    [ "$ms" -lt 1000 ] || fail "SIG$sig: $* took $ms ms to stop"
}
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$TMP"' EXIT

# Ctrl-C stops the search within a second, says so, and exits 130; while
# it runs, --progress reports on stderr
stop INT "$KTUNE" space "$TMP/unsplit.json" --max-evals 2000000000 --progress
[ "$rc" -eq 130 ] || fail "SIGINT: exit status $rc, wanted 130: $(cat "$TMP/sig.err")"
grep -q "unsplit.json: interrupted by SIGINT: stopped on request after [0-9]* condition evaluations" \
    "$TMP/sig.err" || fail "SIGINT: said '$(cat "$TMP/sig.err")'"
grep -Eq "^ktune: space: group 1 of 1, 20 parameters, [0-9]+% of the tree" "$TMP/sig.err" ||
    fail "no progress line: $(cat "$TMP/sig.err")"
[ ! -s "$TMP/sig.out" ] || fail "SIGINT: printed a count: $(cat "$TMP/sig.out")"
pass "Ctrl-C stops space --count in $ms ms with status 130"
stop TERM "$KTUNE" space "$TMP/unsplit.json" --max-evals 2000000000 --list
[ "$rc" -eq 143 ] || fail "SIGTERM: exit status $rc, wanted 143: $(cat "$TMP/sig.err")"
grep -q "interrupted by SIGTERM" "$TMP/sig.err" || fail "SIGTERM: said '$(cat "$TMP/sig.err")'"
pass "SIGTERM stops space --list in $ms ms with status 143"
# tune counts the space before listing it: Ctrl-C stops that too
stop INT "$KTUNE" tune "$TMP/unsplit2.json" --db "$TMP/t.db"
[ "$rc" -eq 130 ] || fail "tune SIGINT: exit status $rc, wanted 130: $(cat "$TMP/sig.err")"
grep -q "unsplit2.json: counting the space: stopped on request" "$TMP/sig.err" ||
    fail "tune SIGINT: said '$(cat "$TMP/sig.err")'"
pass "Ctrl-C stops tune while it counts the space, in $ms ms"
