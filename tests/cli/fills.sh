# fills.sh - T1 data file fills from the command line: KTT's specs whose
# data files are not at hand count their spaces with a warning naming the
# file, and a tuning run refuses a data file of the wrong size in one line
# before it measures anything.  (tests/test_fills.c checks the values.)
. "$(dirname "$0")/lib.sh"
KTT=tests/data/t1/ktt

for f in KernelTuningCudaScript:4:ArgumentData.bin CoulombSum3d:210:Coulomb3d.bin; do
    name=${f%%:*}; rest=${f#*:}; want=${rest%%:*}; file=${rest#*:}
    n=$("$KTUNE" space "$KTT/$name.json" --count 2>"$TMP/err")
    [ "$n" = "$want" ] || fail "$name: counted $n, wanted $want: $(cat "$TMP/err")"
    grep -q "warning: .*DataSource: cannot read '$KTT/$file' (No such file or directory)" \
        "$TMP/err" || fail "$name: no warning about $file: $(cat "$TMP/err")"
    pass "$name counts $want without $file"
done

# The faulty test kernel (MODE 0: y = 2x + 1) with x and the expected y
# read from raw files of 4 floats each, both 16 bytes.
cp tests/kernels/faulty.c "$TMP/"
printf '{"ConfigurationSpace": {"TuningParameters": [{"Name": "MODE", "Type": "int",
  "Values": "[0]"}], "ProblemParameters": [{"Name": "N", "Default": 4}]},
 "KernelSpecification": {"Language": "C", "KernelName": "scale", "KernelFile": "faulty.c",
  "Arguments": [{"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "N"},
   {"Name": "x", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly",
    "Size": "N", "FillType": "BinaryRaw", "DataSource": "x.raw"},
   {"Name": "y", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly",
    "Size": "N"}],
  "ReferenceArguments": [{"Name": "y_ref", "TargetName": "y", "FillType": "BinaryRaw",
   "DataSource": "y.raw", "ValidationMethod": "AbsoluteDifference",
   "ValidationThreshold": 1e-6}]}}\n' >"$TMP/raw.json"
# x = 0, 1, 2, 3 and y = 1, 3, 5, 7 as little-endian floats
printf '\000\000\000\000\000\000\200\077\000\000\000\100\000\000\100\100' >"$TMP/x.raw"
printf '\000\000\200\077\000\000\100\100\000\000\240\100\000\000\340\100' >"$TMP/y.raw"
"$KTUNE" tune "$TMP/raw.json" --strategy brute_force --db "$TMP/t.db" --timeout 2 \
    --cache "$TMP/cache" --json >"$TMP/run.json" 2>"$TMP/err" || fail "tune: $(cat "$TMP/err")"
[ "$(json_get "$TMP/run.json" measured)" = 1 ] || fail "tune: $(cat "$TMP/run.json")"
grep -q '"status": "ok"' "$TMP/run.json" || fail "not verified: $(cat "$TMP/run.json")"
pass "tune verifies against the expected output read from a file"

head -c 12 "$TMP/y.raw" >"$TMP/y3.raw" && mv "$TMP/y3.raw" "$TMP/y.raw"
expect_fail 1 "^ktune: error: $TMP/raw.json: KernelSpecification.ReferenceArguments\[0\].DataSource: '$TMP/y.raw' holds 12 bytes, but the argument is 4 elements of 4 bytes \(16 bytes\)$" \
    "$KTUNE" tune "$TMP/raw.json" --strategy brute_force --db "$TMP/t2.db" --timeout 2 --cache "$TMP/cache"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "more than one line: $(cat "$TMP/err")"
pass "a data file of the wrong size is refused in one line"
