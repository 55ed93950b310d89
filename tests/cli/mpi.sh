# mpi.sh - `mpirun -n 3 ktune tune` on the CPU SGEMM stores exactly the rows
# of one process (the same keys and statuses, none twice, none lost), also
# when a measuring rank is killed with SIGKILL mid-run: rank 0 takes it as
# dead after --rank-timeout and hands its configurations to the other.
# Skipped, saying so, where mpirun is absent or ktune was built without MPI.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null 2>&1 || { echo "skip mpi.sh: no mpirun here"; exit 0; }
SPEC=kernels/gemm/gemm-c.json
RUN="--problem M=64,N=64,K=64 --strategy brute_force --budget 24 --jobs 1"
# CI may run as root; 3 ranks on 2 cores; shared memory between the ranks,
# without the single-copy mechanism that a container's ptrace rules refuse.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe --bind-to none --enable-recovery -n 3 \
        --mca btl self,vader --mca btl_vader_single_copy_mechanism none"
case $KTUNE in /*) BIN=$KTUNE ;; *) BIN=$PWD/$KTUNE ;; esac

# rows DB: "problem config status" of every row, sorted
rows() {
    "$KTUNE" db list --db "$1" | awk '{print $2, $3, $4}' | sort
}

# ranks NAME ARGS...: 3 ranks of ktune tune, each rank's pid in
# $TMP/NAME.RANK.pid (exec keeps it), the output in $TMP/NAME.out and .err
ranks() {
    name=$1; shift
    # shellcheck disable=SC2016 # expanded by each rank's shell
    $MPIRUN sh -c 'echo $$ >"$0.$OMPI_COMM_WORLD_RANK.pid"; exec "$@"' "$TMP/$name" \
        "$BIN" tune "$SPEC" $RUN "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

"$KTUNE" tune "$SPEC" $RUN --db "$TMP/one.db" --cache "$TMP/c1" >/dev/null
rows "$TMP/one.db" >"$TMP/one.rows"
[ "$(wc -l <"$TMP/one.rows")" = 24 ] || fail "one process stored $(wc -l <"$TMP/one.rows") rows"

status_of ranks three --db "$TMP/three.db" --cache "$TMP/c3"
if [ "$rc" != 0 ] && grep -q "built without MPI" "$TMP/three.err"; then
    echo "skip mpi.sh: ktune was built without MPI"
    exit 0
fi
[ "$rc" = 0 ] || fail "mpirun -n 3 exited $rc: $(tail -n 5 "$TMP/three.err")"
rows "$TMP/three.db" >"$TMP/three.rows"
cmp -s "$TMP/one.rows" "$TMP/three.rows" ||
    fail "3 ranks stored other rows: $(diff "$TMP/one.rows" "$TMP/three.rows")"
grep -q "evaluated 24 (24 measured now" "$TMP/three.out" || fail "report: $(cat "$TMP/three.out")"
for r in 1 2; do
    grep -Eq "rank $r measured [1-9][0-9]* configurations" "$TMP/three.err" ||
        fail "rank $r measured nothing: $(cat "$TMP/three.err")"
done
pass "3 ranks store the rows of one process, both measuring ranks measuring"

# Batches far longer than the rank timeout: each measuring rank holds 16
# configurations (four per compiler) for about 8 s on machine A, taking no
# messages meanwhile, with a deadline of 2 s.  The heartbeat threads keep
# every rank heard: before they took the beats themselves and every send
# became non-blocking, rank 0 blocked in a send to a busy rank with the
# lock held, both measuring ranks took rank 0 as dead, and mpirun hung.
SAVED_RUN=$RUN SAVED_MPIRUN=$MPIRUN
RUN="--problem M=128,N=128,K=128 --strategy random --budget 32 --seed 1 --jobs 4"
MPIRUN="timeout 120 $MPIRUN"
status_of ranks long --db "$TMP/long.db" --cache "$TMP/cl" --rank-timeout 2
[ "$rc" = 0 ] || fail "long batches: exited $rc: $(tail -n 5 "$TMP/long.err")"
! grep -q "silent" "$TMP/long.err" || fail "long batches: $(cat "$TMP/long.err")"
grep -q "evaluated 32 (32 measured now" "$TMP/long.out" || fail "long: $(cat "$TMP/long.out")"
for r in 1 2; do
    grep -Eq "rank $r measured [1-9][0-9]* configurations" "$TMP/long.err" ||
        fail "long batches: rank $r measured nothing: $(cat "$TMP/long.err")"
done
RUN=$SAVED_RUN MPIRUN=$SAVED_MPIRUN
pass "batches longer than --rank-timeout: every rank stays heard, the run ends"

# All of it from the database: rank 0 never hands anything out, and its
# end still stops the others at once (not after the 60 s of silence).  The
# spec is a copy with a key ktune does not know: its warning comes once,
# from rank 0, not from every rank.
mkdir "$TMP/warn"
cp kernels/gemm/gemm.c kernels/gemm/gemm_ref.c "$TMP/warn/"
sed 's/^{/{"Note": "a key ktune does not know",/' "$SPEC" >"$TMP/warn/gemm-c.json"
start=$(date +%s)
SPEC=$TMP/warn/gemm-c.json ranks again --db "$TMP/three.db" --cache "$TMP/c3" \
    --rank-timeout 60 || fail "the rerun failed: $(tail -n 5 "$TMP/again.err")"
grep -q "evaluated 24 (0 measured now, 24 from the database)" "$TMP/again.out" ||
    fail "rerun: $(cat "$TMP/again.out")"
[ $(($(date +%s) - start)) -lt 40 ] || fail "the measuring ranks waited for rank 0's silence"
[ "$(grep -c "warning: unknown key 'Note' ignored" "$TMP/again.err")" = 1 ] ||
    fail "the spec's warning, not once: $(cat "$TMP/again.err")"
pass "a run answered from the database ends every rank at once; a warning comes once"

# Kill rank 2 once rank 0 has stored a few of the rows.
ranks killed --db "$TMP/killed.db" --cache "$TMP/ck" --rank-timeout 10 &
job=$!
n=0
for _ in $(seq 600); do
    n=$("$KTUNE" db list --db "$TMP/killed.db" 2>/dev/null | wc -l)
    [ "$n" -ge 4 ] && [ -s "$TMP/killed.2.pid" ] && break
    sleep 0.1
done
[ "$n" -ge 4 ] && [ "$n" -lt 24 ] || fail "could not catch the run in the middle ($n rows)"
kill -9 "$(cat "$TMP/killed.2.pid")"
status_of wait "$job"
[ "$rc" = 0 ] || fail "the run with a killed rank exited $rc: $(tail -n 5 "$TMP/killed.err")"
grep -q "rank 2 left out: silent for" "$TMP/killed.err" ||
    fail "rank 0 did not notice: $(cat "$TMP/killed.err")"
rows "$TMP/killed.db" >"$TMP/killed.rows"
cmp -s "$TMP/one.rows" "$TMP/killed.rows" ||
    fail "with rank 2 killed, other rows: $(diff "$TMP/one.rows" "$TMP/killed.rows")"
pass "rank 2 killed after $n rows: rank 0 hands its work on, the rows are one process's"

MPIRUN="mpirun --oversubscribe -n 1"
ranks n1 --db "$TMP/n1.db" --cache "$TMP/c1" || fail "mpirun -n 1: $(cat "$TMP/n1.err")"
rows "$TMP/n1.db" >"$TMP/n1.rows"
cmp -s "$TMP/one.rows" "$TMP/n1.rows" || fail "mpirun -n 1 stored other rows"
grep -q "evaluated 24 (24 measured now" "$TMP/n1.out" || fail "mpirun -n 1: $(cat "$TMP/n1.out")"
pass "mpirun -n 1 is one process"
