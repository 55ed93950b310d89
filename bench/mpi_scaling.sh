#!/bin/sh
# mpi_scaling.sh - a brute-force run of the CPU SGEMM spec as one process and
# spread over MPI ranks (docs/PERFORMANCE.md, "Distributed tuning").
#
#   KTUNE=build/ktune [WORK=DIR] sh bench/mpi_scaling.sh OUT "1 3 5 9" [JOBS] [PROBLEM]
#
# Each run starts from an empty database and an empty compile cache, so it
# compiles every configuration: with N ranks, N-1 measuring ranks each
# compile JOBS at a time (default 2) and measure in their own worker, while
# one process compiles JOBS at a time and measures alone; "1x$(nproc)" is
# one process compiling on every core (ktune's default --jobs).  Prints one
# line per run (ranks, compilers, wall seconds, rows, statuses, whether its
# rows' keys and statuses are the first run's) and keeps each run's report
# and stderr under OUT, its database and cache under WORK (default OUT).
# MPI runs use mpirun --enable-recovery --oversubscribe --bind-to none
# (root allowed).
set -eu
OUT=$1
RANKS=$2
JOBS=${3:-2}
PROBLEM=${4:-M=64,N=64,K=64}
: "${KTUNE:?set KTUNE to the ktune binary}"
SPEC=${SPEC:-kernels/gemm/gemm-c.json}
EXTRA=${EXTRA:-}  # more options of ktune tune for every run (--budget N)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=${WORK:-$OUT}
mkdir -p "$OUT" "$WORK"
CORES=$(nproc)
echo "# $(date -u +%FT%TZ) $(hostname): $CORES cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "# $SPEC --problem $PROBLEM --strategy brute_force $EXTRA, --jobs $JOBS per process"
rm -f "$WORK/first.rows"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-9s %-9s %-8s %-6s %-10s %s\n' ranks measuring compilers wall_s rows same_rows statuses

# run NAME JOBS CMD...: one run from scratch, its line of the table
run() {
    name=$1 jobs=$2; shift 2
    db=$WORK/$name.db
    rm -rf "$db" "$db-wal" "$db-shm" "$WORK/cache-$name"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # EXTRA is a list of options
    "$@" "$KTUNE" tune "$SPEC" --problem "$PROBLEM" --strategy brute_force --jobs "$jobs" \
        --db "$db" --cache "$WORK/cache-$name" --json $EXTRA \
        >"$OUT/$name.json" 2>"$OUT/$name.err" || true
    t1=$(date +%s.%N)
    "$KTUNE" db list --db "$db" | awk '{print $2, $3, $4}' | sort >"$WORK/$name.rows"
    [ -e "$WORK/first.rows" ] || cp "$WORK/$name.rows" "$WORK/first.rows"
    same=no
    cmp -s "$WORK/first.rows" "$WORK/$name.rows" && same=yes
    st=$(awk '{print $3}' "$WORK/$name.rows" | sort | uniq -c |
         awk '{printf "%s%s=%s", (NR > 1 ? "," : ""), $2, $1}')
    printf '%-6s %-9s %-9s %-8.1f %-6s %-10s %s\n' "$name" "$measuring" "$compilers" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        "$(wc -l <"$WORK/$name.rows")" "$same" "$st"
}

for n in $RANKS; do
    if [ "$n" = 1 ]; then
        measuring=1 compilers=$JOBS run 1 "$JOBS" env
    else
        measuring=$((n - 1)) compilers=$(((n - 1) * JOBS))
        run "$n" "$JOBS" mpirun --enable-recovery --oversubscribe --bind-to none -n "$n"
    fi
done
measuring=1 compilers=$CORES run "1x$CORES" "$CORES" env
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
