#!/bin/sh
# record_cpu.sh - the exhaustive recordings of the CPU SGEMM behind
# docs/SEARCH.md: every valid configuration of kernels/gemm/gemm-c.json
# measured (ktune tune --strategy brute_force) at
#   bench    four shapes for the strategy benchmark (256^3, 512^3, a tall-skinny
#            2048x64x512 and a non-cubic 384x640x192),
#   grid     M, N, K in {32, 64, 128, 256} (64 shapes) to train the predictor,
#   heldout  twelve shapes between the grid's points, to test it.
# A stopped run resumes where it stopped (ktune answers what DB holds).
# 'export' then writes what DB holds of each set to bench/data/ as CSV
# (`ktune import csv` reads it back): every row of bench and heldout, and
# the best row of each grid shape (all that training reads).
#
#   bench/record_cpu.sh DB [bench|grid|heldout|export]...
#                                      (default: bench grid heldout export)
set -eu
db=${1:?usage: bench/record_cpu.sh DB [bench|grid|heldout]...}
shift
KTUNE=${KTUNE:-build/ktune}
CACHE=${CACHE:-.ktune-cache}   # compiled configurations, shared by all shapes
SPEC=kernels/gemm/gemm-c.json

shapes() {
    case $1 in
    bench) echo M=256,N=256,K=256 M=512,N=512,K=512 M=2048,N=64,K=512 \
                M=384,N=640,K=192 ;;
    grid) for m in 32 64 128 256; do for n in 32 64 128 256; do
              for k in 32 64 128 256; do echo "M=$m,N=$n,K=$k"; done; done; done ;;
    heldout) echo M=48,N=96,K=192 M=80,N=160,K=40 M=224,N=48,K=112 \
                  M=160,N=224,K=80 M=40,N=120,K=200 M=96,N=48,K=240 \
                  M=176,N=88,K=144 M=112,N=208,K=56 M=200,N=40,K=96 \
                  M=144,N=176,K=216 M=56,N=136,K=72 M=240,N=112,K=168 ;;
    *) echo "record_cpu.sh: unknown set '$1'" >&2; exit 2 ;;
    esac
}

# The rows of a set's shapes as CSV; with best=1 only each shape's fastest.
export_set() {
    keys=$(for p in $(shapes "$1"); do printf "'%s'," "$p"; done)
    best=""
    [ "$2" = 1 ] && best="AND m.time_ms = (SELECT min(b.time_ms) FROM measurement b
        WHERE b.problem_id = m.problem_id AND b.device_id = m.device_id AND b.status = 'ok')"
    sqlite3 -csv -header "$db" "SELECT d.name AS device, k.name AS kernel, k.source_hash,
        p.key AS problem, m.config, m.status,
        CASE WHEN m.time_ms IS NULL THEN '' ELSE printf('%.6g', m.time_ms) END AS time_ms,
        CASE WHEN m.min_ms IS NULL THEN '' ELSE printf('%.6g', m.min_ms) END AS min_ms,
        CASE WHEN m.spread IS NULL THEN '' ELSE printf('%.4g', m.spread) END AS spread,
        m.reps, m.detail
        FROM measurement m JOIN device d ON d.id = m.device_id
        JOIN problem p ON p.id = m.problem_id JOIN kernel k ON k.id = p.kernel_id
        WHERE k.name = 'gemm' AND p.key IN (${keys%,}) $best
        ORDER BY p.key, m.config"
}

[ $# -gt 0 ] || set -- bench grid heldout export
for set in "$@"; do
    if [ "$set" = export ]; then
        mkdir -p bench/data
        export_set bench 0 >bench/data/gemm-cpu-bench.csv
        export_set heldout 0 >bench/data/gemm-cpu-heldout.csv
        export_set grid 1 >bench/data/gemm-cpu-grid-best.csv
        continue
    fi
    for p in $(shapes "$set"); do
        echo "$(date -u +%FT%TZ) $set $p load $(cut -d' ' -f1-3 /proc/loadavg)"
        "$KTUNE" tune "$SPEC" --problem "$p" --strategy brute_force --db "$db" \
            --cache "$CACHE" >/dev/null
    done
done
echo "$(date -u +%FT%TZ) done load $(cut -d' ' -f1-3 /proc/loadavg)"
