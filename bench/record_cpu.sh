#!/bin/sh
# record_cpu.sh - the exhaustive recordings of the CPU SGEMM behind
# docs/SEARCH.md: every valid configuration of kernels/gemm/gemm-c.json
# measured (ktune tune --strategy brute_force) at
#   bench    four shapes for the strategy benchmark (256^3, 512^3, a tall-skinny
#            2048x64x512 and a non-cubic 384x640x192),
#   heldout  twelve shapes between the grid's points, to test the predictor,
#   grid     M, N, K in {32, 64, 128, 256} (64 shapes) to train it.
# Every configuration is compiled first on all cores (the space of 8x8x300
# holds every configuration any of these shapes allows); then PAR shapes
# are measured at a time, each into its own database under DIR (a stopped
# run resumes where it stopped: ktune answers what a database holds).
# 'export' writes what DIR holds to bench/data/ as bzip2-compressed CSV
# (`bzcat F | ktune import csv /dev/stdin` reads it back), one file per set.
#
#   bench/record_cpu.sh DIR [bench|heldout|grid|export]...
#                              (default: bench heldout grid export)
# Environment: KTUNE (build/ktune), PAR (parallel shapes, default 1; keep
# PAR x 2 threads within the cores: faster, but shapes measured side by side
# disturb each other; docs/SEARCH.md measures how much), CACHE (compiled
# configurations).
set -eu
dir=${1:?usage: bench/record_cpu.sh DIR [bench|heldout|grid|export]...}
shift
KTUNE=${KTUNE:-build/ktune}
CACHE=${CACHE:-.ktune-cache}
PAR=${PAR:-1}
SPEC=kernels/gemm/gemm-c.json
mkdir -p "$dir"

shapes() {
    case $1 in
    bench) echo M=256,N=256,K=256 M=512,N=512,K=512 M=2048,N=64,K=512 \
                M=384,N=640,K=192 ;;
    heldout) echo M=48,N=96,K=192 M=80,N=160,K=40 M=224,N=48,K=112 \
                  M=160,N=224,K=80 M=40,N=120,K=200 M=96,N=48,K=240 \
                  M=176,N=88,K=144 M=112,N=208,K=56 M=200,N=40,K=96 \
                  M=144,N=176,K=216 M=56,N=136,K=72 M=240,N=112,K=168 ;;
    grid) for m in 32 64 128 256; do for n in 32 64 128 256; do
              for k in 32 64 128 256; do echo "M=$m,N=$n,K=$k"; done; done; done ;;
    *) echo "record_cpu.sh: unknown set '$1'" >&2; exit 2 ;;
    esac
}

db_of() { echo "$dir/$(echo "$1" | tr =, _-).db"; }

# The rows of a set's shapes as CSV, one header.
export_set() {
    first=1
    for p in $(shapes "$1"); do
        "$KTUNE" db export csv --db "$(db_of "$p")" --problem "$p" |
            if [ $first = 1 ]; then cat; else tail -n +2; fi
        first=0
    done
}

[ $# -gt 0 ] || set -- bench heldout grid export
compiled=0
for set in "$@"; do
    if [ "$set" = export ]; then
        mkdir -p bench/data
        for s in bench heldout grid; do
            missing=$(for p in $(shapes $s); do [ -f "$(db_of "$p")" ] || echo "$p"; done)
            if [ -n "$missing" ]; then
                echo "export: $dir lacks shapes of set $s (e.g. $(echo $missing | cut -d' ' -f1)): not written"
                continue
            fi
            export_set $s | bzip2 -9 >bench/data/gemm-cpu-$s.csv.bz2
        done
        continue
    fi
    if [ $compiled = 0 ]; then
        echo "$(date -u +%FT%TZ) compiling every configuration, load $(cut -d' ' -f1-3 /proc/loadavg)"
        "$KTUNE" tune "$SPEC" --problem M=8,N=8,K=300 --strategy brute_force \
            --db "$dir/compile.db" --cache "$CACHE" >/dev/null
        compiled=1
    fi
    echo "$(date -u +%FT%TZ) $set, load $(cut -d' ' -f1-3 /proc/loadavg)"
    for p in $(shapes "$set"); do echo "$p $(db_of "$p")"; done |
        xargs -P "$PAR" -n 2 sh -c "\"$KTUNE\" tune $SPEC --problem \"\$0\" --strategy brute_force \
            --db \"\$1\" --cache \"$CACHE\" --jobs 1 >/dev/null"
done
echo "$(date -u +%FT%TZ) done, load $(cut -d' ' -f1-3 /proc/loadavg)"
