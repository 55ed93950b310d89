#!/bin/sh
# two_devices.sh - issue 16's run in one go: the same tuning job (random
# configurations, one seed, one budget) measured
#   one     on device 0 alone                    (--devices 0)
#   local   by one process on devices 0 and 1     (--devices 0,1)
#   mpi     by mpirun -n 3: rank 0 leads, ranks 1 and 2 measure on the
#           node's devices 0 and 1
# each from an empty database and compile cache, then the two-device ways
# again with one worker (local-kill) or one measuring rank (mpi-kill)
# killed with SIGKILL once a quarter of the rows are stored.  One line per
# run: configurations measured, seconds, configurations a second and its
# ratio to "one", the best configuration, and whether the stored rows
# (problem, configuration, status) are exactly "one"'s; for local-kill,
# how many configurations were measured again in a fresh worker (the one
# in flight when its worker died), for mpi-kill rank 0's notice.
#
#   KTUNE=build/ktune sh bench/two_devices.sh OUT SPEC PROBLEM BUDGET [JOBS]
#
# JOBS: compilations at a time per process (default: ktune's).  EXTRA:
# more options for every run (e.g. --energy-window 0).  RUNS: which runs,
# in order (default "one local mpi local-kill mpi-kill"); the report covers
# every run whose results are in OUT, so a long job can be split over
# calls that share OUT ("one" first).  The spec's files
# must be where SPEC says on every rank.  On a machine with one device the
# "devices" 0 and 1 are two workers on it, which is what the CPU backend
# does anyway; say so with the figures.
set -eu
OUT=$1 SPEC=$2 PROBLEM=$3 BUDGET=$4
JOBS=${5:+--jobs $5}
: "${KTUNE:?set KTUNE to the ktune binary}"
EXTRA=${EXTRA:-}
RUNS=${RUNS:-one local mpi local-kill mpi-kill}
KT=$(realpath "$KTUNE")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe --bind-to none --enable-recovery -n 3"
mkdir -p "$OUT"
echo "# $(date -u +%FT%TZ) $(hostname): $(nproc) cores; $("$KT" --version | head -1)"
echo "# $SPEC --problem $PROBLEM --strategy random --budget $BUDGET --seed 1 $JOBS $EXTRA"

# tune NAME OPTIONS [PREFIX...]: the run, with OPTIONS (more options of
# ktune tune, one string) and started through PREFIX (mpirun ...), into
# $OUT/NAME.{db,json,err}, its compile cache $OUT/NAME-cache
tune() {
    name=$1 opts=$2
    shift 2
    # shellcheck disable=SC2086 # JOBS, EXTRA and opts are words or nothing
    "$@" "$KT" tune "$SPEC" --problem "$PROBLEM" --strategy random --budget "$BUDGET" \
        --seed 1 $JOBS $EXTRA $opts --db "$OUT/$name.db" --cache "$OUT/$name-cache" \
        --json >"$OUT/$name.json" 2>"$OUT/$name.err"
}

# The rank pids of an MPI run NAME land in $OUT/NAME.RANK.pid.
mpi_tune() {
    name=$1
    # shellcheck disable=SC2016 # expanded by each rank's shell
    tune "$name" "--rank-timeout 20" $MPIRUN \
        sh -c 'echo $$ >"$0.$OMPI_COMM_WORLD_RANK.pid"; exec "$@"' "$OUT/$name"
}

rows() { "$KT" db list --db "$1" | awk '{print $2, $3, $4}' | sort; }

# Wait until run NAME has stored a quarter of the budget's rows.
quarter_in() {
    for _ in $(seq 3000); do
        n=$("$KT" db list --db "$OUT/$1.db" 2>/dev/null | wc -l)
        [ "$n" -ge $((BUDGET / 4)) ] && return 0
        sleep 0.1
    done
    return 1
}

# kill_during NAME VICTIM: run NAME (local-kill or mpi-kill) in the
# background, SIGKILL VICTIM's pid once a quarter is stored, wait.
kill_during() {
    if [ "$1" = mpi-kill ]; then mpi_tune "$1" & else tune "$1" "--devices 0,1" & fi
    job=$!
    quarter_in "$1" || echo "# $1: not a quarter stored in 300 s"
    if [ "$1" = mpi-kill ]; then
        victim=$(cat "$OUT/mpi-kill.2.pid")
    else
        kt=$(pgrep -P "$job" | head -n 1) # the run's ktune, child of the job's shell
        victim=$(pgrep -n -P "$kt" -f ktune-worker || true)
    fi
    [ -n "$victim" ] && kill -9 "$victim" && echo "# $1: killed pid $victim"
    wait "$job" || true
    grep -h "left out" "$OUT/$1.err" || true
}

line() { # NAME: the run's line
    python3 - "$OUT/$1.json" "$1" "$ONE_RATE" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
rate = r["measured"] / r["seconds"]
one = float(sys.argv[3]) if sys.argv[3] else rate
b = r.get("best") or {}
print(f"{sys.argv[2]:<11} {r['measured']:>5} measured in {r['seconds']:7.1f} s: "
      f"{rate:6.2f}/s = {rate / one:4.2f}x one; best {b.get('key')} {b.get('time_ms')}")
EOF
}

for name in $RUNS; do
    case $name in
    one) tune one "--devices 0" ;;
    local) tune local "--devices 0,1" || true ;;
    mpi) mpi_tune mpi || true ;;
    local-kill | mpi-kill) kill_during "$name" ;;
    *) echo "two_devices.sh: no run '$name'" >&2; exit 2 ;;
    esac
done
[ -s "$OUT/one.json" ] || { echo "two_devices.sh: no one-device run in $OUT" >&2; exit 1; }
ONE_RATE=""
line one
ONE_RATE=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["measured"] / r["seconds"])' "$OUT/one.json")
rows "$OUT/one.db" >"$OUT/one.rows"
for name in local mpi local-kill mpi-kill; do
    [ -s "$OUT/$name.json" ] || continue
    line "$name"
    rows "$OUT/$name.db" >"$OUT/$name.rows"
    case $name in local-kill)
        "$KT" db list --db "$OUT/$name.db" --json | python3 -c 'import json, sys
n = sum("in a second worker" in (r["detail"] or "") for r in json.load(sys.stdin))
print(f"  re-measured in a fresh worker after the kill: {n}")' ;;
    esac
    if cmp -s "$OUT/one.rows" "$OUT/$name.rows"; then
        echo "  rows: the same $(wc -l <"$OUT/one.rows") as one's"
    else
        echo "  rows: NOT one's: $(diff "$OUT/one.rows" "$OUT/$name.rows" | grep -c '^[<>]') differ"
    fi
done
