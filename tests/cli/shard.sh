# shard.sh - a job array's way: `ktune tune --shard K/N` runs cover the
# space exactly once between them, and `ktune db merge` joins their
# databases into the rows of one single run (keys and statuses), with no
# duplicates; merging again adds nothing; bad --shard values and bad merges
# are refused with one line (a usage error's hint follows it).
. "$(dirname "$0")/lib.sh"
SPEC=tests/kernels/faulty.json
RUN="--problem N=2000 --strategy brute_force --timeout 2 --cache $TMP/cache"

# rows DB: "problem config status" of every row, sorted
rows() {
    "$KTUNE" db list --db "$1" | awk '{print $2, $3, $4}' | sort
}

"$KTUNE" tune "$SPEC" $RUN --db "$TMP/one.db" --json >"$TMP/one.json"
n=$(json_get "$TMP/one.json" space_size)
[ "$n" = 18 ] || fail "single run: space of $n, wanted 18"
total=0
for k in 1 2 3; do
    "$KTUNE" tune "$SPEC" $RUN --shard $k/3 --db "$TMP/s$k.db" --json >"$TMP/s$k.json" ||
        [ $? = 1 ] || fail "shard $k/3 failed: $(cat "$TMP/s$k.json")"
    m=$(json_get "$TMP/s$k.json" measured)
    [ "$m" = 6 ] || fail "shard $k/3 measured $m, wanted 6"
    total=$((total + m))
done
[ "$total" = "$n" ] || fail "the shards measured $total, the space has $n"
"$KTUNE" tune "$SPEC" $RUN --shard 2/3 --db "$TMP/s2.db" >"$TMP/s2.txt"
grep -q "6 valid configurations in share 2 of 3" "$TMP/s2.txt" || fail "text: $(cat "$TMP/s2.txt")"
grep -q "MODE=0,VARIANT=1: not in this share" "$TMP/s2.txt" || fail "default: $(cat "$TMP/s2.txt")"
pass "3 shards measure 6 configurations each, 18 in all"

"$KTUNE" db merge "$TMP/all.db" "$TMP/s1.db" "$TMP/s2.db" "$TMP/s3.db" >"$TMP/merge.txt"
grep -q "s2.db: 6 rows, 6 added, 0 failures replaced" "$TMP/merge.txt" ||
    fail "merge said: $(cat "$TMP/merge.txt")"
rows "$TMP/one.db" >"$TMP/one.rows"
rows "$TMP/all.db" >"$TMP/all.rows"
[ "$(wc -l <"$TMP/all.rows")" = "$n" ] || fail "merged $(wc -l <"$TMP/all.rows") rows"
[ "$(sort -u "$TMP/all.rows" | wc -l)" = "$n" ] || fail "merged rows repeat"
cmp -s "$TMP/one.rows" "$TMP/all.rows" ||
    fail "merged rows differ from one run's: $(diff "$TMP/one.rows" "$TMP/all.rows")"
pass "db merge of the shards gives the single run's keys and statuses"

"$KTUNE" db merge "$TMP/all.db" "$TMP/s1.db" "$TMP/s2.db" "$TMP/s3.db" --json >"$TMP/again.json"
[ "$(grep -c '"added": 0' "$TMP/again.json")" = 3 ] || fail "again: $(cat "$TMP/again.json")"
[ "$("$KTUNE" db list --db "$TMP/all.db" | wc -l)" = "$n" ] || fail "merging again added rows"
"$KTUNE" tune "$SPEC" $RUN --db "$TMP/all.db" --json >"$TMP/resume.json"
[ "$(json_get "$TMP/resume.json" measured)" = 0 ] || fail "the merged database is not resumed from"
pass "merging again adds nothing; a run on the merged database measures nothing"

for bad in 0/3 4/3 3 1/0 a/b 1/3x -1/3 1/-3 " 1/3" 1/2000000; do
    expect_fail 2 "^ktune: error: --shard '$bad': expected K/N" \
        "$KTUNE" tune "$SPEC" $RUN --shard "$bad" --db "$TMP/bad.db"
done
[ ! -e "$TMP/bad.db" ] || fail "a refused --shard created a database"
pass "bad --shard values are refused with one line"

expect_fail 2 "merge needs OUT.db and at least one IN.db" "$KTUNE" db merge "$TMP/x.db"
expect_fail 1 "s1.db: the database merged into" "$KTUNE" db merge "$TMP/s1.db" "$TMP/s1.db"
expect_fail 1 "none.db.*no such file" "$KTUNE" db merge "$TMP/all.db" "$TMP/none.db"
echo "not a database" >"$TMP/text.db"
expect_fail 1 "text.db: not a ktune database" "$KTUNE" db merge "$TMP/all.db" "$TMP/text.db"
pass "db merge refuses a missing input, a foreign file and its own output"
