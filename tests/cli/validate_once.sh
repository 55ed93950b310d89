# validate_once.sh - `ktune validate` reports each problem once: a key that
# the loader refuses is not reported again by the T1 schema pass (as an
# error or as a "ktune reads it" warning), and the public T1 files have no
# key reported twice.
. "$(dirname "$0")/lib.sh"
KERNEL=$(pwd)/tests/kernels/faulty.c

# validate FILE: run it; stdout and stderr together in $TMP/all, its exit
# status in $rc.
validate() {
    status_of "$KTUNE" validate "$1" >"$TMP/out" 2>"$TMP/err"
    cat "$TMP/out" "$TMP/err" >"$TMP/all"
}

# Six keys that both the loader and the schema's table check.
cat >"$TMP/bad.json" <<JSON
{"ConfigurationSpace": {
  "TuningParameters": [{"Name": "A", "Type": 5, "Values": "[1, 2]"}],
  "Conditions": [{"Parameters": "A", "Expression": "A > 0"}]},
 "KernelSpecification": {"Language": "Fortran", "KernelName": "k", "KernelFile": "$KERNEL",
  "SharedMemory": "x", "LocalSize": {"X": true, "Y": "1", "Z": "1"},
  "Arguments": [{"Type": "quad", "MemoryType": "Vector", "Size": 4}]}}
JSON
validate "$TMP/bad.json"
[ "$rc" -eq 1 ] || fail "exit $rc, wanted 1"
for key in 'ConfigurationSpace.TuningParameters[0].Type' \
           'ConfigurationSpace.Conditions[0].Parameters' KernelSpecification.Language \
           KernelSpecification.SharedMemory KernelSpecification.LocalSize.X \
           'KernelSpecification.Arguments[0].Type'; do
    n=$(grep -cF ": $key: " "$TMP/all" || true)
    [ "$n" -eq 1 ] || fail "$key reported $n times: $(cat "$TMP/all")"
done
[ "$(wc -l <"$TMP/out")" -eq 7 ] || fail "six problems and the summary: $(cat "$TMP/out")"
grep -qx "$TMP/bad.json: 6 problems; the space cannot be counted" "$TMP/out" ||
    fail "summary: $(cat "$TMP/out")"
pass "a key refused by the loader is not reported again by the schema"

# The schema still reports what the loader does not read.
sed 's/"Type": 5/"Type": "double"/' "$TMP/bad.json" >"$TMP/enum.json"
validate "$TMP/enum.json"
grep -qF "TuningParameters[0].Type: \"double\" is not one of: int, uint, float, bool, string (T1 schema)" \
    "$TMP/out" || fail "schema enum: $(cat "$TMP/out")"
pass "the schema reports what the loader accepts"

# No key twice in any public T1 file.
for f in $(find tests/data/t1 -name '*.json' ! -name input-schema.json | sort); do
    validate "$f"
    dup=$(sed -e 's/^ktune: //' -e "s|^$f: ||" -e 's/^warning: //' "$TMP/all" |
          sed -n 's/^\([A-Za-z][^ :]*\): .*/\1/p' | sort | uniq -d)
    [ -z "$dup" ] || fail "$f reports $dup more than once: $(cat "$TMP/all")"
done
pass "no key of the public T1 files is reported twice"
