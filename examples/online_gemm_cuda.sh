#!/bin/sh
# online_gemm_cuda.sh - the CUDA online example with its offline reference:
# per shape, `ktune tune` finds the offline best (in at most SECONDS, its
# own database and compile cache), then online_gemm_cuda serves CALLS calls
# of each shape online from an empty database and cache, and compares its
# choice with that best, both timed alone the same way.  Prints "skip: ..."
# and exits with 0 where no CUDA device (or no NVRTC) is.  Runs in the
# current folder (its databases and caches go there).
#
#   online_gemm_cuda.sh KTUNE PROGRAM SPEC CALLS SECONDS SHAPE...
set -u
[ $# -ge 6 ] || { echo "usage: $0 KTUNE PROGRAM SPEC CALLS SECONDS SHAPE..." >&2; exit 2; }
ktune=$1 prog=$2 spec=$3 calls=$4 time=$5
shift 5
pairs=
for s in "$@"; do
    if ! "$ktune" tune "$spec" --problem "$s" --time "$time" --db offline.db \
            --cache offline-cache >tune.txt 2>&1; then
        if grep -q 'CUDA\|NVRTC' tune.txt; then
            echo "skip: $(tail -n 1 tune.txt)"
            exit 0
        fi
        cat tune.txt >&2
        exit 1
    fi
    best=$(sed -n 's/^best  *\([^ ]*\).*/\1/p' tune.txt)
    echo "offline $s:"
    grep -E '^(evaluated|best|  )' tune.txt | sed 's/^/  /'
    [ -n "$best" ] || exit 1
    pairs="$pairs $s $best"
done
rm -rf online.db .ktune-cache
exec "$prog" "$spec" online.db "$calls" $pairs
