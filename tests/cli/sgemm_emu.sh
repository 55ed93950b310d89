# sgemm_emu.sh - the CUDA SGEMM (kernels/gemm/gemm.cu) run on the CPU by
# bench/gpu/emu (a thread per CUDA thread, cp.async copies landing at
# random, blocks in a random order, shared memory, C and the stream K
# workspace poisoned with NaN, two launches) at eight shapes against a
# double-precision product: AT=0 and AT=1, a block a tile (SK=0), whole
# waves beside shared tiles (SK=3) and every tile shared (SK=132, built
# through the register cap's __maxnreg__ path, NREG), and the same two
# with the tail split (TAIL=1).  Copies of the kernel whose last block
# forgets to reset its tile's counter must fail, with stream K and with
# the tail split, so the check is seen to catch such a fault.
. "$(dirname "$0")/lib.sh"
EMU=bench/gpu/emu/sgemm_emu.sh
T="BM=64,BN=64,BK=16,WM=32,WN=32,TM=8,TN=4"
for key in "$T,STAGES=3,GM=1,MINB=1,AT=0,SK=0" "$T,STAGES=2,GM=8,MINB=1,AT=1,SK=3" \
    "$T,STAGES=4,GM=8,MINB=1,AT=1,SK=132,NREG=216" "$T,STAGES=2,GM=8,MINB=1,AT=0,SK=3,TAIL=1" \
    "$T,STAGES=3,GM=1,MINB=1,AT=1,SK=132,NREG=216,TAIL=1"; do
    status_of sh "$EMU" "$key" >"$TMP/out" 2>&1
    [ "$rc" -eq 0 ] || fail "$key: $(cat "$TMP/out")"
    [ "$(grep -o ' ok ' "$TMP/out" | wc -l)" -eq 8 ] || fail "$key: not 8 shapes ok: $(cat "$TMP/out")"
done
pass "the SGEMM on the CPU emulation: AT=0, AT=1, SK=0, 3 and 132 (with a register cap), stream K and the tail split, at eight shapes"

sed 's/\*counter = 0;/(void)0;/' kernels/gemm/gemm.cu >"$TMP/gemm.cu"
! cmp -s kernels/gemm/gemm.cu "$TMP/gemm.cu" || fail "the planted fault did not change the kernel"
for key in "$T,STAGES=2,GM=8,MINB=1,AT=1,SK=3" "$T,STAGES=2,GM=8,MINB=1,AT=1,SK=3,TAIL=1"; do
    status_of env KERNEL="$TMP/gemm.cu" sh "$EMU" "$key" >"$TMP/out" 2>&1
    [ "$rc" -ne 0 ] && grep -q "FAIL .*counter left" "$TMP/out" ||
        fail "$key: a counter left set passed: $(cat "$TMP/out")"
done
pass "a shared tile's counter that is not reset fails the emulation (stream K and the tail split)"
