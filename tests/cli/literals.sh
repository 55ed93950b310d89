# literals.sh - Python numeric literals (0o17, 0b101, 0x1F, 1_000, 1e3,
# 1.5e-3, .5, 5.) mean their number wherever a T1 spec writes an
# expression: Values, Conditions, GlobalSize/LocalSize and argument sizes;
# configurations show them as Python prints them; malformed ones are
# refused with the key and column.
. "$(dirname "$0")/lib.sh"
KERNEL=$(pwd)/tests/kernels/faulty.c

cat >"$TMP/lits.json" <<JSON
{"ConfigurationSpace": {
  "TuningParameters": [
   {"Name": "A", "Type": "int", "Values": "[0o17, 0b101, 0x1F, 1_000]"},
   {"Name": "B", "Type": "float", "Values": "[1e3, 1.5e-3, .5, 5.]"}],
  "Conditions": [{"Parameters": ["A", "B"], "Expression": "A != 0b101 and B < 1_0.0"}]},
 "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "$KERNEL",
  "GlobalSize": {"X": "0x10 * A", "Y": "1", "Z": "1"},
  "LocalSize": {"X": "0b1", "Y": "1", "Z": "1"},
  "Arguments": [{"Name": "x", "Type": "float", "MemoryType": "Vector",
                 "Size": "1_024 + 0o0"}]}}
JSON

# python3 -c 'A=[0o17,0b101,0x1F,1_000]; B=[1e3,1.5e-3,.5,5.];
#   print([(a,b) for a in A for b in B if a != 0b101 and b < 1_0.0])'
"$KTUNE" space --list "$TMP/lits.json" >"$TMP/out" 2>"$TMP/err" ||
    fail "a spec of literals: $(cat "$TMP/err")"
cat >"$TMP/want" <<EOF
A=15,B=0.0015
A=15,B=0.5
A=15,B=5.0
A=31,B=0.0015
A=31,B=0.5
A=31,B=5.0
A=1000,B=0.0015
A=1000,B=0.5
A=1000,B=5.0
EOF
cmp -s "$TMP/want" "$TMP/out" || fail "configurations: $(cat "$TMP/out")"
"$KTUNE" validate "$TMP/lits.json" >"$TMP/out" 2>"$TMP/err" ||
    fail "validate: $(cat "$TMP/out")"
pass "numeric literals are Python's numbers in Values, conditions and sizes"

# refused SED_EDIT KEY COLUMN MESSAGE: the edited spec has one problem, there.
refused() {
    sed "$1" "$TMP/lits.json" >"$TMP/bad.json"
    status_of "$KTUNE" validate "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"
    [ "$rc" -eq 1 ] || fail "$1: exit $rc, wanted 1"
    grep -qF "$TMP/bad.json: $2: in " "$TMP/out" && grep -qF "\": column $3: $4" "$TMP/out" ||
        fail "$1: $(cat "$TMP/out")"
    [ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "$1: one problem, once: $(cat "$TMP/out")"
}
refused 's/1_000]/1__0]/' "ConfigurationSpace.TuningParameters[0].Values" 21 \
    "invalid decimal literal '1__0'"
refused 's/A != 0b101/A != 0b2/' "ConfigurationSpace.Conditions[0].Expression" 6 \
    "invalid digit '2' in binary literal '0b2'"
refused 's/"0x10 \* A"/"017 * A"/' "KernelSpecification.GlobalSize.X" 1 \
    "leading zeros in decimal integer literals are not permitted"
refused 's/"0b1"/"1_"/' "KernelSpecification.LocalSize.X" 1 "invalid decimal literal '1_'"
refused 's/"1_024 + 0o0"/"1_024 + 0x"/' "KernelSpecification.Arguments[0].Size" 9 \
    "invalid hexadecimal literal '0x'"
refused 's/1e3, 1.5e-3/1e3, _1/' "ConfigurationSpace.TuningParameters[1].Values" 7 \
    "unknown name '_1'"
pass "malformed literals are refused with their key and column"
