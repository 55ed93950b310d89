#!/bin/sh
# opencl.sh - on the GPU machine, in one call (about 3 minutes): the OpenCL
# backend on NVIDIA's OpenCL platform (--platform NVIDIA) and on PoCL
# (--platform Portable): ktune's small saxpy spec tuned by brute force and
# KTT's CoulombSum2d by a capped random search, every result verified (saxpy
# against its reference kernel, CoulombSum2d against its default
# configuration), then each run's statuses, best time and the devices'
# fingerprints as the database stores them.
#
#   make bundle                       (here; copy build/bundle to the main
#                                      checkout's build/NAME/ and give the run
#                                      tool carry: ["build/NAME"]: build/ is
#                                      ignored, so it travels only that way)
#   bench/gpu/opencl.sh OUT [KTUNE]   (there; KTUNE default build/bundle/ktune)
# Environment: BUDGET (CoulombSum2d's configurations, default 40), TIME
# (seconds per run, default 40).
set -u
OUT=${1:-${OUT:-/tmp/ktune-opencl}}
KT=${2:-build/bundle/ktune}
BUDGET=${BUDGET:-40} TIME=${TIME:-40}
export KTUNE_WORKER=${KTUNE_WORKER:-$(dirname "$KT")/ktune-worker}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ktune-opencl.XXXXXX") # caches: not sent back
trap 'rm -rf "$WORK"' EXIT
export POCL_CACHE_DIR="$WORK/pocl"
mkdir -p "$OUT"
DB="$OUT/opencl.db"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "$($KT --version 2>/dev/null | head -n 1), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== ktune devices"
"$KT" devices
fails=0
run() { # NAME ARGS...: one tune, its summary
    name=$1; shift
    echo "== $name: ktune tune $* --db DB --cache CACHE --energy-window 0 --time $TIME"
    if ! "$KT" tune "$@" --db "$DB" --cache "$WORK/cache" --energy-window 0 \
        --time "$TIME" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
        fails=$((fails + 1))
        echo "FAILED: $(grep -v "generated" "$WORK/$name.err" | tail -n 3)"
    fi
    tail -n 6 "$WORK/$name.out"
}
SAXPY=tests/data/opencl/saxpy.json
COUL=tests/data/t1/ktt/CoulombSum2d/CoulombSum2dScript.json
run saxpy-nvidia "$SAXPY" --platform NVIDIA --problem N=16777216 --strategy brute_force
run coulomb-nvidia "$COUL" --platform NVIDIA --strategy random --budget "$BUDGET" --seed 3
run saxpy-pocl "$SAXPY" --platform Portable --problem N=1000003 --strategy brute_force
run coulomb-pocl "$COUL" --platform Portable --strategy random --budget 3 --seed 3
echo "== statuses per kernel and device"
"$KT" db export csv --db "$DB" >"$OUT/opencl.csv"
python3 - "$OUT/opencl.csv" <<'PY'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
count = collections.Counter((r.get("kernel"), r.get("device"), r.get("status")) for r in rows)
for (k, d, s), n in sorted(count.items()):
    print(f"{k:18} {d:40} {s:14} {n}")
PY
sqlite3 "$DB" "SELECT name, fingerprint FROM device" 2>/dev/null ||
    python3 -c 'import sqlite3, sys; [print(*r, sep="|") for r in sqlite3.connect(sys.argv[1]).execute("SELECT name, fingerprint FROM device")]' "$DB"
echo "failed runs: $fails"
