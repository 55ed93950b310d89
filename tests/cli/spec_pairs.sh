# spec_pairs.sh - each shipped BF16 spec is its FP16 twin in everything but
# the element type: the name, the -DKT_BF16 option, the arguments' "half"
# against "bfloat16" and the verification's tolerance.  A change to one
# (a tuning parameter, a condition, a launch expression) that is not made
# to the other fails here.
. "$(dirname "$0")/lib.sh"
for f16 in kernels/gemm/*-f16-cuda.json kernels/conv/*-f16-cuda.json; do
    bf16=$(echo "$f16" | sed 's/-f16-cuda\.json$/-bf16-cuda.json/')
    [ -f "$bf16" ] || continue
    python3 - "$f16" "$bf16" >"$TMP/diff" 2>&1 <<'PY' || fail "$(cat "$TMP/diff")"
import json, sys

def plain(path):
    """The spec with what the element type changes taken out."""
    s = json.load(open(path))
    s["General"].pop("BenchmarkName")
    ks = s["KernelSpecification"]
    ks["CompilerOptions"] = [o for o in ks.get("CompilerOptions", [])
                             if not o.startswith("-DKT_BF16")]
    for group in ("Arguments", "ReferenceArguments"):
        for a in ks.get(group, []):
            if a.get("Type") in ("half", "bfloat16"):
                a["Type"] = "16-bit"
            a.pop("ValidationThreshold", None)
    return s

def first_difference(a, b, at="spec"):
    if type(a) is not type(b):
        return at
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            d = first_difference(a.get(k), b.get(k), f"{at}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{at} (length {len(a)} against {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{at}[{i}]")
            if d:
                return d
        return None
    return None if a == b else at

d = first_difference(plain(sys.argv[1]), plain(sys.argv[2]))
if d:
    sys.exit(f"{sys.argv[1]} and {sys.argv[2]} differ at {d}")
PY
    grep -q -- '-DKT_BF16=1' "$bf16" || fail "$bf16 does not compile with -DKT_BF16=1"
    grep -q '"bfloat16"' "$bf16" || fail "$bf16 has no bfloat16 argument"
    pass "$bf16 is $f16 in bfloat16"
done
