# merge_mean.sh - `ktune db merge --mean`: the same configurations measured
# in three databases (the output's own rows count) are stored as the mean
# of their successful readings, a reading without energy not counted for
# energy, min_ms the least, a failure replaced by a success; the line and
# the --json object say how many; rows of another source version of the
# kernel stay apart, counted; without --mean the first reading stays;
# a bad input changes nothing, and --mean is merge's alone.
. "$(dirname "$0")/lib.sh"

# db NAME ROWS: a database of CSV rows "config,status,time_ms,min_ms,energy_j"
# of one device, kernel and problem.
db() {
    { echo "created,device,kernel,source_hash,problem,config,status,time_ms,min_ms,energy_j"
      printf '%s\n' "$2" | sed 's/^/2026-11-22T10:00:00Z,GPU X,gemm,abc,N=8,/'
    } >"$TMP/$1.csv"
    rm -f "$TMP/$1.db"
    "$KTUNE" import csv "$TMP/$1.csv" --db "$TMP/$1.db" >/dev/null
}
# three: the output and two inputs, fresh.
three() {
    db out "A=1,ok,6,5.5,18
A=4,ok,1,1,2"
    db a "A=1,ok,2,1.5,10
A=2,ok,4,3,20
A=3,crash,,,"
    db b "A=1,ok,4,3.5,14
A=2,ok,6,6,
A=3,ok,5,4,7"
}
# row CONFIG: "status,time_ms,min_ms,energy_j" of CONFIG (source version abc)
# in out.db's export.
row() {
    "$KTUNE" db export csv --db "$TMP/out.db" |
        awk -F, -v c="\"$1\"" '$6 == c && $4 == "\"abc\"" { print $7 "," $8 "," $9 "," $12 }'
}

three
"$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/b.db" --mean >"$TMP/merge.txt"
grep -q "b.db: 3 rows, 0 added, 1 failures replaced by successes" "$TMP/merge.txt" ||
    fail "merge said: $(cat "$TMP/merge.txt")"
[ "$(tail -1 "$TMP/merge.txt")" = "averaged 2 configurations (5 readings)" ] ||
    fail "merge said: $(cat "$TMP/merge.txt")"
[ "$(row A=1)" = '"ok",4,1.5,14' ] || fail "A=1: $(row A=1), wanted the mean of 3"
[ "$(row A=2)" = '"ok",5,3,20' ] || fail "A=2: $(row A=2), wanted energy of a alone"
[ "$(row A=3)" = '"ok",5,4,7' ] || fail "A=3: $(row A=3), wanted b's success"
[ "$(row A=4)" = '"ok",1,1,2' ] || fail "A=4: $(row A=4), wanted the output's own"
pass "--mean stores each configuration's readings as their mean"

three
"$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/b.db" --mean --json >"$TMP/merge.json"
[ "$(grep -c '"input"' "$TMP/merge.json")" = 2 ] || fail "json: $(cat "$TMP/merge.json")"
tr -d ' \n' <"$TMP/merge.json" | grep -q '{"output":"[^"]*out.db","averaged":2,"readings":5,"versions":0}]$' ||
    fail "json: $(cat "$TMP/merge.json")"
pass "--mean --json: the inputs' objects, then the output's"

three
sed 's/,gemm,abc,/,gemm,abd,/' "$TMP/b.csv" >"$TMP/v2.csv" # another source version of gemm
rm -f "$TMP/v2.db"
"$KTUNE" import csv "$TMP/v2.csv" --db "$TMP/v2.db" >/dev/null
"$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/v2.db" --mean >"$TMP/merge.txt"
grep -q "^averaged 1 configurations (2 readings)$" "$TMP/merge.txt" &&
    grep -q "^2 configurations are under two or more source versions of their kernel" \
        "$TMP/merge.txt" || fail "another version: $(cat "$TMP/merge.txt")"
[ "$(row A=1)" = '"ok",4,1.5,14' ] || fail "A=1 with another version: $(row A=1)" # (6 + 2) / 2
pass "--mean keeps another source version's rows apart and says how many"

three
"$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/b.db" >"$TMP/first.txt"
! grep -q averaged "$TMP/first.txt" || fail "without --mean: $(cat "$TMP/first.txt")"
[ "$(row A=1)" = '"ok",6,5.5,18' ] || fail "without --mean, A=1: $(row A=1)"
pass "without --mean the first reading stays"

three
"$KTUNE" db export csv --db "$TMP/out.db" >"$TMP/before.csv"
expect_fail 1 "none.db.*no such file" \
    "$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/none.db" --mean
expect_fail 1 "a.db: given twice" "$KTUNE" db merge "$TMP/out.db" "$TMP/a.db" "$TMP/a.db" --mean
"$KTUNE" db export csv --db "$TMP/out.db" | cmp -s - "$TMP/before.csv" ||
    fail "a refused --mean merge changed the output"
expect_fail 2 "^ktune: error: --mean: only 'merge' averages" "$KTUNE" db best --db "$TMP/out.db" --mean
pass "a bad input changes nothing; --mean is merge's alone"
