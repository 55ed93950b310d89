#!/bin/sh
# energy_label.sh - one recording's energy model, on machine A, with two
# labels from the same readings: the recorded energy per call (the energy
# window's power times the window's own time per call, since 2026-11-29
# 10:00 UTC) and the label of before, that power times the timing phase's
# median time.  The copy with the old label is written beside, in TMP.
#
#   sh bench/gpu/energy_label.sh DB KERNEL      (KTUNE: default build/ktune)
set -eu
DB=$1 K=$2 KTUNE=${KTUNE:-build/ktune} TMP=${TMP:-/tmp}
OLD=$TMP/$(basename "$DB" .db)-timing-label.db
cp "$DB" "$OLD"
sqlite3 "$OLD" "UPDATE measurement SET energy_j = power_w * time_ms * 1e-3 WHERE energy_j IS NOT NULL"
for db in "$DB" "$OLD"; do
    echo "## $KTUNE analyze --db $db --kernel $K --threads 2"
    "$KTUNE" analyze --db "$db" --kernel "$K" --threads 2 | sed -n '1,5p'
done
