# validate.sh - `ktune validate`: every problem of a spec, one line each, then
# the space's size; --json; the exit status.
. "$(dirname "$0")/lib.sh"
KERNEL=$(pwd)/tests/kernels/faulty.c

# Three distinct errors in three sections: a Values expression that calls
# open(), a condition over an unknown name, an argument of an unknown type;
# and a schema rule ktune does not read (General.LoggingLevel's enum).
cat >"$TMP/bad.json" <<JSON
{"General": {"LoggingLevel": "Loud"},
 "ConfigurationSpace": {
  "TuningParameters": [
   {"Name": "A", "Type": "int", "Values": "[open('x')]"},
   {"Name": "B", "Type": "int", "Values": "[1, 2, 4]"}],
  "Conditions": [{"Parameters": ["B"], "Expression": "B < C"}]},
 "KernelSpecification": {"Language": "C", "KernelName": "scale",
  "KernelFile": "$KERNEL",
  "Arguments": [{"Type": "quad", "MemoryType": "Vector", "Size": 4}]}}
JSON
status_of "$KTUNE" validate "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"
[ "$rc" -eq 1 ] || fail "a bad spec: exit $rc, wanted 1"
grep -q "General.LoggingLevel: \"Loud\" is not one of: Off, Error, Warning, Info, Debug (T1 schema)" "$TMP/out" ||
    fail "schema enum not reported: $(cat "$TMP/out")"
grep -q "TuningParameters\[0\].Values: in \"\[open('x')\]\": column 2: calling 'open' is not allowed" "$TMP/out" ||
    fail "Values error not reported: $(cat "$TMP/out")"
grep -q "Conditions\[0\].Expression: in \"B < C\": column 5: unknown name 'C'" "$TMP/out" ||
    fail "condition error not reported: $(cat "$TMP/out")"
grep -q "Arguments\[0\].Type: unsupported value \"quad\"" "$TMP/out" ||
    fail "argument error not reported: $(cat "$TMP/out")"
grep -q "4 problems; the space cannot be counted" "$TMP/out" || fail "summary: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 5 ] || fail "one line per problem: $(cat "$TMP/out")"
pass "a spec with several errors reports every one, one line each"

# A parameter without a Name (reported, and validate goes on) beside Kernel
# Tuner's grid divisors: the block-size default of the other axes is looked
# up by name, and the missing one must not crash it.
cat >"$TMP/noname.json" <<JSON
{"ConfigurationSpace": {"TuningParameters": [{"Type": "int", "Values": "[1, 2]"}]},
 "KernelSpecification": {"Language": "CUDA", "KernelName": "k",
  "KernelFile": "$KERNEL", "ProblemSize": [8, 8], "GridDivX": ["1"],
  "LocalSize": {"X": "1", "Y": "1", "Z": "1"},
  "Arguments": [{"Type": "float", "MemoryType": "Vector", "Size": 4}]}}
JSON
status_of "$KTUNE" validate "$TMP/noname.json" >"$TMP/out" 2>"$TMP/err"
[ "$rc" -eq 1 ] || fail "a parameter without a Name beside GridDivX: exit $rc, wanted 1"
grep -q "TuningParameters\[0\].Name: missing required key" "$TMP/out" ||
    fail "missing Name not reported: $(cat "$TMP/out")"
pass "a parameter without a Name beside grid divisors is reported, not a crash"

# A valid spec prints its count and exits 0; warnings go to stderr.
"$KTUNE" validate tests/data/t1/kerneltuner/test_T1_input.json >"$TMP/out" 2>"$TMP/err" ||
    fail "a valid spec failed: $(cat "$TMP/out" "$TMP/err")"
grep -qx "tests/data/t1/kerneltuner/test_T1_input.json: valid; 2359296 configurations" \
    "$TMP/out" || fail "valid spec: $(cat "$TMP/out")"
grep -q "warning: unknown key 'KernelSpecification.Arguments\[0\].Output'" "$TMP/err" ||
    fail "warnings: $(cat "$TMP/err")"
pass "a valid spec prints its count"

# Invalid T1 whose space is valid (BAT's MD: FormatVersion "0.0.1", no
# KernelSpecification): the problems, then the count.
status_of "$KTUNE" validate tests/data/t1/bat/MD/MD-CAFF.json >"$TMP/out" 2>/dev/null
[ "$rc" -eq 1 ] || fail "MD: exit $rc"
grep -q "2 problems; the space is valid and has 60 configurations" "$TMP/out" ||
    fail "MD: $(cat "$TMP/out")"
pass "problems outside the space still leave its count"

# --json: the same findings as one object.
status_of "$KTUNE" validate "$TMP/bad.json" --json >"$TMP/bad.out" 2>"$TMP/err"
[ "$rc" -eq 1 ] || fail "--json: exit $rc"
[ ! -s "$TMP/err" ] || fail "--json wrote to stderr: $(cat "$TMP/err")"
python3 - "$TMP/bad.out" <<'PY' || fail "--json of a bad spec: $(cat "$TMP/bad.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] is False and d["count"] is None, d
assert len(d["errors"]) == 4, d["errors"]
assert isinstance(d["warnings"], list)
PY
"$KTUNE" validate tests/data/t1/bat/GEMM/GEMM-CAFF.json --json >"$TMP/ok.out"
python3 - "$TMP/ok.out" <<'PY' || fail "--json of a valid spec: $(cat "$TMP/ok.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] is True and d["count"] == "10312" and d["errors"] == [], d
assert any("Budget: expected an array, found an object" in w for w in d["warnings"]), d
PY
pass "--json"

# Unreadable and broken files are one problem each; usage errors exit 2.
printf '{"ConfigurationSpace": ' >"$TMP/trunc.json"
status_of "$KTUNE" validate "$TMP/trunc.json" >"$TMP/out" 2>&1
[ "$rc" -eq 1 ] && grep -q "trunc.json:1:24: invalid JSON" "$TMP/out" ||
    fail "truncated JSON: $rc $(cat "$TMP/out")"
expect_fail 2 "expected one SPEC file" "$KTUNE" validate
pass "broken files and usage"
