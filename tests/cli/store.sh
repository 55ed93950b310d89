# store.sh - the database and the imports against bad input: a foreign or
# empty file is refused unchanged, reading commands create nothing, imports
# store no row that is not a configuration, a bzip2 bomb is refused early,
# and a killed import leaves nothing in /tmp.
. "$(dirname "$0")/lib.sh"

sum() { cksum <"$1"; }

# A ktune CSV export of three rows, optionally with a bad config in the last.
export_csv() {
    echo "created,device,kernel,source_hash,problem,config,status,time_ms"
    echo "2026-11-22T10:00:00Z,CPU X,gemm,abc,\"M=8,N=8\",\"A=1,B=2\",ok,1.5"
    echo "2026-11-22T10:00:01Z,CPU X,gemm,abc,\"M=8,N=8\",\"A=2,B=2\",ok,1.25"
    echo "2026-11-22T10:00:02Z,CPU X,gemm,abc,\"M=8,N=8\",\"${1:-A=3,B=2}\",ok,1"
}
export_csv >"$TMP/ok.csv"

# --- a file that is not ktune's is refused before anything writes to it
sqlite3 "$TMP/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
before=$(sum "$TMP/foreign.db")
expect_fail 1 "foreign.db: not a ktune database" \
    "$KTUNE" import csv "$TMP/ok.csv" --db "$TMP/foreign.db"
expect_fail 1 "foreign.db: not a ktune database" "$KTUNE" db best --db "$TMP/foreign.db"
[ "$(sum "$TMP/foreign.db")" = "$before" ] || fail "the foreign file was changed"
[ ! -e "$TMP/foreign.db-wal" ] || fail "a WAL was made beside the foreign file"
pass "a foreign SQLite file is refused byte for byte unchanged"

: >"$TMP/empty.db"
expect_fail 1 "empty.db: an empty file" "$KTUNE" db best --db "$TMP/empty.db"
[ ! -s "$TMP/empty.db" ] || fail "db best changed the empty file"
"$KTUNE" import csv "$TMP/ok.csv" --db "$TMP/empty.db" | grep -q "3 new" ||
    fail "import into an empty file"
pass "an empty file: refused by readers, made a database by writers"

# --- reading commands create nothing
expect_fail 1 "cannot open '$TMP/none.db': no such file" \
    "$KTUNE" train --db "$TMP/none.db" --kernel gemm --out "$TMP/m.ktm"
expect_fail 1 "no such file" "$KTUNE" db export csv --db "$TMP/none.db"
[ ! -e "$TMP/none.db" ] || fail "a reading command created the database"
pass "train and db create no database"

# --- CSV: a byte order mark is accepted; a NUL byte and a bad config are
# refused with their line, and nothing is stored
printf '\357\273\277' | cat - "$TMP/ok.csv" >"$TMP/bom.csv"
"$KTUNE" import csv "$TMP/bom.csv" --db "$TMP/c.db" | grep -q "3 new" ||
    fail "a CSV with a byte order mark"
pass "a CSV with a UTF-8 byte order mark imports"

{ export_csv | head -3; printf '\000\n'; export_csv | tail -1; } >"$TMP/nul.csv"
expect_fail 1 "nul.csv:4:1: a NUL byte" "$KTUNE" import csv "$TMP/nul.csv" --db "$TMP/n.db"
for bad in "garbage" "A=1,,B=2" "A=1,A=2" "B=2,A=3"; do
    export_csv "$bad" >"$TMP/bad.csv"
    expect_fail 1 "bad.csv:4: column 'config'" \
        "$KTUNE" import csv "$TMP/bad.csv" --db "$TMP/n.db"
done
[ "$("$KTUNE" db list --db "$TMP/n.db" | wc -l)" = 0 ] || fail "a bad CSV stored rows"
pass "a CSV with a NUL byte or a config that is not one is refused by line"

# --- MIOpen: rows that are not configurations of their solver are reported
# and not stored
{
    echo "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT,"
    echo "  direction TEXT, in_channels INT, in_h INT, out_channels INT);"
    echo "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
    echo "INSERT INTO config VALUES (1, 'NCHW', 'FP32', 'F', 64, 28, 128);"
    echo "INSERT INTO perf_db VALUES (1, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,4');"
    echo "INSERT INTO perf_db VALUES (2, 'ConvAsm1x1U', 1, 'garbage');"
    echo "INSERT INTO perf_db VALUES (3, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,x');"
    echo "INSERT INTO perf_db VALUES (4, 'ConvAsm1x1U', 1, '1,8,2,16,1,2,1,3');"
    echo "INSERT INTO perf_db VALUES (5, 'ToySolver', 1, '1,2');"
    echo "INSERT INTO perf_db VALUES (6, 'ToySolver', 1, '3,4');"
    echo "INSERT INTO perf_db VALUES (7, 'ToySolver', 1, '5,6,7');"
} | sqlite3 "$TMP/gfx000_1.db"
"$KTUNE" import miopen "$TMP/gfx000_1.db" --db "$TMP/m.db" --specs kernels/miopen \
    >"$TMP/out" 2>"$TMP/err" || fail "import miopen: $(cat "$TMP/err")"
grep -q "3 new" "$TMP/out" || fail "import miopen: $(cat "$TMP/out")"
grep -Eq "4 rows are not a configuration .*id 2 \(ConvAsm1x1U\).*id 3 .*id 4 .*; \.\.\.$" \
    "$TMP/err" || fail "the rejected rows: $(cat "$TMP/err")"
! "$KTUNE" db list --db "$TMP/m.db" | grep -Eq "garbage|=x|waves_k_in_group=3|p2=" ||
    fail "a rejected row was stored"
pass "an MIOpen import stores no row that is not a configuration, and reports them"

# --- a bzip2 bomb is refused early, in memory, leaving nothing in /tmp
# (nor in TMPDIR)
perfdb_tmp() { ls /tmp | grep perfdb || true; }
perfdb_tmp >"$TMP/tmp-before"
mkdir "$TMP/tmpdir"
head -c 100000000 /dev/zero | bzip2 -9 >"$TMP/bomb.db.bz2"
start=$(date +%s)
expect_fail 1 "bomb.db.bz2: decompresses to more than 67108864 bytes" \
    "$KTUNE" import miopen "$TMP/bomb.db.bz2" --db "$TMP/m.db"
[ $(($(date +%s) - start)) -lt 20 ] || fail "the bomb took too long to refuse"
TMPDIR="$TMP/tmpdir" "$KTUNE" import miopen "$TMP/bomb.db.bz2" --db "$TMP/m.db" \
    >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
perfdb_tmp >"$TMP/tmp-after"
new=$(comm -13 "$TMP/tmp-before" "$TMP/tmp-after")$(ls "$TMP/tmpdir")
[ -z "$new" ] || fail "left in /tmp: $new"
pass "a bzip2 bomb is refused at the limit; a killed import leaves nothing in /tmp"
