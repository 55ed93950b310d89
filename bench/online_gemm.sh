#!/bin/sh
# online_gemm.sh - issue 13's online-tuning goal, measured in one run: for
# each size, an offline tune of the CPU SGEMM (`ktune tune`, random search,
# 200 configurations or TIME seconds) gives the offline optimum; then
# examples/online_gemm serves 2,000 calls with it alone, online from an
# empty database (and an empty compile cache), with it alone again, and
# with the online winner alone, in one process, and prints the ratios.
#
#   bench/online_gemm.sh KTUNE ONLINE_GEMM SPEC [TIME [SIZE...]]
#     KTUNE        the ktune program (its ktune-worker beside it, or
#                  $KTUNE_WORKER)
#     ONLINE_GEMM  examples/online_gemm built against this ktune
#     SPEC         kernels/gemm/gemm-c.json
#     TIME         seconds the offline tune of one size may take (60)
#     SIZE         M = N = K (1024 512)
# The load average is printed before and after each step.
set -u
[ $# -ge 3 ] || { echo "usage: $0 KTUNE ONLINE_GEMM SPEC [TIME [SIZE...]]" >&2; exit 2; }
ktune=$(realpath "$1") online=$(realpath "$2") spec=$(realpath "$3")
time=${4:-60}
shift 3
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 1024 512
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(date -u +%H:%M:%S) UTC)"; }

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
"$ktune" --version
load
for s in "$@"; do
    mkdir "$dir/$s" && cd "$dir/$s" || exit 1
    echo "== M=N=K=$s: offline tune (random, budget 200, at most $time s)"
    "$ktune" tune "$spec" --problem "M=$s,N=$s,K=$s" --strategy random --budget 200 \
        --seed 1 --time "$time" --energy-window 0 --db off.db --cache off-cache 2>&1 |
        tail -4
    best=$("$ktune" db best --db off.db --json |
           python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["key"])')
    rows=$("$ktune" db list --db off.db --json | python3 -c 'import json, sys
r = json.load(sys.stdin); print(sum(x["status"] == "ok" for x in r), "of", len(r))')
    echo "offline optimum: $best (configurations measured: $rows ok)"
    load
    echo "== M=N=K=$s: 2,000 calls: the optimum alone, online from empty, the optimum alone"
    "$online" "$spec" online.db 2000 "$s" nowait "$best"
    load
done
