# gemm_tma.sh - the shipped TMA GEMM specs (FP16, BF16, FP8 E4M3) pass
# `ktune validate` with their whole 688-configuration space, and the FP8
# one declares its inputs as E4M3 (the library's float8_e4m3 type).
. "$(dirname "$0")/lib.sh"

for dt in f16 bf16 f8; do
    spec=kernels/gemm/gemm-tma-$dt-cuda.json
    status_of "$KTUNE" validate "$spec" >"$TMP/out" 2>"$TMP/err"
    [ "$rc" -eq 0 ] || fail "$spec: exit $rc: $(cat "$TMP/out" "$TMP/err")"
    grep -q "valid; 688 configurations" "$TMP/out" || fail "$spec: $(cat "$TMP/out")"
done
pass "the TMA GEMM specs validate"

[ "$(grep -c '"Type": "float8_e4m3"' kernels/gemm/gemm-tma-f8-cuda.json)" -eq 2 ] ||
    fail "the FP8 spec's A and B are not float8_e4m3"
pass "the FP8 spec's inputs are E4M3"
