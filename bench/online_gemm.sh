#!/bin/sh
# online_gemm.sh - issue 13's online-tuning goal, measured in one run: for
# each size, an offline tune of the CPU SGEMM (`ktune tune`, random search,
# 200 configurations or SECONDS) gives the offline optimum; once it has
# ended, examples/online_gemm serves 2,000 calls online from an empty
# database and compile cache, in blocks of 50 alternating (AB BA AB ...)
# with blocks of 50 calls of the offline optimum alone, in one process:
# the machine's drift falls on both sides alike, and the pairs' spread
# shows the noise.  While the optimum's blocks run, the online handle's
# background compiler is held (ktune_online_hold), so nothing of ktune's
# runs beside them.
#
#   bench/online_gemm.sh KTUNE ONLINE_GEMM SPEC [SIZE[:SECONDS]...]
#     KTUNE        the ktune program (its ktune-worker beside it, or
#                  $KTUNE_WORKER)
#     ONLINE_GEMM  examples/online_gemm built against this ktune
#     SPEC         kernels/gemm/gemm-c.json
#     SIZE         M = N = K (1024:45 512:35 256:20), SECONDS the most its offline
#                  tune may take (45)
# Environment: BLOCK, the calls of each block (50): smaller blocks alternate
# more often, so slow drift cancels better and the pairs are more;
# STRATEGY and BUDGET, the offline tune's (random, 200).
# The load average is printed before and after each step.
#
# Threads are not pinned: with OMP_PROC_BIND set, libgomp (loaded at start
# through libxgboost) binds the program's first thread to one core as it
# loads, and every thread and process started after it inherits that one
# core: ktune's background compilers would share it with the kernel.
set -u
[ $# -ge 3 ] || { echo "usage: $0 KTUNE ONLINE_GEMM SPEC [SIZE[:SECONDS]...]" >&2; exit 2; }
ktune=$(realpath "$1") online=$(realpath "$2") spec=$(realpath "$3")
shift 3
[ $# -gt 0 ] || set -- 1024:45 512:35 256:20
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(date -u +%H:%M:%S) UTC)"; }

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "OMP_PROC_BIND=${OMP_PROC_BIND:-unset} OMP_PLACES=${OMP_PLACES:-unset} BLOCK=${BLOCK:-50}"
"$ktune" --version
load
for arg in "$@"; do
    s=${arg%%:*} time=45
    [ "$s" = "$arg" ] || time=${arg#*:}
    mkdir "$dir/$s" && cd "$dir/$s" || exit 1
    echo "== M=N=K=$s: offline tune (${STRATEGY:-random}, budget ${BUDGET:-200}, at most $time s)"
    "$ktune" tune "$spec" --problem "M=$s,N=$s,K=$s" --strategy "${STRATEGY:-random}" \
        --budget "${BUDGET:-200}" \
        --seed 1 --time "$time" --energy-window 0 --db off.db --cache off-cache 2>&1 |
        tail -4
    best=$("$ktune" db best --db off.db --json |
           python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["key"])')
    rows=$("$ktune" db list --db off.db --json | python3 -c 'import json, sys
r = json.load(sys.stdin); print(sum(x["status"] == "ok" for x in r), "of", len(r))')
    echo "offline optimum: $best (configurations measured: $rows ok)"
    load
    echo "== M=N=K=$s: 2,000 online calls from empty, in pairs of blocks with the optimum"
    "$online" "$spec" online.db 2000 "$s" nowait "$best" "${BLOCK:-50}"
    load
done
