# transfer.sh - transfer across devices from the command line: the
# leave-one-device-out table of `ktune benchmark --transfer`, a replayed
# `ktune tune --warm-from`, and the one-line errors of bad input.
. "$(dirname "$0")/lib.sh"
D=tests/data/transfer
A=$D/rtx2080ti.json B=$D/rtx3060.json C=$D/rtx3090.json

"$KTUNE" benchmark --transfer "$A,$B,$C" --budgets 2,4 --seeds 2 >"$TMP/table"
grep -Eq '^NVIDIA GeForce RTX 3090 +4 +0\.999 +0\.999 ' "$TMP/table" ||
    fail "held-out 3090 with 4 measurements: $(cat "$TMP/table")"
[ "$(grep -c '^(median)' "$TMP/table")" -eq 3 ] || fail "three median rows"
pass "benchmark --transfer holds each device out"

"$KTUNE" benchmark --transfer "$A,$B,$C" --budgets 2 --seeds 2 --json >"$TMP/json"
grep -q '"transfer": 0.99616' "$TMP/json" || fail "--json: $(cat "$TMP/json")"
pass "benchmark --transfer --json"

"$KTUNE" tune --replay "$C" --warm-from "$A,$B" --budget 2 >"$TMP/tune"
grep -q 'best     between_method=0,block_size_x=448,tile_size=20,use_method=0' \
    "$TMP/tune" || fail "tune --warm-from: $(cat "$TMP/tune")"
pass "tune --warm-from measures the transfer's top after the default"

expect_fail 1 'at least two devices, not 1' "$KTUNE" benchmark --transfer "$C"
expect_fail 1 "vector_add_a4000.json: a recording of kernel 'vector_add', not 'cn_pnpoly'" \
    "$KTUNE" benchmark --transfer "$C,tests/data/kerneltuner/vector_add_a4000.json"
expect_fail 1 'three_params.json: 3 tuning parameters, not 4' \
    "$KTUNE" benchmark --transfer "$C,$A,$D/three_params.json"
expect_fail 1 "device 'NVIDIA GeForce RTX 3090' is recorded twice" \
    "$KTUNE" tune --replay "$A" --warm-from "$C,$C"
expect_fail 1 'rtx3090.json: 4 tuning parameters, not 3' \
    "$KTUNE" tune --replay "$C" --warm-from "$D/three_params.json"
expect_fail 2 'transfer takes its recordings alone' \
    "$KTUNE" benchmark --transfer "$A,$B" --replay "$C"
expect_fail 2 'top is for --transfer' "$KTUNE" benchmark --replay "$C" --top 3
expect_fail 2 'top is for --strategy predict or --warm-from' \
    "$KTUNE" tune --replay "$C" --top 3
expect_fail 2 'warm-from wants recordings' "$KTUNE" tune --replay "$C" --warm-from ,
pass "bad input is one line"
