# names.sh - a name given on the command line that the data does not have
# is a usage error naming what exists, not an option quietly ignored.
. "$(dirname "$0")/lib.sh"

# 20 shapes of a toy kernel, each with its best configuration
{
    echo "created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail"
    i=1
    while [ $i -le 20 ]; do
        echo "2026-01-01T00:00:00.000Z,cpu,toy,abc,\"M=$((i * 4)),N=7\",\"p0=1,p1=4\",ok,1.5,1.4,0.01,10,,,,5,"
        i=$((i + 1))
    done
} >"$TMP/toy.csv"
"$KTUNE" import csv "$TMP/toy.csv" --db "$TMP/r.db" >/dev/null

expect_fail 2 "split-ignore: 'bogus' is not a field of toy's problems \(M, N\)" \
    "$KTUNE" train --db "$TMP/r.db" --kernel toy --split-ignore N,bogus --out "$TMP/m.ktm"
[ ! -e "$TMP/m.ktm" ] || fail "a model was written"
"$KTUNE" train --db "$TMP/r.db" --kernel toy --split-ignore N --out "$TMP/m.ktm" >/dev/null
pass "train --split-ignore names fields that exist"

expect_fail 2 "problem: 'K' is not a field of the model's problems \(M, N\)" \
    "$KTUNE" predict --model "$TMP/m.ktm" --unconstrained --problem M=8,K=7
expect_fail 2 "problem sets 'N' twice" \
    "$KTUNE" predict --model "$TMP/m.ktm" --unconstrained --problem N=8,N=7
"$KTUNE" predict --model "$TMP/m.ktm" --unconstrained --problem M=8,N=7 |
    grep -q "^p0=1,p1=4 " || fail "predict"
pass "predict --problem names fields of the model"

expect_fail 1 "nothing in '$TMP/r.db' matches --kernel Toy \(hint: 'ktune db best" \
    "$KTUNE" db best --db "$TMP/r.db" --kernel Toy
expect_fail 1 "matches --kernel toy --device gpu" \
    "$KTUNE" db export csv --db "$TMP/r.db" --kernel toy --device gpu
[ "$("$KTUNE" db list --db "$TMP/r.db" --kernel toy | wc -l)" = 20 ] || fail "db list"
pass "a db filter that matches nothing says so"
