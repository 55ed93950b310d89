#!/bin/sh
# parallel.sh - fuzz one harness with RUNS inputs in all, spread over P
# processes (each its own seed and corpus, started from the seeds), and
# report the total, the rate and any crashing input: the long runs that
# docs/RELIABILITY.md records (make fuzz runs one process for a time).
#
# Usage: sh fuzz/parallel.sh BIN_DIR SEED_DIR NAME RUNS P OUT [SECONDS]
#   BIN_DIR holds fuzz_NAME (make fuzz builds it in build/fuzz/), SEED_DIR
#   the seed corpora (fuzz/corpus); logs and crashing inputs go to OUT/NAME/.
#   SECONDS, when given, stops each process after that long (the total then
#   says how far it got).  Process i uses seed SEED_BASE + i + 1 (SEED_BASE
#   from the environment, default 0), so a second run can go on elsewhere.
set -u
bin=$1/fuzz_$3 seeds=$2/$3 name=$3 runs=$4 p=$5 out=$6/$3 secs=${7:-0}
per=$(((runs + p - 1) / p))
mkdir -p "$out"
start=$(date +%s)
pids="" i=0
while [ $i -lt "$p" ]; do
    mkdir -p "$out/corpus$i"
    "$bin" -runs=$per -max_total_time="$secs" -seed=$((${SEED_BASE:-0} + i + 1)) \
        -rss_limit_mb=3000 \
        -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$i-" "$out/corpus$i" "$seeds" >"$out/log$i" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
failed=0
for pid in $pids; do wait "$pid" || failed=$((failed + 1)); done
took=$(($(date +%s) - start))
total=$(cat "$out"/log* | sed -n 's/^stat::number_of_executed_units: *//p' |
    awk '{ s += $1 } END { print s + 0 }')
crashes=$(find "$out" -name 'crash-*' | wc -l)
echo "$name: $total inputs in $p processes, $took s ($((total / (took > 0 ? took : 1)))/s)," \
    "$failed processes failed, $crashes crashing inputs"
[ "$failed" -eq 0 ] && [ "$crashes" -eq 0 ]
