# conv_report.sh - bench/gpu/conv_report.py's tables from a made-up runs
# folder: the FP16 section puts ktune's three tensor-core kernels beside
# cuDNN FP16 and gives cuDNN's time over the fastest kernel's per layer; the FP32
# table and the overlap table appear only where their runs are.
. "$(dirname "$0")/lib.sh"
R=$TMP/runs
mkdir -p "$R"
cat >"$R/res-a-igemm-tc-f16.json" <<'J'
{"best": {"key": "BM=128,BN=64", "time_ms": 0.02, "gflops": 100000, "energy_j": 0.01,
  "power_w": 500, "sm_clock_mhz": 1980}, "measured": 1, "seconds": 1}
J
cat >"$R/res-a-igemm-wgmma-f16.json" <<'J'
{"best": {"key": "BM=64,WGS=1", "time_ms": 0.03, "gflops": 100000}, "measured": 1, "seconds": 1}
J
cat >"$R/res-a-igemm-tma-f16.json" <<'J'
{"best": {"key": "BQ=8,BP=8", "time_ms": 0.015, "gflops": 100000}, "measured": 1, "seconds": 1}
J
printf 'cudnn res-a fp16 0.0180 205.00 relerr=3.0e-04 layout=nhwc\n' >"$R/cudnn.txt"
LAYERS="res-a:N=1,C=8,H=10,W=10,K=16,R=3,S=3,stride=1,pad=1 res-b:N=1,C=8,H=4,W=4,K=8,R=1,S=1,stride=1,pad=0"
python3 bench/gpu/conv_report.py "$R" "$LAYERS" >"$TMP/out"
grep -q '^| layer (N=32, FP16, NHWC) |' "$TMP/out" || fail "no FP16 table: $(cat "$TMP/out")"
# 2 * 16 * 100 * 8 * 9 = 230400 FLOP: 0.02 ms is 11.5 GFLOP/s
grep -q '^| layer (N=32, FP16, NHWC) | GFLOP | ktune mma.sync | ktune wgmma | ktune wgmma + TMA | cuDNN FP16 |' \
    "$TMP/out" || fail "FP16 header: $(cat "$TMP/out")"
grep -q '^| res-a `N=1.*| 0.00 | 20.0 us, 0 TFLOP/s `BM=128,BN=64` | 30.0 us, 0 TFLOP/s `BM=64,WGS=1` | 15.0 us, 0 TFLOP/s `BQ=8,BP=8` | 18.0 us, 0 TFLOP/s | 1.20x |$' \
    "$TMP/out" || fail "res-a row: $(cat "$TMP/out")"
grep -q '^| res-b' "$TMP/out" && fail "a layer without runs got a row: $(cat "$TMP/out")"
grep -q 'FP32' "$TMP/out" && fail "an FP32 table without FP32 runs: $(cat "$TMP/out")"
grep -q 'compile/measure' "$TMP/out" && fail "an overlap table without its runs"
grep -q '^| res-a igemm-tc-f16 | 0.020 ms | 10.0 mJ | 500 W |  1980 MHz |$' "$TMP/out" ||
    fail "no energy row for the FP16 kernel: $(cat "$TMP/out")"
pass "conv_report.py: FP16 table, cuDNN / the fastest ktune kernel 1.20x"
