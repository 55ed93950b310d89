#!/bin/sh
# devices.sh - on the GPU machine, in one call: the FP16 GEMM tuned for
# SECONDS without --devices and with --devices 0 (the executor's one worker
# named by its ordinal), each from an empty database and compile cache; a
# line each with the best configuration, its time and the configurations
# measured a minute.
#
#   bench/gpu/devices.sh OUT DIR       (DIR holds bundle/ and kernels/)
# Environment: SECONDS_CAP (40).
set -u
OUT=$1 DIR=$2
KT=$DIR/bundle/ktune W=/tmp/ktune-devices
CAP=${SECONDS_CAP:-40}
export KTUNE_WORKER=$DIR/bundle/ktune-worker LD_LIBRARY_PATH=$DIR/bundle/lib
mkdir -p "$OUT" "$W"
for mode in plain dev0; do
    extra=""
    [ "$mode" = dev0 ] && extra="--devices 0"
    rm -rf "$W/$mode.db" "$W/cache-$mode"
    # shellcheck disable=SC2086 # $extra is two words or none
    "$KT" tune "$DIR/kernels/gemm/gemm-f16-cuda.json" --time "$CAP" --db "$W/$mode.db" \
        --cache "$W/cache-$mode" --json $extra >"$OUT/$mode.json" 2>"$OUT/$mode.err"
    echo "exit $?" >>"$OUT/$mode.err"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['best']; \
print(f\"$mode: best {b['key']} {b['time_ms']:.4f} ms, {r['measured']} measured \
in {r['seconds']:.1f} s = {60*r['measured']/r['seconds']:.1f} configurations/min\")" \
        "$OUT/$mode.json"
done 2>&1 | tee "$OUT/devices.txt"
